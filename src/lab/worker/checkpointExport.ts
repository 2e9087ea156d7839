// A run's checkpoint as a file to download: the policy as safetensors with Hugging Face GPT-2
// tensor names (the file carries its config.json in the metadata, so it stands alone), or as an
// ONNX model, or zipped folders: a Hugging Face model folder, a TRL or veRL recipe (folderExport.ts). The optimiser state stays behind: these files are for using the policy elsewhere.
// A run that trains adapter sets over a frozen base (TTSP) exports the base with its solver merged.
import { EMBEDDED_CONFIG_KEY, serializeCheckpoint } from '../../model/checkpoint';
import { toHfConfig } from '../../model/config';
import { buildTensorTable, type TensorTable } from '../../model/params';
import { buildLoraTable, mergeLora, serializeAdapter, specTargets } from '../../model/lora';
import { isLoopName, loopNamed } from '../../loops/registry';
import { exportOnnx } from '../../onnx/export';
import type { RunCheckpoint } from './checkpoints';
import type { CheckpointFile, CheckpointFormat } from '../protocol';
import { folderFile } from './folderExport';

function baseName(c: RunCheckpoint): string {
  return `rlvr-lab-${c.loop}-${c.policy}-${c.runId}-step${c.step}`.replace(/[^A-Za-z0-9_.-]/g, '_');
}

/**
 * The policy a checkpoint holds: its parameters, or for a loop that trains adapter sets over a
 * frozen base, the base with the loop's export set merged in (TTSP: the adapted solver).
 */
export function policyOf(c: Pick<RunCheckpoint, 'runId' | 'loop' | 'cfg' | 'params' | 'adapters'>, table: TensorTable): { params: Float32Array; meta: Record<string, string> } {
  if (!c.adapters?.length) return { params: c.params, meta: {} };
  const name = isLoopName(c.loop) ? loopNamed(c.loop).spec.exportAdapter : undefined;
  const set = c.adapters.find((a) => a.spec.name === name);
  if (!set) throw new Error(`policy export: run ${c.runId} trains adapter sets (${c.adapters.map((a) => a.spec.name).join(', ')}) and its loop ${c.loop} names none to export`);
  return {
    params: mergeLora(c.cfg, table, c.params, set.spec, set.params),
    meta: { adapter_merged: set.spec.name, adapter_rank: String(set.spec.rank), adapter_alpha: String(set.spec.alpha), adapter_targets: specTargets(set.spec).join(',') },
  };
}

/** One adapter set of the checkpoint with PEFT's names, its adapter_config (PEFT's LoraConfig) in the metadata. */
function adapterFile(c: RunCheckpoint, name: string, meta: Record<string, string>): CheckpointFile {
  const set = c.adapters?.find((a) => a.spec.name === name);
  if (!set) throw new Error(`checkpoint export: run ${c.runId} has no adapter set "${name}"${c.adapters?.length ? ` (it has ${c.adapters.map((a) => a.spec.name).join(', ')})` : ''}`);
  const table = buildLoraTable(c.cfg, set.spec);
  const { configJson } = serializeAdapter(set.spec, set.params, table);
  const { safetensors } = serializeAdapter(set.spec, set.params, table, { ...meta, adapter_config: configJson });
  return { filename: `${baseName(c)}-adapter_${name}.safetensors`, mime: 'application/octet-stream', bytes: safetensors };
}

export function checkpointFile(c: RunCheckpoint, format: CheckpointFormat): CheckpointFile {
  const table = buildTensorTable(c.cfg);
  const runMeta = { run_id: c.runId, step: String(c.step), loop: c.loop, base_policy: c.policy, loop_config: JSON.stringify(c.config) };
  if (format.startsWith('adapter:')) return adapterFile(c, format.slice('adapter:'.length), runMeta);
  const policy = policyOf(c, table);
  const meta = { ...runMeta, ...policy.meta };
  c = { ...c, params: policy.params };
  if (format === 'hf' || format.startsWith('recipe:')) return folderFile(c, { params: policy.params, meta }, table, format as 'hf' | `recipe:${'trl' | 'verl'}`, baseName(c));
  if (format === 'onnx') return { filename: `${baseName(c)}.onnx`, mime: 'application/octet-stream', bytes: exportOnnx(c.cfg, table, c.params, meta) };
  if (format !== 'safetensors') throw new Error(`checkpoint export: unknown format "${String(format)}" (safetensors, onnx, hf, recipe:trl or recipe:verl)`);
  const { safetensors } = serializeCheckpoint(c.cfg, c.params, table, { ...meta, [EMBEDDED_CONFIG_KEY]: JSON.stringify(toHfConfig(c.cfg)) });
  return { filename: `${baseName(c)}.safetensors`, mime: 'application/octet-stream', bytes: safetensors };
}

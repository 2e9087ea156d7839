// A run's checkpoint as a file to download: the policy as safetensors with Hugging Face GPT-2
// tensor names (the file carries its config.json in the metadata, so it stands alone), or as an
// ONNX model. The optimiser state stays behind: these files are for using the policy elsewhere.
import { EMBEDDED_CONFIG_KEY, serializeCheckpoint } from '../model/checkpoint';
import { toHfConfig } from '../model/config';
import { buildTensorTable } from '../model/params';
import { exportOnnx } from '../onnx/export';
import type { RunCheckpoint } from './checkpoints';
import type { CheckpointFile, CheckpointFormat } from './protocol';

function baseName(c: RunCheckpoint): string {
  return `rlvr-lab-${c.loop}-${c.policy}-${c.runId}-step${c.step}`.replace(/[^A-Za-z0-9_.-]/g, '_');
}

export function checkpointFile(c: RunCheckpoint, format: CheckpointFormat): CheckpointFile {
  const table = buildTensorTable(c.cfg);
  const meta = { run_id: c.runId, step: String(c.step), loop: c.loop, base_policy: c.policy, loop_config: JSON.stringify(c.config) };
  if (format === 'onnx') return { filename: `${baseName(c)}.onnx`, mime: 'application/octet-stream', bytes: exportOnnx(c.cfg, table, c.params, meta) };
  if (format !== 'safetensors') throw new Error(`checkpoint export: unknown format "${String(format)}" (safetensors or onnx)`);
  const { safetensors } = serializeCheckpoint(c.cfg, c.params, table, { ...meta, [EMBEDDED_CONFIG_KEY]: JSON.stringify(toHfConfig(c.cfg)) });
  return { filename: `${baseName(c)}.safetensors`, mime: 'application/octet-stream', bytes: safetensors };
}

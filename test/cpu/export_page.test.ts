// The page's exports of a run's checkpoint as zipped folders (worker side, no GPU): the Hugging
// Face folder and the TRL / veRL recipes hold the same files the CLI writes, under one top
// folder, built by browser-safe code (no node: import anywhere in the shared builders).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { unzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import type { RunCheckpoint } from '../../src/lab/worker/checkpoints';
import { checkpointFile } from '../../src/lab/worker/checkpointExport';
import { buildHfFolder } from '../../src/export/hf_folder';
import { parseCheckpoint } from '../../src/model/checkpoint';
import { GPT_PRESETS } from '../../src/model/config';
import { buildTensorTable } from '../../src/model/params';
import { loopNamed } from '../../src/loops/registry';
import { DEFAULT_RL_CORE, RL_CORE_PRESETS } from '../../src/rl/config';

const cfg = GPT_PRESETS.small;
const table = buildTensorTable(cfg);

function checkpoint(rl: object): RunCheckpoint {
  const params = new Float32Array(table.totalFloats);
  for (const t of table.tensors) for (let i = t.offset; i < t.offset + t.size; i++) params[i] = Math.sin(i) / 8;
  const config = loopNamed('grpo').spec.validate({ steps: 12, rl }, 'grpo');
  return {
    runId: 'run-7', loop: 'grpo', policy: 'small', cfg, step: 12, params, state: null, config, savedAt: 0,
    optimiser: { m: params, v: params, step: 1 }, history: { steps: [], evals: [] },
  };
}

const unzip = (bytes: Uint8Array) => new Map(Object.entries(unzipSync(bytes)));

describe('checkpoint exports as zipped folders', () => {
  it('hf: the Hugging Face folder the CLI writes, under one top folder; its weights are the checkpoint\'s', () => {
    const c = checkpoint({ ...DEFAULT_RL_CORE, temperature: 0.8 });
    const f = checkpointFile(c, 'hf');
    expect(f.mime).toBe('application/zip');
    expect(f.filename).toMatch(/-hf\.zip$/);
    const top = f.filename.replace(/\.zip$/, '');
    const files = unzip(f.bytes);
    const want = buildHfFolder({ cfg, table, params: c.params });
    expect([...files.keys()].sort()).toEqual([...want.keys()].map((p) => `${top}/${p}`).sort());
    expect(new TextDecoder().decode(files.get(`${top}/tokenizer.json`))).toBe(new TextDecoder().decode(want.get('tokenizer.json')));
    const back = parseCheckpoint(files.get(`${top}/model.safetensors`)!, new TextDecoder().decode(files.get(`${top}/config.json`)));
    expect(back.params).toEqual(c.params);
    expect(back.meta).toMatchObject({ run_id: 'run-7', step: '12', loop: 'grpo' });
    expect((JSON.parse(new TextDecoder().decode(files.get(`${top}/generation_config.json`))) as { temperature?: unknown }).temperature).toBe(0.8);
  });

  it('recipe:trl and recipe:verl: the run\'s config as the framework\'s recipe with the model folder inside', () => {
    const c = checkpoint({ ...DEFAULT_RL_CORE, ...RL_CORE_PRESETS.dapo });
    const trl = unzip(checkpointFile(c, 'recipe:trl').bytes);
    const trlTop = [...trl.keys()][0].split('/')[0];
    for (const p of ['README.md', 'reward.py', 'train.py', 'grpo_config.yaml', 'data/train.jsonl', 'data/test.jsonl', 'model/config.json', 'model/onnx/model.onnx']) expect(trl.has(`${trlTop}/${p}`), p).toBe(true);
    expect(new TextDecoder().decode(trl.get(`${trlTop}/grpo_config.yaml`))).toContain('max_steps: 12');
    const verl = unzip(checkpointFile(c, 'recipe:verl').bytes);
    const verlTop = [...verl.keys()][0].split('/')[0];
    const yaml = new TextDecoder().decode(verl.get(`${verlTop}/verl_config.yaml`));
    expect(yaml).toContain('defaults: ["dapo_trainer", "_self_"]');
    expect(yaml).toContain('total_training_steps: 12');
    expect(verl.has(`${verlTop}/run.sh`)).toBe(true);
    expect(new TextDecoder().decode(verl.get(`${verlTop}/README.md`))).toContain('run run-7 of the page');
  });

  it('the shared builders import nothing from node: (they run in the page\'s worker)', () => {
    const files = [...readdirSync('src/export').map((f) => join('src/export', f)), 'src/lab/worker/folderExport.ts', 'src/lab/worker/checkpointExport.ts'];
    for (const f of files) expect(readFileSync(f, 'utf8'), f).not.toMatch(/from ['"]node:/);
  });
});

// Where one training step of the GPU policy spends its time, kernel by kernel.
//   npx tsx src/bench/profile_step.ts [preset=small] [B=16] [T=64] [steps=8]
// Times whole steps (submit + sync), then replays each dispatch of the recorded step list on
// its own, `reps` times in one command buffer, and aggregates by label. Replaying a kernel
// changes the model's buffers, so the per-kernel pass runs after the whole-step timing.
import { createNodeGpu } from '../gpu/node';
import type { Dispatch, Gpu } from '../gpu/runtime';
import { GPT } from '../model/gpt';
import { GPT_PRESETS, type GPTPresetName } from '../model/config';
import { buildTensorTable } from '../model/params';
import { initParams, mulberry32 } from '../model/init';
import { fmt, formatTable } from './timing';

async function timeRun(gpu: Gpu, list: readonly Dispatch[]): Promise<number> {
  const t0 = performance.now();
  gpu.run(list, 'profile');
  await gpu.sync();
  return performance.now() - t0;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

async function main(): Promise<void> {
  const [presetArg = 'small', bArg = '16', tArg = '64', stepsArg = '8'] = process.argv.slice(2);
  if (!(presetArg in GPT_PRESETS)) throw new Error(`unknown preset ${presetArg}; one of ${Object.keys(GPT_PRESETS).join(', ')}`);
  const cfg = GPT_PRESETS[presetArg as GPTPresetName];
  const B = Number(bArg), T = Number(tArg), steps = Number(stepsArg);
  const gpu = await createNodeGpu();
  const table = buildTensorTable(cfg);
  const model = await GPT.create(gpu, cfg, initParams(cfg, table, 1), { B, T });
  const rand = mulberry32(2);
  const BT = B * T, V = cfg.vocabSize;
  const tokens = Uint32Array.from({ length: BT }, () => Math.floor(rand() * V));
  const targets = Uint32Array.from({ length: BT }, () => Math.floor(rand() * V));
  model.setBatch(tokens, targets, new Float32Array(BT).fill(-1 / BT), new Float32Array(BT));

  // warm-up (pipeline creation happened in create; first runs touch memory)
  for (let i = 0; i < 2; i++) { model.step(); await gpu.sync(); }
  const stepMs: number[] = [];
  for (let i = 0; i < steps; i++) {
    const t0 = performance.now();
    model.step();
    await gpu.sync();
    stepMs.push(performance.now() - t0);
  }
  const list = model['stepList'] as Dispatch[];
  const empty: number[] = [];
  for (let i = 0; i < 5; i++) empty.push(await timeRun(gpu, []));
  const emptyMs = median(empty);

  // per dispatch: reps copies in one command buffer, so submit/sync overhead is amortised
  const byLabel = new Map<string, { ms: number; count: number; wg: number }>();
  for (const d of list) {
    const once = await timeRun(gpu, [d]);
    const reps = Math.max(3, Math.min(50, Math.round(20 / Math.max(once, 0.05))));
    const samples: number[] = [];
    for (let s = 0; s < 2; s++) samples.push((await timeRun(gpu, Array(reps).fill(d)) - emptyMs) / reps);
    const ms = Math.min(...samples);
    const e = byLabel.get(d.label) ?? { ms: 0, count: 0, wg: 0 };
    byLabel.set(d.label, { ms: e.ms + ms, count: e.count + 1, wg: d.workgroups[0] * d.workgroups[1] * d.workgroups[2] });
  }
  const rows = [...byLabel.entries()].sort((a, b) => b[1].ms - a[1].ms);
  const sum = rows.reduce((s, [, r]) => s + r.ms, 0);
  console.log(formatTable(
    ['kernel', 'count', 'workgroups', 'ms total', '% of sum'],
    rows.map(([label, r]) => [label, String(r.count), String(r.wg), fmt(r.ms), fmt((100 * r.ms) / sum)]),
  ));
  const med = median(stepMs);
  console.log(`\npreset ${presetArg} B=${B} T=${T}: ${list.length} dispatches; adapter ${gpu.adapterName} (cpuAdapter=${gpu.cpuAdapter})`);
  console.log(`sum of per-kernel times ${fmt(sum)} ms; empty submit+sync ${fmt(emptyMs)} ms`);
  console.log(`step (submit + sync) median ${fmt(med)} ms, min ${fmt(Math.min(...stepMs))} ms over ${steps} steps`);
  console.log(`tokens/s ${fmt((BT / med) * 1000)} (median), ${fmt((BT / Math.min(...stepMs)) * 1000)} (best)`);
  gpu.destroy();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});

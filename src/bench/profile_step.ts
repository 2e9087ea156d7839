// Where one training step of the GPU policy spends its time, kernel by kernel.
//   npx tsx src/bench/profile_step.ts [preset=small] [B=16] [T=64] [--steps=8] [--variant=gpu|cpu]
//                                     [--no-robustness] [--no-kernels]
// Times whole steps (submit + sync; wall and process CPU time, the latter steadier on a loaded
// machine), then replays each dispatch of the recorded step list on its own, several times in
// one command buffer, and aggregates by label (a floor: the best of two samples). Replaying a
// kernel changes the model's buffers, so the per-kernel pass runs after the step timing.
//   --variant         forces the kernel design (default: by adapter; see Gpu.kernelVariant)
//   --no-robustness   creates the device with Dawn's `disable_robustness` toggle (no index
//                     clamping in the generated shaders), to measure what it costs
import { createGpuFromAdapter } from '../gpu/device';
import { createNodeGpu, loadShaderSourcesNode, SWIFTSHADER_ICD } from '../gpu/node';
import type { Dispatch, Gpu, KernelVariant } from '../gpu/runtime';
import { GPT } from '../model/gpt';
import { GPT_PRESETS, type GPTPresetName } from '../model/config';
import { buildTensorTable } from '../model/params';
import { initParams, mulberry32 } from '../model/init';
import { fmt, formatTable } from './timing';

interface Args {
  preset: GPTPresetName;
  B: number;
  T: number;
  steps: number;
  variant: KernelVariant | null;
  robustness: boolean;
  kernels: boolean;
}

function parseArgs(argv: string[]): Args {
  const pos = argv.filter((a) => !a.startsWith('--'));
  const flag = (name: string) => argv.find((a) => a.startsWith(`--${name}`));
  const value = (name: string) => flag(name)?.split('=')[1];
  const preset = pos[0] ?? 'small';
  if (!(preset in GPT_PRESETS)) throw new Error(`unknown preset ${preset}; one of ${Object.keys(GPT_PRESETS).join(', ')}`);
  const variant = value('variant') ?? null;
  if (variant !== null && variant !== 'tiled' && variant !== 'direct') throw new Error(`--variant must be tiled or direct, got ${variant}`);
  return {
    preset: preset as GPTPresetName,
    B: Number(pos[1] ?? 16),
    T: Number(pos[2] ?? 64),
    steps: Number(value('steps') ?? 8),
    variant,
    robustness: !flag('no-robustness'),
    kernels: !flag('no-kernels'),
  };
}

// Dawn frees a device whose GPU instance is garbage-collected: keep it.
let instance: GPU | null = null;

async function createGpu(robustness: boolean): Promise<Gpu> {
  if (robustness) return createNodeGpu();
  // the same device as createNodeGpu, plus the toggle
  const dawn = await import('webgpu');
  Object.assign(globalThis, dawn.globals);
  process.env.VK_ICD_FILENAMES ??= SWIFTSHADER_ICD;
  const flags = ['disable-dawn-features=use_vulkan_zero_initialize_workgroup_memory_extension', 'enable-dawn-features=disable_robustness'];
  instance = dawn.create(flags);
  const adapter = await instance.requestAdapter();
  if (!adapter) throw new Error('no WebGPU adapter');
  return createGpuFromAdapter(adapter, loadShaderSourcesNode());
}

async function timeRun(gpu: Gpu, list: readonly Dispatch[]): Promise<number> {
  const t0 = performance.now();
  gpu.run(list, 'profile');
  await gpu.sync();
  return performance.now() - t0;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * Per-label floor of each dispatch's time (ms): each dispatch replayed `reps` times in one
 * command buffer, in ROUNDS passes over the whole list, keeping each dispatch's best pass, so
 * a burst of load from other processes does not land on one kernel only.
 */
async function perKernel(gpu: Gpu, list: readonly Dispatch[]): Promise<Map<string, { ms: number; count: number; wg: number }>> {
  const ROUNDS = 3;
  const empty: number[] = [];
  for (let i = 0; i < 5; i++) empty.push(await timeRun(gpu, []));
  const emptyMs = median(empty);
  const reps: number[] = [];
  for (let i = 0; i < list.length; i++) reps.push(Math.max(3, Math.min(50, Math.round(20 / Math.max(await timeRun(gpu, [list[i]]), 0.05)))));
  const best = list.map(() => Infinity);
  for (let r = 0; r < ROUNDS; r++) {
    for (let i = 0; i < list.length; i++) best[i] = Math.min(best[i], (await timeRun(gpu, Array(reps[i]).fill(list[i])) - emptyMs) / reps[i]);
  }
  const byLabel = new Map<string, { ms: number; count: number; wg: number }>();
  list.forEach((d, i) => {
    const e = byLabel.get(d.label) ?? { ms: 0, count: 0, wg: 0 };
    byLabel.set(d.label, { ms: e.ms + best[i], count: e.count + 1, wg: d.workgroups[0] * d.workgroups[1] * d.workgroups[2] });
  });
  return byLabel;
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const { B, T, steps } = args;
  const cfg = GPT_PRESETS[args.preset];
  const gpu = await createGpu(args.robustness);
  gpu.variantOverride = args.variant;
  const table = buildTensorTable(cfg);
  const model = await GPT.create(gpu, cfg, initParams(cfg, table, 1), { B, T });
  const rand = mulberry32(2);
  const BT = B * T, V = cfg.vocabSize;
  const tokens = Uint32Array.from({ length: BT }, () => Math.floor(rand() * V));
  const targets = Uint32Array.from({ length: BT }, () => Math.floor(rand() * V));
  model.setBatch(tokens, targets, new Float32Array(BT).fill(-1 / BT), new Float32Array(BT));

  for (let i = 0; i < 2; i++) { model.step(); await gpu.sync(); } // warm-up
  const wall: number[] = [], cpu: number[] = [];
  for (let i = 0; i < steps; i++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    model.step();
    await gpu.sync();
    wall.push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / 1000);
  }
  const list = model.stepDispatches();
  if (args.kernels) {
    const rows = [...(await perKernel(gpu, list)).entries()].sort((a, b) => b[1].ms - a[1].ms);
    const sum = rows.reduce((s, [, r]) => s + r.ms, 0);
    console.log(formatTable(
      ['kernel', 'count', 'workgroups', 'ms total', '% of sum'],
      rows.map(([label, r]) => [label, String(r.count), String(r.wg), fmt(r.ms), fmt((100 * r.ms) / sum)]),
    ));
    console.log(`sum of per-kernel floors ${fmt(sum)} ms`);
  }
  const variant = args.variant ?? (gpu.softwareAdapter ? 'direct' : 'tiled');
  console.log(`\npreset ${args.preset} B=${B} T=${T}: ${list.length} dispatches, ${variant} kernels, robustness ${args.robustness ? 'on' : 'off'}; ${gpu.adapterName}`);
  console.log(`step wall: median ${fmt(median(wall))} ms, best ${fmt(Math.min(...wall))} ms over ${steps} steps; process CPU per step: median ${fmt(median(cpu))} ms`);
  console.log(`tokens/s: ${fmt((BT / median(wall)) * 1000)} (median wall), ${fmt((BT / Math.min(...wall)) * 1000)} (best wall), ${fmt((BT / median(cpu)) * 1000)} per CPU-second`);
  gpu.destroy();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});

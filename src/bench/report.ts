// The bench's output: a readable table with ratios, then one JSON summary line (the last line
// of stdout, for scripts and CI to parse).
import type { MatmulResult, AttentionResult, DecodeAttentionResult } from './kernel_bench';
import type { SampleResult, TrainResult } from './model_bench';
import type { ControlStepResult } from './control_step_bench';
import type { BenchPlan } from './plan';
import { LONG_TASK_MS, type PageResult } from './page_bench';
import { fmt, formatTable, geomean, round3 } from './timing';
import type { OrtResult } from './ort_bench';
import { explorerSection, type ExplorerBenchResult } from './explorer_bench';

export interface BenchResults {
  adapter: string;
  plan: BenchPlan;
  matmul: MatmulResult[];
  attention: AttentionResult[];
  /** absent in older results */
  decodeAttention?: DecodeAttentionResult[];
  train: TrainResult;
  sample: SampleResult;
  controlStep: ControlStepResult;
  /** null when the page was not measured (--skip-page) */
  page: PageResult | null;
  /** null when onnxruntime-web was not measured (--skip-ort, or it failed: ortError); absent in older results */
  ort?: OrtResult | null;
  ortError?: string;
  /** the explorer drawing a synthetic grid (null: --skip-page, or it failed: explorerError); absent in older results */
  explorer?: ExplorerBenchResult | null;
  explorerError?: string;
}

export interface BenchSummary {
  adapter: string;
  matmulVsTfjs: number;
  trainStepVsTfjs: number;
  /** by design (tiled, direct), then by length T */
  attnFwdBwdMs: Record<string, Record<string, number>>;
  /** decode attention's direct design, f32-array head over vec4-slot head (ms over ms), at the most cached positions measured; null: not measured */
  decodeAttnSlotsVsScalar: number | null;
  trainTokensPerS: number;
  sampleTokensPerS: number;
  /** tokens/s of G rows per prompt prefilled once per group over the same fed token by token */
  sharedPrefillVsTokenByToken: number;
  /** DATPO's branches: tokens/s with the fork's prefix prefilled once and its cache copied, over re-prefilling it per branch */
  forkVsReprefill: number;
  /** decode steps per second of the fused decode block over the layered one at the sampling batch (src/model/decoder.ts BlockKernel) */
  fusedVsLayeredBlocks: number;
  /** our sampler's tokens/s over onnxruntime-web's WebGPU / wasm backend on the same policy, B = 64 greedy, in Chromium (null: not measured or failed) */
  sampleVsOrtWebgpu: number | null;
  sampleVsOrtWasm: number | null;
  /** seconds of one GRPO step (the control loop's) of the shipped small policy, default config (rollouts + update); the key keeps its name so the figures recorded in docs/bench.md compare */
  grpoStepSeconds: number;
  dispatchesPerStep: number;
  submitsPerStep: number;
  readbackBytesPerStep: number;
  pipelinesAfterWarmup: number;
  /** longest main-thread task of the page while a run trains, ms (null: not measured) */
  longTaskMaxMs: number | null;
  /** main-thread tasks over 50 ms during that run (null: not measured) */
  longTasksOver50: number | null;
  /** the explorer on a synthetic grid of 48 runs × 300 steps × 20 metrics: ms to its first chart, its longest main-thread task (null: not measured) */
  explorerFirstDrawMs: number | null;
  explorerLongTaskMaxMs: number | null;
}

/** ours / theirs at B = 64 greedy (the loops' batch), null when either side is missing. */
function ortRatio(r: BenchResults, side: 'ortWebgpu' | 'ortWasm'): number | null {
  const row = r.ort?.rows.find((x) => x.B === 64 && x.greedy);
  return row && row.ours !== null && row[side] !== null ? round3(row.ours / (row[side] as number)) : null;
}

function blockRatio(r: BenchResults): number {
  const row = r.sample.blocks.find((x) => x.B === r.sample.B) ?? r.sample.blocks[r.sample.blocks.length - 1];
  return row.fused / row.layered;
}

/** The decode-attention ratio at the most cached positions measured, null when not measured. */
function slotsVsScalar(r: BenchResults): number | null {
  const last = r.decodeAttention?.at(-1);
  return last ? round3(last.scalar / last.slots) : null;
}

/** Attention's ms per forward + backward, by design, then by length. */
function attentionByDesign(r: BenchResults): Record<string, Record<string, number>> {
  const out: Record<string, Record<string, number>> = {};
  for (const a of r.attention) (out[a.design] ??= {})[String(a.T)] = round3(a.ms);
  return out;
}

export function summarize(r: BenchResults): BenchSummary {
  return {
    adapter: r.adapter,
    matmulVsTfjs: round3(geomean(r.matmul.map((m) => m.ratio))),
    trainStepVsTfjs: round3(r.train.ratio),
    attnFwdBwdMs: attentionByDesign(r),
    decodeAttnSlotsVsScalar: slotsVsScalar(r),
    trainTokensPerS: round3(r.train.ours.tokensPerS),
    sampleTokensPerS: round3(r.sample.tokensPerS),
    sharedPrefillVsTokenByToken: round3(r.sample.prefill.grouped.shared / r.sample.prefill.grouped.off),
    forkVsReprefill: round3(r.sample.fork.shared / r.sample.fork.rows),
    fusedVsLayeredBlocks: round3(blockRatio(r)),
    sampleVsOrtWebgpu: ortRatio(r, 'ortWebgpu'),
    sampleVsOrtWasm: ortRatio(r, 'ortWasm'),
    grpoStepSeconds: round3(r.controlStep.stepS),
    dispatchesPerStep: r.train.perStep.dispatches,
    submitsPerStep: r.train.perStep.submits,
    readbackBytesPerStep: r.train.perStep.readbackBytes,
    pipelinesAfterWarmup: r.train.pipelinesAfterWarmup,
    longTaskMaxMs: r.page ? round3(r.page.longestTaskMs) : null,
    longTasksOver50: r.page ? r.page.tasksOver50 : null,
    explorerFirstDrawMs: r.explorer ? round3(r.explorer.firstDrawMs) : null,
    explorerLongTaskMaxMs: r.explorer ? round3(r.explorer.longestTaskMs) : null,
  };
}

function matmulSection(r: BenchResults): string {
  const rows = r.matmul.map((m) => [m.c.label, fmt(m.oursGflops), fmt(m.tfjsGflops), fmt(m.ratio), `${m.ours.reps}/${m.tfjs.reps}`]);
  rows.push(['geometric mean', '', '', fmt(geomean(r.matmul.map((m) => m.ratio))), '']);
  return 'Matmul, GFLOP/s (ours: one submit of many launches; TF.js: op loop, await data())\n' +
    formatTable(['shape', 'ours', 'TF.js', 'ours/TF.js', 'reps ours/TF.js'], rows);
}

function attentionSection(r: BenchResults): string {
  const { B, C, NH } = r.plan.attention;
  const rows = r.attention.map((a) => [`T=${a.T}`, a.design, fmt(a.ms), String(a.reps)]);
  return `Causal attention forward + backward (ours; B=${B}, C=${C}, NH=${NH})\n` + formatTable(['length', 'design', 'ms', 'reps'], rows);
}

function decodeAttentionSection(r: BenchResults): string {
  if (!r.decodeAttention?.length) return 'Decode attention: not measured';
  const { B, C, NH } = r.plan.decodeAttention;
  const rows = r.decodeAttention.map((d) => [String(d.s + 1), fmt(d.tiled), fmt(d.slots), fmt(d.scalar), fmt(d.scalar / d.slots), fmt(d.tiled / d.slots)]);
  return `Decode attention, one step's dispatch side by side (ours; B=${B} rows, C=${C}, NH=${NH}; ms). Tiled: the GPU design (a workgroup per row and head); ` +
    'direct: the CPU-adapter design (an invocation per row and head, no workgroup memory), its head in vec4 register slots or in an f32 array\n' +
    formatTable(['cached positions', 'tiled', 'direct, slots', 'direct, array', 'array / slots', 'tiled / slots'], rows);
}

function trainSection(r: BenchResults): string {
  const t = r.train;
  const rows = [
    ['tokens/s', fmt(t.ours.tokensPerS), fmt(t.tfjs.tokensPerS), fmt(t.ratio)],
    ['ms/step', fmt(t.ours.msPerStep), fmt(t.tfjs.msPerStep), fmt(t.tfjs.msPerStep / t.ours.msPerStep)],
    ['timed steps', String(t.ours.steps), String(t.tfjs.steps), ''],
    ['initial loss', t.ours.initialLoss.toFixed(5), t.tfjs.initialLoss.toFixed(5), ''],
  ];
  const note = 'ours: AdamW with clipping, per-token log-prob and entropy; TF.js: tf.train.adam on the mean cross-entropy; same initial parameters and batch';
  return `Training step, small policy (${t.params} parameters, B=${t.B}, T=${t.T})\n${note}\n` + formatTable(['', 'ours', 'TF.js', 'ours/TF.js'], rows);
}

function trafficSection(r: BenchResults): string {
  const p = r.train.perStep;
  const g = r.sample.perGenerate;
  const rows = [
    ['kernel dispatches', String(p.dispatches), fmt(g.dispatches)],
    ['command-buffer submits', String(p.submits), fmt(g.submits)],
    ['bytes read back', String(p.readbackBytes), fmt(g.readbackBytes)],
    ['pipelines created after warm-up', String(r.train.pipelinesAfterWarmup), String(g.pipelinesCreated)],
  ];
  return 'GPU traffic of our engine (after warm-up)\n' + formatTable(['', 'per training step', 'per generate()'], rows);
}

function sampleSection(r: BenchResults): string {
  const s = r.sample;
  const p = s.prefill;
  const d = p.distinct, g = p.grouped;
  const rows = [
    [`${s.B} distinct prompts`, fmt(d.off), fmt(d.rows), '', fmt(d.rows / d.off)],
    [`${s.B / g.group} prompts × ${g.group} rows`, fmt(g.off), fmt(g.rows), fmt(g.shared), fmt(g.shared / g.off)],
  ];
  return `Sampling with the KV cache (ours; B=${s.B}, prompt ${s.prompt} + ${s.maxNew} new tokens, random-init small policy)\n` +
    formatTable(['', 'value'], [['generated tokens', String(s.tokens)], ['tokens/s', fmt(s.tokensPerS)]]) +
    `\n\nHow prompts are fed, tokens/s side by side (the prompt is ${fmt(100 * p.promptShare)} % of each sequence's tokens; same tokens in every column)\n` +
    formatTable(['prompts', 'token by token', 'prefilled per row', 'prefilled per group', 'best / token by token'], rows) +
    `\n\nDATPO's branches, tokens/s side by side: ${s.fork.B / s.fork.group} fork prefixes of ${s.fork.prompt} tokens × ${s.fork.group} branches of ${s.fork.maxNew} new tokens\n` +
    formatTable(['prefix re-prefilled per branch', 'prefix prefilled once, cache forked', 'forked / re-prefilled'], [[fmt(s.fork.rows), fmt(s.fork.shared), fmt(s.fork.shared / s.fork.rows)]]) +
    `\n\nDecode blocks, decode steps alone side by side (rows × steps per second; ${s.prompt + s.maxNew - 1} steps from each prompt's first token, no prefill or readback; same tokens up to rounding). ` +
    'Layered: the training forward\'s kernels, 8 dispatches a block (projections add into the residual stream, GELU in the MLP matmul\'s epilogue); fused: two kernels a block, one workgroup per row ' +
    '(meant for GPUs, where the layered step should be bound by launch latency: not yet measured on one; the default there for models up to 64 channels, ' +
    `layered on software adapters; the sampling figures above ran ${s.blockKernel}). A step also embeds, projects to logits and samples\n` +
    formatTable(['B', 'layered', 'fused', 'fused / layered'], s.blocks.map((b) => [String(b.B), fmt(b.layered), fmt(b.fused), fmt(b.fused / b.layered)]));
}

function grpoSection(r: BenchResults): string {
  const g = r.controlStep;
  const rows = [
    ['rollouts', `${fmt(g.rolloutS)} s`],
    ['update', `${fmt(g.trainS)} s`],
    ['whole step', `${fmt(g.stepS)} s`],
    ['response tokens per step', fmt(g.tokensPerStep)],
    ['mean sequence length', fmt(g.meanSeqLen)],
    [`evaluation, ${g.evalProblems} problems × ${g.evalN} samples`, `${fmt(g.evalS)} s`],
  ];
  return `GRPO step of the shipped small policy, default config (${g.problemsPerStep} problems × ${g.groupSize} samples; mean of ${g.steps} steps after a warm-up)\n` +
    formatTable(['', 'value'], rows);
}

function pageSection(p: PageResult | null): string {
  if (!p) return 'Page main thread: not measured (--skip-page)';
  const rows = [
    ['run (Start to done)', `${fmt(p.runSeconds)} s`],
    ['long tasks (> 50 ms by the Long Tasks API)', String(p.tasksOver50)],
    ['longest task', `${fmt(p.longestTaskMs)} ms`],
  ];
  return `Page main thread while a 3-step GRPO run of tiny trains (headless Chromium, adapter ${p.adapter}; figures, not bounds: over ${LONG_TASK_MS} ms a task delays input)
` + formatTable(['', 'value'], rows);
}

/** The whole report: table sections, then the JSON summary as the last line. */
function ortSection(o: OrtResult | null, error?: string): string {
  if (!o) return `Sampling against onnxruntime-web: not measured (${error ? `failed: ${error}` : '--skip-ort'})`;
  const cell = (x: number | null) => (x === null ? 'failed' : fmt(x));
  const ratio = (a: number | null, b: number | null) => (a === null || b === null ? '' : fmt(a / b));
  const rows = o.rows.map((x) => [String(x.B), x.greedy ? 'greedy' : 'T = 1', cell(x.ours), cell(x.ortWebgpu), cell(x.ortWasm), ratio(x.ours, x.ortWebgpu), ratio(x.ours, x.ortWasm)]);
  const errors = [...new Set(o.rows.flatMap((x) => x.errors))];
  return `Sampling side by side in headless Chromium, one adapter (${o.adapter}): the shipped small policy, ${o.promptTokens}-token prompts + ${o.maxNew} new tokens, tokens/s (each side's best of 3 runs after a warm-up); onnxruntime-web runs the with-past ONNX export of the same parameters (WebGPU: the cache stays on the GPU; wasm: ${o.wasmThreads} thread${o.wasmThreads === 1 ? '' : 's'})\n` +
    formatTable(['B', 'sampling', 'ours', 'ort WebGPU', 'ort wasm', 'ours / WebGPU', 'ours / wasm'], rows) +
    (errors.length ? `\nfailures: ${errors.join('; ')}` : '');
}

export function renderReport(r: BenchResults): string {
  const head = `rlvr-lab bench (${r.plan.mode} mode${r.plan.mode === 'quick' ? ': smaller shapes and fewer repetitions, for a smoke check' : ''})\n` +
    `adapter: ${r.adapter} (ours and TF.js's WebGPU backend, each with its own device on this adapter)`;
  const sections = [head, matmulSection(r), attentionSection(r), decodeAttentionSection(r), trainSection(r), sampleSection(r), ortSection(r.ort ?? null, r.ortError), grpoSection(r), trafficSection(r), pageSection(r.page), r.explorerError ? `Explorer drawing a big grid: failed (${r.explorerError})` : explorerSection(r.explorer ?? null)];
  return sections.join('\n\n') + '\n\n' + JSON.stringify(summarize(r)) + '\n';
}

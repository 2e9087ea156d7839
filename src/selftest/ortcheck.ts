// The self-test panel's independent check (issue 29 §3): the current policy exported to ONNX
// (src/onnx/export.ts) and run by onnxruntime-web, a runtime we did not write, beside the lab's
// own kernels on the same prompts. The lab's KV-cache decoder generates greedily; then both sides
// score every position of those sequences in one full forward and the logits are compared
// element by element, and ORT's greedy choice at each generated position with the lab's token.
// A user whose GPU we never saw learns whether our WGSL computes what the model means there.
import type { Gpu } from '../gpu/runtime';
import { GPT } from '../model/gpt';
import { Decoder } from '../model/decoder';
import { buildTensorTable } from '../model/params';
import { exportOnnx } from '../onnx/export';
import { compareClose, type Tolerance } from '../util/tolerance';
import { loadSet, solvePrompt } from '../world/index';
import type { BasePolicy } from '../lab/worker/runs';
import type { OrtCheckResult } from '../lab/protocol';

export type OrtBackend = 'webgpu' | 'wasm';

export interface OrtLogits {
  backend: OrtBackend;
  /** float32 [B, T, V] */
  logits: Float32Array;
  /** why WebGPU was not used (null when it was) */
  fallback: string | null;
}

/** Runs the exported ONNX model once (input_ids int32 [B, T]); ort_runtime.ts, or a fake in tests. */
export type OrtRun = (onnx: Uint8Array, ids: Int32Array, B: number, T: number) => Promise<OrtLogits>;

/**
 * Both sides compute in float32 with different summation orders (and ORT's WebGPU or wasm
 * kernels): differences of about 1e-5 on the shipped policies; 1e-3 absolute plus 1e-3 of the
 * logit leaves room for a GPU's fused multiply-adds while a wrong kernel is off by far more.
 */
export const ORT_TOLERANCE: Tolerance = { atol: 1e-3, rtol: 1e-3 };

/** Rows and new tokens of the check: a few seconds on a software adapter. */
export const ORT_CHECK_ROWS = 4;
export const ORT_CHECK_NEW = 24;

/** Solve prompts of the held-out set, all of one length, that leave room for `maxNew` tokens. */
export function checkPrompts(nPositions: number, rows: number, maxNew: number): number[][] {
  const fit = loadSet('eval-mixed').map((p) => solvePrompt(p.text)).filter((p) => p.length + maxNew <= nPositions);
  if (fit.length === 0) throw new Error(`no held-out prompt leaves room for ${maxNew} new tokens in ${nPositions} positions`);
  const len = fit[0].length;
  const same = fit.filter((p) => p.length === len);
  return Array.from({ length: rows }, (_, i) => same[i % same.length]);
}

export type OrtComparison = Pick<OrtCheckResult, 'maxAbs' | 'maxRel' | 'logitsOk' | 'tokensCompared' | 'tokensAgree' | 'nearTies' | 'tokensOk' | 'message'>;

function argmax(row: Float32Array): number {
  let best = 0;
  for (let v = 1; v < row.length; v++) if (row[v] > row[best]) best = v;
  return best;
}

/**
 * Compares the lab's logits [B, T, V] with ORT's over the same sequences `tokens` [B, T], and
 * ORT's greedy choice at each generated position (promptLen-1 .. T-2) with the lab's next token.
 * A different choice is a near tie, not a failure, when ORT's best logit exceeds its logit of
 * the lab's token by no more than the logits may differ (twice the tolerance at that logit).
 */
export function compareWithOrt(ours: Float32Array, theirs: Float32Array, tokens: ArrayLike<number>, dims: { B: number; T: number; V: number; promptLen: number }, tol: Tolerance = ORT_TOLERANCE): OrtComparison {
  const { B, T, V, promptLen } = dims;
  const logits = compareClose('logits', theirs, ours, tol);
  let compared = 0, agree = 0, ties = 0;
  const wrong: string[] = [];
  for (let b = 0; b < B; b++) {
    for (let t = promptLen - 1; t < T - 1; t++) {
      const row = theirs.subarray((b * T + t) * V, (b * T + t + 1) * V);
      const mine = tokens[b * T + t + 1];
      const pick = argmax(row);
      compared++;
      if (pick === mine) agree++;
      else if (row[pick] - row[mine] <= 2 * (tol.atol + tol.rtol * Math.abs(row[pick]))) ties++;
      else wrong.push(`row ${b} position ${t + 1}: ours ${mine}, ORT ${pick} (logit gap ${(row[pick] - row[mine]).toExponential(2)})`);
    }
  }
  const tokensOk = wrong.length === 0;
  const message = [logits.message, `greedy tokens: ${agree} of ${compared} equal${ties ? `, ${ties} near ties` : ''}${tokensOk ? '' : `; differ at ${wrong.slice(0, 3).join('; ')}`}`].join('\n');
  return { maxAbs: logits.maxAbs, maxRel: logits.maxRel, logitsOk: logits.ok, tokensCompared: compared, tokensAgree: agree, nearTies: ties, tokensOk, message };
}

/** The lab's greedy sequences and their logits at every position, on this device. */
async function labSide(gpu: Gpu, policy: BasePolicy, prompts: number[][], maxNew: number): Promise<{ tokens: Uint32Array; logits: Float32Array; T: number }> {
  const { cfg, params } = policy;
  const table = buildTensorTable(cfg);
  const B = prompts.length, T = prompts[0].length + maxNew;
  const buf = gpu.upload(params, 'ortcheck.params');
  let decoder: Decoder | null = null, model: GPT | null = null;
  try {
    decoder = await Decoder.create(gpu, cfg, table, buf, { B, Tmax: T });
    // eosToken = V is never drawn: every row generates maxNew tokens
    const gen = await decoder.generate(prompts, { temperature: 1, topK: 1, topP: 1, seed: 1, eosToken: cfg.vocabSize, maxNew });
    model = await GPT.create(gpu, cfg, params, { B, T });
    model.setBatch(gen.tokens, new Uint32Array(B * T));
    model.forward();
    return { tokens: gen.tokens, logits: await gpu.readF32(model.batch.logits), T };
  } finally {
    decoder?.destroy();
    model?.destroy();
    buf.destroy();
  }
}

/** The whole check of `policy` (named `name`): the lab's side on `gpu`, ORT's through `run`. */
export async function runOrtCheck(gpu: Gpu, name: string, policy: BasePolicy, run?: OrtRun): Promise<OrtCheckResult> {
  const t0 = performance.now();
  const { cfg } = policy;
  const prompts = checkPrompts(cfg.nPositions, ORT_CHECK_ROWS, ORT_CHECK_NEW);
  const promptLen = prompts[0].length, B = prompts.length;
  const lab = await labSide(gpu, policy, prompts, ORT_CHECK_NEW);
  const onnx = exportOnnx(cfg, buildTensorTable(cfg), policy.params, { policy: name });
  // loaded here and only here: onnxruntime-web is a chunk of its own
  const ort = run ?? (await import('./ort_runtime')).runOrt;
  const out = await ort(onnx, Int32Array.from(lab.tokens), B, lab.T);
  const cmp = compareWithOrt(lab.logits, out.logits, lab.tokens, { B, T: lab.T, V: cfg.vocabSize, promptLen });
  return { policy: name, backend: out.backend, fallback: out.fallback, rows: B, promptLen, newTokens: ORT_CHECK_NEW, tolerance: ORT_TOLERANCE, ...cmp, ok: cmp.logitsOk && cmp.tokensOk, ms: performance.now() - t0 };
}

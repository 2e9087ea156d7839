// Pretraining data: a seeded mixture of every role's gold examples, packed into [B, T] rows
// with the loss on response tokens and, at a chosen weight, on the prompt after its role token.
// Batch `step` depends only on (seed, step), so a run resumed from a checkpoint sees exactly the
// batches an uninterrupted run would.
import { EOS, PAD, ROLES, SEP, makeRng, sampleExample, type Role } from '../world/index';

export type RoleMix = Readonly<Record<Role, number>>;

/**
 * Solve dominates (it is what RL trains); every generating role gets enough to be parseable.
 * With the prompt loss on, vary prompts (a problem and its gold trace) and challenge documents
 * (worked records) teach arithmetic too.
 */
export const DEFAULT_MIX: RoleMix = { solve: 0.6, vary: 0.12, challenge: 0.08, teach: 0.08, propose: 0.12 };

export interface CurriculumSpec {
  /** operation counts drawn uniformly from 1..maxOps(progress) */
  finalMaxOps: number;
  /** fraction of the run over which maxOps ramps from 1 to finalMaxOps (NOTES: 0.3 helps most) */
  rampFraction: number;
}

export const DEFAULT_CURRICULUM: CurriculumSpec = { finalMaxOps: 4, rampFraction: 0.3 };

export function maxOpsAt(progress: number, c: CurriculumSpec): number {
  if (c.rampFraction <= 0) return c.finalMaxOps;
  const f = Math.min(1, Math.max(0, progress / c.rampFraction));
  return Math.max(1, Math.min(c.finalMaxOps, 1 + Math.floor(f * c.finalMaxOps)));
}

export interface PackedBatch {
  tokens: Uint32Array; // [B*T]
  targets: Uint32Array; // [B*T]
  /** [B*T]: −1/W on response targets and −promptWeight/W on prompt targets after the role token (W the sum of those weights), else 0 */
  w: Float32Array;
  responseTokens: number;
  roles: Role[];
}

function pickRole(rand: () => number, mix: RoleMix): Role {
  const total = ROLES.reduce((a, r) => a + mix[r], 0);
  let u = rand() * total;
  for (const r of ROLES) {
    u -= mix[r];
    if (u < 0) return r;
  }
  return 'solve';
}

interface Drawn {
  seq: number[];
  role: Role;
  promptLength: number;
  /** prompt tokens before this index may carry the prompt loss (see promptLossEnd) */
  promptLossEnd: number;
}

/**
 * Where a prompt's loss-bearing part ends: after its first segment (through the first <sep>),
 * or the whole prompt when it has none. A propose prompt lists earlier proposals after the
 * target, each `PROBLEM<sep>`, shaped like the response `PROBLEM=TRACE`: a loss on them taught
 * the base to keep listing problems where it should answer (68 of 128 sampled proposals of the
 * first 0..9 `small` were `PROBLEM<sep>…`, unparseable), so they carry none.
 */
export function promptLossEnd(prompt: readonly number[]): number {
  const sep = prompt.indexOf(SEP);
  return sep < 0 ? prompt.length : sep + 1;
}

function drawExample(rand: () => number, mix: RoleMix, maxOps: number, T: number): Drawn {
  for (let tries = 0; tries < 50; tries++) {
    const role = pickRole(rand, mix);
    const ops = 1 + Math.floor(rand() * maxOps);
    const e = sampleExample(rand, role, ops);
    if (e.prompt.length + e.response.length > T + 1) continue;
    const seq = [...e.prompt, ...e.response];
    if (seq[seq.length - 1] !== EOS) throw new Error('pretraining: a gold response does not end with EOS');
    return { seq, role: e.role, promptLength: e.prompt.length, promptLossEnd: promptLossEnd(e.prompt) };
  }
  throw new Error(`pretraining: no example fits T=${T} after 50 draws; raise T`);
}

/**
 * A batch of gold examples with the loss on response tokens and, weighted by `promptWeight`
 * (0..1), on the prompt tokens after `<bos><role>` through the prompt's first segment (the
 * problem, trace or document the prompt carries; the role token itself is a draw from the mix,
 * not something to learn; see promptLossEnd). With `pack`
 * (the default), each row holds as many whole examples back to back as fit in T+1 tokens (an
 * example that does not fit opens the next row), which triples the response tokens per step at
 * the world's lengths; examples are separated by their EOS and the model learns to start afresh
 * after one. Without it, one example per row, right-padded. Examples longer than T+1 are redrawn.
 */
export function pretrainBatch(
  seed: number, step: number, B: number, T: number, mix: RoleMix, maxOps: number, pack = true, promptWeight = 0,
): PackedBatch {
  if (!(promptWeight >= 0 && promptWeight <= 1)) throw new RangeError(`pretrainBatch: promptWeight must be in [0, 1] (got ${promptWeight})`);
  const rand = makeRng(((seed * 0x9e3779b1) ^ (step * 0x85ebca6b)) >>> 0);
  const tokens = new Uint32Array(B * T).fill(PAD);
  const targets = new Uint32Array(B * T).fill(PAD);
  const weight = new Float32Array(B * T);
  const roles: Role[] = [];
  let n = 0;
  let total = 0;
  let carry: Drawn | null = null;
  for (let b = 0; b < B; b++) {
    // stream positions 0..T of this row; input t = stream[t], target t = stream[t+1]
    let used = 0;
    for (;;) {
      const ex: Drawn = carry ?? drawExample(rand, mix, maxOps, T);
      carry = null;
      const { seq, promptLength: pl, promptLossEnd: ple } = ex;
      if (used > 0 && used + seq.length > T + 1) {
        carry = ex;
        break;
      }
      roles.push(ex.role);
      // a later example's first token is predicted from the previous EOS: a prompt target, no loss
      for (let j = 0; j < seq.length; j++) {
        const t = used + j; // stream position of seq[j]
        if (t < T) tokens[b * T + t] = seq[j];
        if (t >= 1 && t - 1 < T) {
          targets[b * T + t - 1] = seq[j];
          if (j >= pl) {
            weight[b * T + t - 1] = 1;
            total += 1;
            n++;
          } else if (j >= 2 && j < ple && promptWeight > 0) {
            weight[b * T + t - 1] = promptWeight;
            total += promptWeight;
          }
        }
      }
      used += seq.length;
      if (!pack || used >= T + 1) break;
    }
  }
  const w = new Float32Array(B * T);
  for (let i = 0; i < w.length; i++) if (weight[i]) w[i] = -weight[i] / total;
  return { tokens, targets, w, responseTokens: n, roles };
}

/** Learning rate: linear warm-up, then cosine decay to `minFrac` of the peak. */
export function lrAt(step: number, total: number, peak: number, warmup: number, minFrac = 0.1): number {
  if (step < warmup) return (peak * (step + 1)) / warmup;
  const p = Math.min(1, (step - warmup) / Math.max(1, total - warmup));
  return peak * (minFrac + (1 - minFrac) * 0.5 * (1 + Math.cos(Math.PI * p)));
}

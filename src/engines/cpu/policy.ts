// The CPU engine's policy, in float64 (CPU mode: a browser without WebGPU). Training
// batches go through the whole-model reference (src/reference/gpt.ts); sampling is a KV-cache
// decoder composed from the decode references (src/reference/decode.ts), one sequence at a time.
// It mirrors src/model/decoder.ts: same sampling distribution (temperature, top-k, top-p), the
// same Philox draw for (seed, row, position), the same Generation layout, so the RL code and
// the evaluation take either decoder.
import type { GPTConfig } from '../../model/config';
import { buildTensorTable, type TensorTable } from '../../model/params';
import type { GenerateOpts, Generation } from '../../model/decoder';
import type { SamplingDecoder } from '../../rl/rollout';
import { gptForwardRef, tensorViews } from '../../reference/gpt';
import { geluForwardRef, layernormForwardRef } from '../../reference/layers';
import { matmulForwardRef, matmulRef } from '../../reference/matmul';
import { residualForwardRef } from '../../reference/elementwise';
import {
  attentionDecodeRef, drawTokenRef, encoderDecodeRef, entropyRef, kvCacheWriteRef, policyDistributionRef,
  type DecodeDimsRef,
} from '../../reference/decode';
import { breathe } from '../../util/breathe';

type Views = Record<string, Float64Array>;

/** One block's tensors, looked up once: the sampler runs every block for every token. */
interface BlockViews {
  ln1w: Float64Array; ln1b: Float64Array; qkvw: Float64Array; qkvb: Float64Array; attprojw: Float64Array; attprojb: Float64Array;
  ln2w: Float64Array; ln2b: Float64Array; fcw: Float64Array; fcb: Float64Array; fcprojw: Float64Array; fcprojb: Float64Array;
}

function blockViews(p: Views, l: number): BlockViews {
  const h = `h.${l}.`;
  return {
    ln1w: p[h + 'ln_1.weight'], ln1b: p[h + 'ln_1.bias'], qkvw: p[h + 'attn.c_attn.weight'], qkvb: p[h + 'attn.c_attn.bias'],
    attprojw: p[h + 'attn.c_proj.weight'], attprojb: p[h + 'attn.c_proj.bias'], ln2w: p[h + 'ln_2.weight'], ln2b: p[h + 'ln_2.bias'],
    fcw: p[h + 'mlp.c_fc.weight'], fcb: p[h + 'mlp.c_fc.bias'], fcprojw: p[h + 'mlp.c_proj.weight'], fcprojb: p[h + 'mlp.c_proj.bias'],
  };
}

export class CpuPolicy {
  readonly table: TensorTable;
  /** the flat parameters in the table's layout, float64 (the optimiser updates them in place) */
  readonly params: Float64Array;
  /** views into `params` by tensor name, and per block (they stay valid: updates are in place) */
  readonly views: Views;
  readonly blocks: readonly BlockViews[];

  constructor(readonly cfg: GPTConfig, init: ArrayLike<number>) {
    this.table = buildTensorTable(cfg);
    if (init.length !== this.table.totalFloats) throw new Error(`CPU policy: parameter data has ${init.length} floats, the table needs ${this.table.totalFloats}`);
    this.params = Float64Array.from(init);
    this.views = tensorViews(this.params, this.table);
    this.blocks = Array.from({ length: cfg.nLayer }, (_, l) => blockViews(this.views, l));
  }

  /** The parameters as the GPU engine and checkpoints store them. */
  paramsF32(): Float32Array {
    return Float32Array.from(this.params);
  }

  /** Logits (B·T, V) of a batch of token rows (B, T), from the whole-model reference forward. */
  logits(tokens: ArrayLike<number>, B: number, T: number): Float64Array {
    const BT = B * T;
    if (tokens.length !== BT) throw new Error(`CPU policy: ${tokens.length} tokens for a [${B}, ${T}] batch`);
    const zeros = new Float64Array(BT);
    return gptForwardRef(this.cfg, this.table, this.params, { B, T, tokens, targets: new Uint32Array(BT), w: zeros }).logits;
  }

  /**
   * Logits (T, V) of one token sequence computed the way the sampler computes them: one position
   * at a time through the KV cache (what the tests compare with `logits`).
   */
  decodeLogits(tokens: readonly number[]): Float64Array {
    const V = this.cfg.vocabSize;
    const seq = new SequenceDecoder(this, tokens.length);
    const row = Uint32Array.from(tokens);
    const out = new Float64Array(tokens.length * V);
    for (let s = 0; s < tokens.length; s++) out.set(seq.step(row, s), s * V);
    return out;
  }

  /** A sampler of B sequences of at most Tmax tokens (the shape src/model/decoder.ts takes). */
  decoder(shape: { B: number; Tmax: number }): CpuDecoder {
    return new CpuDecoder(this, shape.B, shape.Tmax);
  }
}

/** One sequence's KV cache and scratch rows: `step` embeds the token at position s and returns its logits. */
class SequenceDecoder {
  private readonly d: DecodeDimsRef;
  private readonly k: Float64Array[] = [];
  private readonly v: Float64Array[] = [];
  private readonly x: Float64Array;
  private readonly ln: Float64Array;
  private readonly stat = { mean: new Float64Array(1), rstd: new Float64Array(1) };
  private readonly qkv: Float64Array;
  private readonly atty: Float64Array;
  private readonly proj: Float64Array;
  private readonly res2: Float64Array;
  private readonly fch: Float64Array;
  private readonly fchGelu: Float64Array;
  private readonly out: Float64Array;

  constructor(private readonly policy: CpuPolicy, Tmax: number) {
    const { nEmbd: C, nHead: NH, vocabSize: V, nLayer: L } = policy.cfg;
    this.d = { B: 1, C, NH, Tmax, V };
    for (let l = 0; l < L; l++) {
      this.k.push(new Float64Array(Tmax * C)); // (NH, Tmax, HS)
      this.v.push(new Float64Array(Tmax * C));
    }
    const f = (n: number) => new Float64Array(n);
    [this.x, this.ln, this.qkv, this.atty, this.proj, this.res2] = [f(C), f(C), f(3 * C), f(C), f(C), f(C)];
    [this.fch, this.fchGelu, this.out] = [f(4 * C), f(4 * C), f(V)];
  }

  /** Runs position s (tokens[s], tokens is the row of length Tmax); returns the logits (V), reused by the next call. */
  step(tokens: ArrayLike<number>, s: number): Float64Array {
    const { d, x, ln, stat, qkv, atty, proj, res2, fch, fchGelu } = this;
    const { views: p, blocks } = this.policy;
    const C = d.C;
    encoderDecodeRef(x, tokens, p['wte.weight'], p['wpe.weight'], s, d);
    for (let l = 0; l < blocks.length; l++) {
      const b = blocks[l];
      layernormForwardRef(ln, stat.mean, stat.rstd, x, b.ln1w, b.ln1b, 1, C);
      matmulForwardRef(qkv, ln, b.qkvw, b.qkvb, { M: 1, K: C, N: 3 * C });
      kvCacheWriteRef(this.k[l], this.v[l], qkv, s, d);
      attentionDecodeRef(atty, qkv, this.k[l], this.v[l], s, d);
      matmulForwardRef(proj, atty, b.attprojw, b.attprojb, { M: 1, K: C, N: C });
      residualForwardRef(res2, x, proj);
      layernormForwardRef(ln, stat.mean, stat.rstd, res2, b.ln2w, b.ln2b, 1, C);
      matmulForwardRef(fch, ln, b.fcw, b.fcb, { M: 1, K: C, N: 4 * C });
      geluForwardRef(fchGelu, fch, 4 * C);
      matmulForwardRef(proj, fchGelu, b.fcprojw, b.fcprojb, { M: 1, K: 4 * C, N: C });
      residualForwardRef(x, res2, proj);
    }
    layernormForwardRef(ln, stat.mean, stat.rstd, x, p['ln_f.weight'], p['ln_f.bias'], 1, C);
    matmulRef(this.out, ln, p['wte.weight'], null, { M: 1, K: C, N: d.V }, { transB: true });
    return this.out;
  }
}

/** Between sequences the sampler lets the worker take messages (pause, stop) every this many ms. */
const BREATHE_MS = 50;

/** Batched sampling on the CPU with src/model/decoder.ts's contract (rows are sampled one after another). */
export class CpuDecoder implements SamplingDecoder {
  /** rows are sampled one by one: a short batch is sampled as it is, never padded */
  readonly partialBatches = true;

  constructor(private readonly policy: CpuPolicy, readonly B: number, readonly Tmax: number) {
    if (Tmax > policy.cfg.nPositions) throw new Error(`Tmax=${Tmax} exceeds the context length ${policy.cfg.nPositions}`);
  }

  /** Samples continuations of `prompts` (exactly B) until each ends or reaches maxNew / the context. */
  async generate(prompts: readonly (readonly number[])[], opts: GenerateOpts): Promise<Generation> {
    const { Tmax } = this;
    const B = prompts.length;
    if (B < 1 || B > this.B) throw new Error(`${prompts.length} prompts for a decoder of batch ${this.B}`);
    prompts.forEach((pr, b) => {
      if (pr.length < 1) throw new Error(`prompt ${b} is empty`);
      if (pr.length >= Tmax) throw new Error(`prompt ${b} has ${pr.length} tokens; the context holds ${Tmax}`);
    });
    const gen: Generation = {
      tokens: new Uint32Array(B * Tmax), logp: new Float32Array(B * Tmax), entropy: new Float32Array(B * Tmax),
      promptLen: prompts.map((pr) => pr.length), responseLen: [], finished: [],
    };
    // the GPU decoder runs positions 0..lastStep-1 for the whole batch (the longest prompt sets it)
    const lastStep = Math.min(Tmax - 1, Math.max(...prompts.map((pr) => pr.length)) + opts.maxNew - 1);
    let last = performance.now();
    for (let b = 0; b < B; b++) {
      const { n, finished } = this.sampleRow(gen, b, prompts[b], lastStep, opts);
      gen.responseLen.push(n);
      gen.finished.push(finished);
      if (performance.now() - last > BREATHE_MS) {
        await breathe();
        last = performance.now();
      }
    }
    return gen;
  }

  /** Row b: teacher-forced through its prompt, then sampled as the fused GPU sampleStep does. */
  private sampleRow(gen: Generation, b: number, prompt: readonly number[], lastStep: number, o: GenerateOpts): { n: number; finished: boolean } {
    const { Tmax } = this;
    const row = gen.tokens.subarray(b * Tmax, (b + 1) * Tmax);
    row.set(prompt);
    const P = prompt.length;
    const seq = new SequenceDecoder(this.policy, Tmax);
    let n = 0;
    for (let s = 0; s < lastStep; s++) {
      const logits = seq.step(row, s);
      const t = s + 1;
      if (t < P) continue;
      const y = drawTokenRef(logits, o, b, t);
      row[t] = y;
      // log π and H of the full temperature-scaled distribution, as the GPU sampler reports them
      const pi = policyDistributionRef(logits, o.temperature);
      gen.logp[b * Tmax + t] = o.temperature === 0 ? 0 : Math.log(pi[y]);
      gen.entropy[b * Tmax + t] = o.temperature === 0 ? 0 : entropyRef(pi);
      n++;
      if (y === o.eosToken) return { n, finished: true };
      if (n >= o.maxNew) break;
    }
    return { n, finished: false };
  }
}

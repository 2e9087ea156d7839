// The GPT-2 policy on the GPU, llm.c style: parameters, gradients and AdamW moments in flat
// buffers sharing the tensor table; explicit forward and backward per layer, recorded once as
// dispatch lists for a fixed (B, T) and replayed every step with no readback inside.
import { Gpu, view, type Dispatch, type TensorRef } from '../gpu/runtime';
import { matmul, matmulBackward, matmulForward } from '../gpu/ops/matmul';
import { encoderBackward, encoderForward, fill, geluBackward, geluForward, layernormBackward, layernormForward } from '../gpu/ops/layers';
import { residualForward } from '../gpu/ops/elementwise';
import { attentionBackward, attentionForward } from '../gpu/ops/attention';
import { softmaxLogp } from '../gpu/ops/loss';
import { adamw, gradNormSq, type AdamWHyper } from '../gpu/ops/optim';
import type { GPTConfig } from './config';
import { buildTensorTable, decayFlags, type TensorTable } from './params';

/** Views of one layer's parameters (or gradients) in a flat buffer. */
export interface LayerParams {
  ln1w: TensorRef; ln1b: TensorRef;
  qkvw: TensorRef; qkvb: TensorRef; // [C,3C], [3C]
  attprojw: TensorRef; attprojb: TensorRef; // [C,C], [C]
  ln2w: TensorRef; ln2b: TensorRef;
  fcw: TensorRef; fcb: TensorRef; // [C,4C], [4C]
  fcprojw: TensorRef; fcprojb: TensorRef; // [4C,C], [C]
}

export interface ModelParams {
  wte: TensorRef; // [V,C]
  wpe: TensorRef; // [Tmax,C]
  layers: LayerParams[];
  lnfw: TensorRef; lnfb: TensorRef;
}

/** Views of every tensor of `table` inside `buffer`. */
export function paramViews(buffer: GPUBuffer, table: TensorTable, nLayer: number): ModelParams {
  const t = (name: string): TensorRef => {
    const e = table.byName.get(name);
    if (!e) throw new Error(`tensor table has no ${name}`);
    return view(buffer, e.offset, e.size);
  };
  const layers: LayerParams[] = [];
  for (let i = 0; i < nLayer; i++) {
    const h = `h.${i}.`;
    layers.push({
      ln1w: t(h + 'ln_1.weight'), ln1b: t(h + 'ln_1.bias'),
      qkvw: t(h + 'attn.c_attn.weight'), qkvb: t(h + 'attn.c_attn.bias'),
      attprojw: t(h + 'attn.c_proj.weight'), attprojb: t(h + 'attn.c_proj.bias'),
      ln2w: t(h + 'ln_2.weight'), ln2b: t(h + 'ln_2.bias'),
      fcw: t(h + 'mlp.c_fc.weight'), fcb: t(h + 'mlp.c_fc.bias'),
      fcprojw: t(h + 'mlp.c_proj.weight'), fcprojb: t(h + 'mlp.c_proj.bias'),
    });
  }
  return { wte: t('wte.weight'), wpe: t('wpe.weight'), layers, lnfw: t('ln_f.weight'), lnfb: t('ln_f.bias') };
}

/** Per-layer activations of a (B, T) batch, each [B*T, …] (BT = B*T rows). */
interface LayerActs {
  residual: TensorRef; // [BT,C] input of the block
  ln1: TensorRef; ln1Mean: TensorRef; ln1Rstd: TensorRef; // [BT,C], [BT], [BT]
  qkv: TensorRef; // [BT,3C]
  atty: TensorRef; lse: TensorRef; // [BT,C], [B,NH,T]
  attproj: TensorRef; // [BT,C]
  residual2: TensorRef; // [BT,C]
  ln2: TensorRef; ln2Mean: TensorRef; ln2Rstd: TensorRef;
  fch: TensorRef; fchGelu: TensorRef; // [BT,4C]
  fcproj: TensorRef; // [BT,C]
}

/**
 * Allocates each tensor as its own buffer: WebGPU rejects a dispatch that binds one buffer both
 * writable and read-only, even on disjoint ranges, so activations cannot share an arena.
 */
class Arena {
  private readonly ranges: { n: number; set: (r: TensorRef) => void }[] = [];
  alloc(n: number, set: (r: TensorRef) => void): void {
    this.ranges.push({ n, set });
  }
  realise(gpu: Gpu, label: string): void {
    this.ranges.forEach((r, i) => r.set(view(gpu.createBuffer(Math.max(r.n, 1) * 4, `${label}.${i}`), 0, r.n)));
  }
}

export interface BatchBuffers {
  tokens: TensorRef; // u32 [BT]
  targets: TensorRef; // u32 [BT]
  w: TensorRef; // f32 [BT]  weight of log π(target) in the objective
  e: TensorRef; // f32 [BT]  weight of the entropy in the objective
  logp: TensorRef; // f32 [BT]  log π(target), written by forward
  entropy: TensorRef; // f32 [BT]
  logits: TensorRef; // f32 [BT,V]
}

export const DEFAULT_ADAMW: AdamWHyper = { lr: 3e-3, beta1: 0.9, beta2: 0.95, eps: 1e-8, weightDecay: 0.1, maxGradNorm: 1.0, step: 1 };

/**
 * A GPT-2 policy bound to one batch shape (B sequences of T tokens). Forward computes, for
 * every position, log π(target) and the entropy at the given temperature; a training step
 * descends the loss J = Σ_t w_t·log π(y_t) + e_t·H_t. Cross-entropy training uses w = −1/N on
 * the counted positions; a policy gradient uses w = −A/N; an entropy bonus c uses e = −c/N.
 */
export class GPT {
  readonly table: TensorTable;
  readonly params: GPUBuffer;
  readonly grads: GPUBuffer;
  readonly batch: BatchBuffers;
  readonly normSq: TensorRef;
  readonly status: TensorRef; // u32 [1]: 1 when the last step was rejected (non-finite gradients)
  private m!: GPUBuffer;
  private v!: GPUBuffer;
  private flags!: GPUBuffer;
  private forwardList: Dispatch[] = [];
  private stepList: Dispatch[] = [];
  private softmax!: { setTemperature(t: number): void };
  private optimiser!: { setHyper(h: AdamWHyper): void };
  private hyper: AdamWHyper = { ...DEFAULT_ADAMW };
  private stepCount = 0;

  private constructor(readonly gpu: Gpu, readonly cfg: GPTConfig, readonly B: number, readonly T: number, init: Float32Array) {
    this.table = buildTensorTable(cfg);
    if (init.length !== this.table.totalFloats) throw new Error(`parameter data has ${init.length} floats, the table needs ${this.table.totalFloats}`);
    if (T > cfg.nPositions) throw new Error(`T=${T} exceeds the context length ${cfg.nPositions}`);
    this.params = gpu.upload(init, 'params');
    this.grads = gpu.createBuffer(init.byteLength, 'grads');
    this.normSq = view(gpu.createBuffer(4, 'grad-norm-sq'), 0, 1);
    this.status = view(gpu.createBuffer(4, 'step-status'), 0, 1);
    const BT = B * T;
    const arena = new Arena();
    const b = {} as Record<keyof BatchBuffers, TensorRef>;
    for (const k of ['tokens', 'targets', 'w', 'e', 'logp', 'entropy'] as const) arena.alloc(BT, (r) => (b[k] = r));
    arena.alloc(BT * cfg.vocabSize, (r) => (b.logits = r));
    arena.realise(gpu, 'batch');
    this.batch = b;
  }

  /** Creates the model and records its forward and training-step dispatch lists. */
  static async create(gpu: Gpu, cfg: GPTConfig, init: Float32Array, shape: { B: number; T: number }): Promise<GPT> {
    const model = new GPT(gpu, cfg, shape.B, shape.T, init);
    await model.record();
    return model;
  }

  get paramCount(): number {
    return this.table.totalFloats;
  }

  /** Uploads a batch: tokens/targets u32 [B*T], weights w and e f32 [B*T] (zero = masked). */
  setBatch(tokens: Uint32Array, targets: Uint32Array, w: Float32Array, e?: Float32Array): void {
    const BT = this.B * this.T;
    for (const [name, a] of [['tokens', tokens], ['targets', targets], ['w', w]] as const) {
      if (a.length !== BT) throw new Error(`${name} has ${a.length} entries, the batch needs B*T=${BT}`);
    }
    const V = this.cfg.vocabSize;
    for (let i = 0; i < BT; i++) {
      if (tokens[i] >= V || targets[i] >= V) throw new Error(`token id out of range at position ${i} (vocabulary ${V})`);
    }
    this.gpu.write(this.batch.tokens, tokens);
    this.gpu.write(this.batch.targets, targets);
    this.gpu.write(this.batch.w, w);
    this.gpu.write(this.batch.e, e ?? new Float32Array(BT));
  }

  setTemperature(t: number): void {
    this.softmax.setTemperature(t);
  }

  setHyper(h: Partial<AdamWHyper>): void {
    this.hyper = { ...this.hyper, ...h };
  }

  /** Runs the forward pass (logp, entropy, logits of the current batch). */
  forward(): void {
    this.gpu.run(this.forwardList, 'forward');
  }

  /** Forward, backward, clip and AdamW in one command buffer. */
  step(): void {
    this.stepCount++;
    this.optimiser.setHyper({ ...this.hyper, step: this.stepCount });
    this.gpu.run(this.stepList, 'train-step');
  }

  /** Forward + backward only (gradients in `grads`), for inspection and tests. */
  async gradients(): Promise<void> {
    this.gpu.run(this.backwardOnly, 'gradients');
  }

  get steps(): number {
    return this.stepCount;
  }

  async readParams(): Promise<Float32Array> {
    return this.gpu.readF32(this.params);
  }

  async readGrads(): Promise<Float32Array> {
    return this.gpu.readF32(this.grads);
  }

  private backwardOnly: Dispatch[] = [];

  // ------------------------------------------------------------------ recording
  private async record(): Promise<void> {
    const { gpu, cfg, B, T } = this;
    const C = cfg.nEmbd, NH = cfg.nHead, V = cfg.vocabSize, L = cfg.nLayer;
    const BT = B * T;
    const P = paramViews(this.params, this.table, L);
    const G = paramViews(this.grads, this.table, L);

    const arena = new Arena();
    const acts: LayerActs[] = [];
    for (let l = 0; l < L; l++) {
      const a = {} as Record<keyof LayerActs, TensorRef>;
      const sizes: Record<keyof LayerActs, number> = {
        residual: BT * C, ln1: BT * C, ln1Mean: BT, ln1Rstd: BT, qkv: BT * 3 * C, atty: BT * C, lse: BT * NH,
        attproj: BT * C, residual2: BT * C, ln2: BT * C, ln2Mean: BT, ln2Rstd: BT, fch: BT * 4 * C, fchGelu: BT * 4 * C, fcproj: BT * C,
      };
      for (const k of Object.keys(sizes) as (keyof LayerActs)[]) arena.alloc(sizes[k], (r) => (a[k] = r));
      acts.push(a);
    }
    const top = {} as Record<'out' | 'lnf' | 'lnfMean' | 'lnfRstd' | 'dlogits' | 'dres' | 'dln' | 'dqkv' | 'datty' | 'dfch' | 'dfchGelu' | 'dlnf', TensorRef>;
    const topSizes = { out: BT * C, lnf: BT * C, lnfMean: BT, lnfRstd: BT, dlogits: BT * V, dres: BT * C, dln: BT * C, dqkv: BT * 3 * C, datty: BT * C, dfch: BT * 4 * C, dfchGelu: BT * 4 * C, dlnf: BT * C };
    for (const k of Object.keys(topSizes) as (keyof typeof topSizes)[]) arena.alloc(topSizes[k], (r) => (top[k] = r));
    arena.realise(gpu, 'activations');

    const { tokens, targets, w, e, logp, entropy, logits } = this.batch;
    const attDims = { B, T, C, NH };

    // ---- forward
    const fwd: Dispatch[] = [await encoderForward(gpu, acts[0].residual, tokens, P.wte, P.wpe, { B, T, C })];
    for (let l = 0; l < L; l++) {
      const a = acts[l], p = P.layers[l];
      const blockOut = l + 1 < L ? acts[l + 1].residual : top.out;
      fwd.push(
        await layernormForward(gpu, a.ln1, a.ln1Mean, a.ln1Rstd, a.residual, p.ln1w, p.ln1b, { N: BT, C }),
        await matmulForward(gpu, a.qkv, a.ln1, p.qkvw, p.qkvb, { M: BT, K: C, N: 3 * C }),
        await attentionForward(gpu, a.atty, a.lse, a.qkv, attDims),
        await matmulForward(gpu, a.attproj, a.atty, p.attprojw, p.attprojb, { M: BT, K: C, N: C }),
        await residualForward(gpu, a.residual2, a.residual, a.attproj, BT * C),
        await layernormForward(gpu, a.ln2, a.ln2Mean, a.ln2Rstd, a.residual2, p.ln2w, p.ln2b, { N: BT, C }),
        await matmulForward(gpu, a.fch, a.ln2, p.fcw, p.fcb, { M: BT, K: C, N: 4 * C }),
        await geluForward(gpu, a.fchGelu, a.fch, BT * 4 * C),
        await matmulForward(gpu, a.fcproj, a.fchGelu, p.fcprojw, p.fcprojb, { M: BT, K: 4 * C, N: C }),
        await residualForward(gpu, blockOut, a.residual2, a.fcproj, BT * C),
      );
    }
    fwd.push(
      await layernormForward(gpu, top.lnf, top.lnfMean, top.lnfRstd, top.out, P.lnfw, P.lnfb, { N: BT, C }),
      // tied LM head: logits[BT,V] = lnf[BT,C] @ wte[V,C]^T
      await matmul(gpu, logits, top.lnf, P.wte, null, { M: BT, K: C, N: V }, { transB: true }),
    );
    const sm = await softmaxLogp(gpu, { logp, entropy, dlogits: top.dlogits }, logits, targets, w, e, { R: BT, V }, { temperature: 1, withGrad: true });
    this.softmax = sm;
    fwd.push(sm.dispatch);
    this.forwardList = fwd;

    // ---- backward (dlogits = dJ/dlogits from the fused softmax)
    const bwd: Dispatch[] = [await fill(gpu, view(this.grads, 0, this.table.totalFloats), 0, this.table.totalFloats)];
    bwd.push(
      // tied head: dlnf[BT,C] = dlogits[BT,V] @ wte[V,C] ; dwte[V,C] += dlogits^T @ lnf
      await matmul(gpu, top.dlnf, top.dlogits, P.wte, null, { M: BT, K: V, N: C }),
      await matmul(gpu, G.wte, top.dlogits, top.lnf, null, { M: V, K: BT, N: C }, { transA: true, accumulate: true }),
      await fill(gpu, top.dres, 0, BT * C),
      ...(await layernormBackward(gpu, top.dres, G.lnfw, G.lnfb, top.dlnf, top.out, P.lnfw, top.lnfMean, top.lnfRstd, { N: BT, C })),
    );
    for (let l = L - 1; l >= 0; l--) {
      const a = acts[l], p = P.layers[l], g = G.layers[l];
      bwd.push(
        ...(await matmulBackward(gpu, top.dfchGelu, g.fcprojw, g.fcprojb, top.dres, a.fchGelu, p.fcprojw, { M: BT, K: 4 * C, N: C })),
        await geluBackward(gpu, top.dfch, a.fch, top.dfchGelu, BT * 4 * C),
        ...(await matmulBackward(gpu, top.dln, g.fcw, g.fcb, top.dfch, a.ln2, p.fcw, { M: BT, K: C, N: 4 * C })),
        ...(await layernormBackward(gpu, top.dres, g.ln2w, g.ln2b, top.dln, a.residual2, p.ln2w, a.ln2Mean, a.ln2Rstd, { N: BT, C })),
        ...(await matmulBackward(gpu, top.datty, g.attprojw, g.attprojb, top.dres, a.atty, p.attprojw, { M: BT, K: C, N: C })),
        ...(await attentionBackward(gpu, top.dqkv, top.datty, a.qkv, a.atty, a.lse, attDims)),
        ...(await matmulBackward(gpu, top.dln, g.qkvw, g.qkvb, top.dqkv, a.ln1, p.qkvw, { M: BT, K: C, N: 3 * C })),
        ...(await layernormBackward(gpu, top.dres, g.ln1w, g.ln1b, top.dln, a.residual, p.ln1w, a.ln1Mean, a.ln1Rstd, { N: BT, C })),
      );
    }
    bwd.push(...(await encoderBackward(gpu, G.wte, G.wpe, top.dres, tokens, { B, T, C, V })));
    this.backwardOnly = [...fwd, ...bwd];

    // ---- optimiser
    const n = this.table.totalFloats;
    this.m = gpu.createBuffer(n * 4, 'adam.m');
    this.v = gpu.createBuffer(n * 4, 'adam.v');
    this.flags = gpu.upload(decayFlags(this.table), 'adam.flags');
    const gradsRef = view(this.grads, 0, n);
    const opt = await adamw(gpu, view(this.params, 0, n), view(this.m, 0, n), view(this.v, 0, n), this.status, gradsRef, view(this.flags, 0, n), this.normSq, n, this.hyper);
    this.optimiser = opt;
    this.stepList = [...this.backwardOnly, ...(await gradNormSq(gpu, this.normSq, gradsRef, n)), opt.dispatch];
  }
}

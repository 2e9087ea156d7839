// The GPT-2 policy on the GPU, llm.c style: parameters, gradients and AdamW moments in flat
// buffers sharing the tensor table; explicit forward and backward per layer, recorded once as
// dispatch lists for a fixed (B, T) and replayed every step with no readback inside.
import { Gpu, view, type BufferOwner, type Dispatch, type TensorRef } from '../gpu/runtime';
import { matmul, matmulBackward, matmulForward } from '../gpu/ops/matmul';
import { encoderBackward, encoderForward, fill, geluBackward, geluForward, layernormBackward, layernormForward } from '../gpu/ops/layers';
import { residualForward } from '../gpu/ops/elementwise';
import { attentionBackward, attentionForwardSteps } from '../gpu/ops/attention';
import { softmaxLogp } from '../gpu/ops/loss';
import { adamw, gradNormSq } from '../gpu/ops/optim';
import type { AdamWHyper } from '../rl/hyper';
import type { GPTConfig } from './config';
import { buildTensorTable, decayFlags, type TensorTable } from './params';
import { LORA_TARGETS, loraScale, type LoraSpec, type LoraTarget } from './lora';
import { allocAll, layerActSizes, loraViews, paramViews, type LayerActs, type LoraRefs } from './buffers';

export { paramViews } from './buffers';

export interface BatchBuffers {
  tokens: TensorRef; // u32 [BT]
  targets: TensorRef; // u32 [BT]
  w: TensorRef; // f32 [BT]  weight of log π(target) in the loss
  e: TensorRef; // f32 [BT]  weight of the entropy in the loss
  logp: TensorRef; // f32 [BT]  log π(target), written by forward
  entropy: TensorRef; // f32 [BT]
  logits: TensorRef; // f32 [BT,V]
}

/** Records the dispatches that write batch.w and batch.e from batch.logp and batch.entropy. */
/**
 * Records the loss head's dispatches for batches of `T` positions per row (called once per
 * recorded sequence length): they turn log π and H into the weights w and e of the gradient.
 */
export type LossHead = (gpu: Gpu, batch: BatchBuffers, T: number) => Promise<Dispatch[]>;

/** What every recorded length shares: parameter and gradient views, activations, LoRA scratch. */
interface Shared {
  P: ReturnType<typeof paramViews>;
  G: ReturnType<typeof paramViews>;
  acts: LayerActs[];
  top: Record<string, TensorRef>;
  lora: LoraState | null;
  frozenBase: boolean;
}

/** What a model runs for batches of one sequence length. */
interface ShapeLists {
  T: number;
  forward: Dispatch[];
  /** the backward after the gradients are zeroed (every parameter-gradient kernel adds) */
  backward: Dispatch[];
}

/**
 * The sequence lengths a model of T positions records so that a batch of short sequences runs
 * on a prefix of its buffers instead of padding to T: multiples of a stride (16, or T/8 rounded
 * up to 16 for long T) and T itself.
 */
export function lengthBuckets(T: number): number[] {
  const stride = Math.max(16, Math.ceil(T / 8 / 16) * 16);
  const out: number[] = [];
  for (let t = stride; t < T; t += stride) out.push(t);
  out.push(T);
  return out;
}

export interface AdapterInit {
  spec: LoraSpec;
  table: TensorTable;
  init: Float32Array;
}

export interface GPTOptions {
  /** The RL loss: writes w and e on the GPU each step (see LossHead). */
  lossHead?: LossHead;
  /** Train this LoRA adapter set; the base stays frozen. */
  adapter?: AdapterInit;
  /** Use an existing base parameter buffer (two adapter models over one frozen base). */
  baseParams?: GPUBuffer;
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
  /** the base parameters [table.totalFloats] */
  readonly params: GPUBuffer;
  /** what the optimiser trains: the base parameters, or the adapter's */
  readonly trainable: GPUBuffer;
  /** gradients of `trainable` (same layout) */
  readonly grads: GPUBuffer;
  readonly batch: BatchBuffers;
  readonly normSq: TensorRef; // f32 [1]
  readonly status: TensorRef; // u32 [1]: 1 when the last step was rejected (non-finite gradients)
  readonly adapter: AdapterInit | null;
  private readonly trainFloats: number;
  /** the dispatch lists of each recorded sequence length (see `lengths`) */
  private readonly byLength = new Map<number, ShapeLists>();
  /** the lists of the current batch's sequence length */
  private active!: ShapeLists;
  /** the final LayerNorm's output [B, activeT, C] of the last forward (embeddings read it) */
  private hidden!: TensorRef;
  // gradient accumulation: zero once, forward + backward (+=) per micro-batch, then clip and AdamW
  private zeroList: Dispatch[] = [];
  private updateList: Dispatch[] = [];
  private readonly softmaxes: { setTemperature(t: number): void }[] = [];
  private optimiser!: { setHyper(h: AdamWHyper): void };
  private hyper: AdamWHyper = { ...DEFAULT_ADAMW };
  private stepCount = 0;

  /** every buffer this model created (not a shared base); freed by destroy() */
  private readonly mem: BufferOwner;

  private constructor(readonly gpu: Gpu, readonly cfg: GPTConfig, readonly B: number, readonly T: number, init: Float32Array | null, opts: GPTOptions) {
    this.mem = gpu.owner();
    this.table = buildTensorTable(cfg);
    if (T > cfg.nPositions) throw new Error(`T=${T} exceeds the context length ${cfg.nPositions}`);
    if (opts.baseParams) this.params = opts.baseParams;
    else {
      if (!init || init.length !== this.table.totalFloats) throw new Error(`parameter data has ${init?.length ?? 0} floats, the table needs ${this.table.totalFloats}`);
      this.params = this.mem.upload(init, 'params');
    }
    this.adapter = opts.adapter ?? null;
    if (this.adapter) {
      const { table, init: ainit } = this.adapter;
      if (ainit.length !== table.totalFloats) throw new Error(`adapter ${this.adapter.spec.name} has ${ainit.length} floats, its table needs ${table.totalFloats}`);
      this.trainable = this.mem.upload(ainit, `adapter.${this.adapter.spec.name}`);
      this.trainFloats = table.totalFloats;
    } else {
      this.trainable = this.params;
      this.trainFloats = this.table.totalFloats;
    }
    this.grads = this.mem.createBuffer(this.trainFloats * 4, 'grads');
    this.normSq = view(this.mem.createBuffer(4, 'grad-norm-sq'), 0, 1);
    this.status = view(this.mem.createBuffer(4, 'step-status'), 0, 1);
    const BT = B * T;
    this.batch = allocAll(this.mem, { tokens: BT, targets: BT, w: BT, e: BT, logp: BT, entropy: BT, logits: BT * cfg.vocabSize }, 'batch');
  }

  /**
   * Creates the model and records its forward and training-step dispatch lists. `init` is the
   * base parameter data (null when `opts.baseParams` shares an existing buffer).
   */
  static async create(gpu: Gpu, cfg: GPTConfig, init: Float32Array | null, shape: { B: number; T: number; lengths?: readonly number[] }, opts: GPTOptions = {}): Promise<GPT> {
    const model = new GPT(gpu, cfg, shape.B, shape.T, init, opts);
    await model.record(opts.lossHead, shape.lengths ?? [shape.T]);
    return model;
  }

  /** The sequence lengths recorded (batches of any of them run without padding to T), ascending. */
  get lengths(): number[] {
    return [...this.byLength.keys()].sort((a, b) => a - b);
  }

  /** The shortest recorded length that holds `n` positions (the longest when none does). */
  lengthFor(n: number): number {
    const ls = this.lengths;
    return ls.find((t) => t >= n) ?? ls[ls.length - 1];
  }

  /** Positions per row of the current batch (one of `lengths`). */
  get activeT(): number {
    return this.active.T;
  }

  /**
   * Uploads a batch of rows of one recorded length Tb: tokens/targets u32 [B*Tb], weights w and e
   * f32 [B*Tb] (zero = masked); Tb is read from the tokens' length.
   */
  setBatch(tokens: Uint32Array, targets: Uint32Array, w?: Float32Array, e?: Float32Array): void {
    const T = tokens.length / this.B;
    const lists = this.byLength.get(T);
    if (!lists) throw new Error(`tokens has ${tokens.length} entries: the batch needs B*T for a recorded T (B=${this.B}, T in ${this.lengths.join(', ')})`);
    const BT = this.B * T;
    for (const [name, a] of [['tokens', tokens], ['targets', targets], ['w', w], ['e', e]] as const) {
      if (a && a.length !== BT) throw new Error(`${name} has ${a.length} entries, the batch needs B*T=${BT}`);
    }
    this.active = lists;
    const V = this.cfg.vocabSize;
    for (let i = 0; i < BT; i++) {
      if (tokens[i] >= V || targets[i] >= V) throw new Error(`token id out of range at position ${i} (vocabulary ${V})`);
    }
    this.gpu.write(this.batch.tokens, tokens);
    this.gpu.write(this.batch.targets, targets);
    if (w) this.gpu.write(this.batch.w, w);
    if (e) this.gpu.write(this.batch.e, e);
  }

  setTemperature(t: number): void {
    for (const sm of this.softmaxes) sm.setTemperature(t);
  }

  setHyper(h: Partial<AdamWHyper>): void {
    this.hyper = { ...this.hyper, ...h };
  }

  get hyperparameters(): Readonly<AdamWHyper> {
    return this.hyper;
  }

  get steps(): number {
    return this.stepCount;
  }

  /** Runs the forward pass (logp, entropy, logits of the current batch). */
  forward(): void {
    this.gpu.run(this.active.forward, 'forward');
  }

  /** Forward + backward (gradients in `grads`), no update: for inspection and tests. */
  gradients(): void {
    this.gpu.run([...this.active.forward, ...this.zeroList, ...this.active.backward], 'gradients');
  }

  /** The dispatches of one training step on the current batch's length, in order (profiling). */
  stepDispatches(): Dispatch[] {
    return [...this.active.forward, ...this.zeroList, ...this.active.backward, ...this.updateList];
  }

  /** Forward, backward, clip and AdamW in one command buffer. */
  step(): void {
    this.stepCount++;
    this.optimiser.setHyper({ ...this.hyper, step: this.stepCount });
    this.gpu.run(this.stepDispatches(), 'train-step');
  }

  /**
   * Gradient accumulation over micro-batches that together form one optimiser step: zeroGrads(),
   * then per micro-batch setBatch + accumulate() (forward, backward adding into the gradients;
   * the loss weights of each micro-batch must already be those of the whole batch), then update()
   * (norm clip and AdamW). With one micro-batch this is exactly step().
   */
  zeroGrads(): void {
    this.gpu.run(this.zeroList, 'zero-grads');
  }

  accumulate(): void {
    this.gpu.run([...this.active.forward, ...this.active.backward], 'accumulate');
  }

  update(): void {
    this.stepCount++;
    this.optimiser.setHyper({ ...this.hyper, step: this.stepCount });
    this.gpu.run(this.updateList, 'update');
  }

  /** Frees the model's buffers (a shared base passed in `baseParams` is left alone). */
  destroy(): void {
    this.mem.destroy();
  }

  /** The final hidden states (after ln_f) of the last forward, [B, activeT, C]. */
  readHidden(): Promise<Float32Array> {
    return this.gpu.readF32({ ...this.hidden, size: this.B * this.active.T * this.cfg.nEmbd * 4 });
  }

  readParams(): Promise<Float32Array> {
    return this.gpu.readF32(view(this.params, 0, this.table.totalFloats));
  }

  readTrainable(): Promise<Float32Array> {
    return this.gpu.readF32(view(this.trainable, 0, this.trainFloats));
  }

  readGrads(): Promise<Float32Array> {
    return this.gpu.readF32(view(this.grads, 0, this.trainFloats));
  }

  private moments!: { m: TensorRef; v: TensorRef };

  /** AdamW state, for resumable training: same continuation as an uninterrupted run. */
  async readOptimiserState(): Promise<{ m: Float32Array; v: Float32Array; step: number }> {
    const [m, v] = await Promise.all([this.gpu.readF32(this.moments.m), this.gpu.readF32(this.moments.v)]);
    return { m, v, step: this.stepCount };
  }

  loadOptimiserState(state: { m: Float32Array; v: Float32Array; step: number }): void {
    if (state.m.length !== this.trainFloats || state.v.length !== this.trainFloats) throw new Error(`optimiser state has ${state.m.length} floats, expected ${this.trainFloats}`);
    this.gpu.write(this.moments.m, state.m);
    this.gpu.write(this.moments.v, state.v);
    this.stepCount = state.step;
  }

  // ------------------------------------------------------------------ recording
  /** Records the forward and backward of every sequence length in `lengths` over one set of buffers (sized for T), and the optimiser. */
  private async record(lossHead: LossHead | undefined, lengths: readonly number[]): Promise<void> {
    const { gpu, cfg, B, T } = this;
    for (const t of lengths) if (!Number.isInteger(t) || t < 1 || t > T) throw new Error(`sequence length ${t}: a model of T=${T} records lengths in 1..${T}`);
    const C = cfg.nEmbd, NH = cfg.nHead, V = cfg.vocabSize, L = cfg.nLayer;
    const BT = B * T;
    const frozenBase = this.adapter !== null;
    const P = paramViews(this.params, this.table, L);
    // With an adapter, base gradients are not wanted; LayerNorm's parameter gradients still
    // need somewhere to go, so they land in a scratch buffer that is never read.
    const baseGrads = frozenBase ? this.mem.createBuffer(this.table.totalFloats * 4, 'frozen-grads-scratch') : this.grads;
    const G = paramViews(baseGrads, this.table, L);
    // activations sized for T: a shorter batch uses the front of each buffer, laid out [B, Tb, …]
    const acts: LayerActs[] = [];
    for (let l = 0; l < L; l++) acts.push(allocAll(this.mem, layerActSizes(BT, C, NH), `act.${l}`));
    const top = allocAll(this.mem, {
      out: BT * C, lnf: BT * C, lnfMean: BT, lnfRstd: BT, dlogits: BT * V, dres: BT * C, dln: BT * C, dqkv: BT * 3 * C,
      datty: BT * C, dfch: BT * 4 * C, dfchGelu: BT * 4 * C, dlnf: BT * C,
    }, 'act.top');
    const lora = this.adapter ? this.loraState(BT) : null;
    this.hidden = top.lnf;
    const shared: Shared = { P, G, acts, top, lora, frozenBase };
    for (const t of [...new Set(lengths)].sort((a, b) => a - b)) this.byLength.set(t, await this.recordLength(t, shared, lossHead));
    this.active = this.byLength.get(Math.max(...lengths)) as ShapeLists;

    // ---- optimiser over the trainable buffer (the same for every length)
    const n = this.trainFloats;
    // the backward adds into the gradients: zeroed once per optimiser step
    this.zeroList = [await fill(gpu, view(this.grads, 0, n), 0, n)];
    const m = view(this.mem.createBuffer(n * 4, 'adam.m'), 0, n);
    const v = view(this.mem.createBuffer(n * 4, 'adam.v'), 0, n);
    this.moments = { m, v };
    const flags = this.mem.upload(decayFlags(this.adapter ? this.adapter.table : this.table), 'adam.flags');
    const gradsRef = view(this.grads, 0, n);
    const opt = await adamw(gpu, view(this.trainable, 0, n), m, v, this.status, gradsRef, view(flags, 0, n), this.normSq, n, this.hyper);
    this.optimiser = opt;
    this.updateList = [...(await gradNormSq(gpu, this.normSq, gradsRef, n)), opt.dispatch];
  }

  /** The forward and the backward (after the zeroing) for batches of B rows of `T` positions. */
  private async recordLength(T: number, sh: Shared, lossHead: LossHead | undefined): Promise<ShapeLists> {
    const { gpu, cfg, B } = this;
    const C = cfg.nEmbd, NH = cfg.nHead, V = cfg.vocabSize, L = cfg.nLayer;
    const BT = B * T;
    const { P, G, acts, top, lora, frozenBase } = sh;
    const linear = new Linear(gpu, BT, frozenBase, lora);
    const { tokens, targets, w, e, logp, entropy, logits } = this.batch;
    const attDims = { B, T, C, NH };

    // ---- forward
    const fwd: Dispatch[] = [await encoderForward(gpu, acts[0].residual, tokens, P.wte, P.wpe, { B, T, C })];
    for (let l = 0; l < L; l++) {
      const a = acts[l], p = P.layers[l];
      const blockOut = l + 1 < L ? acts[l + 1].residual : top.out;
      fwd.push(
        await layernormForward(gpu, a.ln1, a.ln1Mean, a.ln1Rstd, a.residual, p.ln1w, p.ln1b, { N: BT, C }),
        ...(await linear.forward(a.qkv, a.ln1, p.qkvw, p.qkvb, C, 3 * C, l, 'attn.c_attn')),
        ...(await attentionForwardSteps(gpu, a.atty, a.lse, a.qkv, attDims)),
        ...(await linear.forward(a.attproj, a.atty, p.attprojw, p.attprojb, C, C, l, 'attn.c_proj')),
        await residualForward(gpu, a.residual2, a.residual, a.attproj, BT * C),
        await layernormForward(gpu, a.ln2, a.ln2Mean, a.ln2Rstd, a.residual2, p.ln2w, p.ln2b, { N: BT, C }),
        ...(await linear.forward(a.fch, a.ln2, p.fcw, p.fcb, C, 4 * C, l, 'mlp.c_fc')),
        await geluForward(gpu, a.fchGelu, a.fch, BT * 4 * C),
        ...(await linear.forward(a.fcproj, a.fchGelu, p.fcprojw, p.fcprojb, 4 * C, C, l, 'mlp.c_proj')),
        await residualForward(gpu, blockOut, a.residual2, a.fcproj, BT * C),
      );
    }
    fwd.push(
      await layernormForward(gpu, top.lnf, top.lnfMean, top.lnfRstd, top.out, P.lnfw, P.lnfb, { N: BT, C }),
      // tied LM head: logits[BT,V] = lnf[BT,C] @ wte[V,C]^T
      await matmul(gpu, logits, top.lnf, P.wte, null, { M: BT, K: C, N: V }, { transB: true }),
    );
    const sm = await softmaxLogp(gpu, { logp, entropy, dlogits: top.dlogits }, logits, targets, w, e, { R: BT, V }, { temperature: 1, withGrad: true });
    if (lossHead) {
      // log π and H first, then the loss head turns them into w and e, then the gradient
      const stats = await softmaxLogp(gpu, { logp, entropy, dlogits: null }, logits, targets, w, e, { R: BT, V }, { temperature: 1, withGrad: false });
      fwd.push(stats.dispatch, ...(await lossHead(gpu, this.batch, T)));
      this.softmaxes.push(stats);
    }
    this.softmaxes.push(sm);
    fwd.push(sm.dispatch);

    // ---- backward (dlogits = dJ/dlogits from the fused softmax)
    const bwd: Dispatch[] = [];
    // tied head: dlnf[BT,C] = dlogits[BT,V] @ wte[V,C] ; dwte[V,C] += dlogits^T @ lnf
    bwd.push(await matmul(gpu, top.dlnf, top.dlogits, P.wte, null, { M: BT, K: V, N: C }));
    if (!frozenBase) bwd.push(await matmul(gpu, G.wte, top.dlogits, top.lnf, null, { M: V, K: BT, N: C }, { transA: true, accumulate: true }));
    bwd.push(
      await fill(gpu, top.dres, 0, BT * C),
      ...(await layernormBackward(gpu, top.dres, G.lnfw, G.lnfb, top.dlnf, top.out, P.lnfw, top.lnfMean, top.lnfRstd, { N: BT, C })),
    );
    for (let l = L - 1; l >= 0; l--) {
      const a = acts[l], p = P.layers[l], g = G.layers[l];
      bwd.push(
        ...(await linear.backward(top.dfchGelu, g.fcprojw, g.fcprojb, top.dres, a.fchGelu, p.fcprojw, 4 * C, C, l, 'mlp.c_proj')),
        await geluBackward(gpu, top.dfch, a.fch, top.dfchGelu, BT * 4 * C),
        ...(await linear.backward(top.dln, g.fcw, g.fcb, top.dfch, a.ln2, p.fcw, C, 4 * C, l, 'mlp.c_fc')),
        ...(await layernormBackward(gpu, top.dres, g.ln2w, g.ln2b, top.dln, a.residual2, p.ln2w, a.ln2Mean, a.ln2Rstd, { N: BT, C })),
        ...(await linear.backward(top.datty, g.attprojw, g.attprojb, top.dres, a.atty, p.attprojw, C, C, l, 'attn.c_proj')),
        ...(await attentionBackward(gpu, top.dqkv, top.datty, a.qkv, a.atty, a.lse, attDims)),
        ...(await linear.backward(top.dln, g.qkvw, g.qkvb, top.dqkv, a.ln1, p.qkvw, C, 3 * C, l, 'attn.c_attn')),
        ...(await layernormBackward(gpu, top.dres, g.ln1w, g.ln1b, top.dln, a.residual, p.ln1w, a.ln1Mean, a.ln1Rstd, { N: BT, C })),
      );
    }
    if (!frozenBase) bwd.push(...(await encoderBackward(gpu, G.wte, G.wpe, top.dres, tokens, { B, T, C, V })));
    return { T, forward: fwd, backward: bwd };
  }

  private loraState(BT: number): LoraState {
    const { spec, table } = this.adapter!;
    const L = this.cfg.nLayer, R = spec.rank;
    const tmp: Record<LoraTarget, TensorRef>[] = [];
    for (let l = 0; l < L; l++) {
      tmp.push(allocAll(this.mem, Object.fromEntries(LORA_TARGETS.map((t) => [t, BT * R])) as Record<LoraTarget, number>, `lora.tmp.${l}`));
    }
    return {
      R, scale: loraScale(spec),
      params: loraViews(this.trainable, table, L), grads: loraViews(this.grads, table, L),
      tmp, dtmp: allocAll(this.mem, { d: BT * R }, 'lora.dtmp').d,
    };
  }
}

interface LoraState {
  R: number;
  scale: number;
  /** the adapted targets only (a set may adapt a subset of the four projections) */
  params: Partial<Record<LoraTarget, LoraRefs>>[];
  grads: Partial<Record<LoraTarget, LoraRefs>>[];
  tmp: Record<LoraTarget, TensorRef>[]; // [BT,R] = inp @ A, kept for the backward
  dtmp: TensorRef; // [BT,R] scratch
}

/** A GPT-2 Conv1D projection out = inp @ W + b, plus (α/r)·(inp @ A) @ B when an adapter is on. */
class Linear {
  constructor(private readonly gpu: Gpu, private readonly BT: number, private readonly frozenBase: boolean, private readonly lora: LoraState | null) {}

  async forward(out: TensorRef, inp: TensorRef, w: TensorRef, b: TensorRef, K: number, N: number, layer: number, target: LoraTarget): Promise<Dispatch[]> {
    const { gpu, BT, lora } = this;
    const list = [await matmulForward(gpu, out, inp, w, b, { M: BT, K, N })];
    const ab = lora?.params[layer][target];
    if (lora && ab) {
      const tmp = lora.tmp[layer][target];
      list.push(
        await matmul(gpu, tmp, inp, ab.a, null, { M: BT, K, N: lora.R }),
        await matmul(gpu, out, tmp, ab.b, null, { M: BT, K: lora.R, N }, { accumulate: true, alpha: lora.scale }),
      );
    }
    return list;
  }

  /** dinp = dout @ W^T (+ the adapter's path); base dW, db += unless frozen; adapter dA, dB +=. */
  async backward(dinp: TensorRef, dw: TensorRef, db: TensorRef, dout: TensorRef, inp: TensorRef, w: TensorRef, K: number, N: number, layer: number, target: LoraTarget): Promise<Dispatch[]> {
    const { gpu, BT, lora } = this;
    const list = await matmulBackward(gpu, dinp, this.frozenBase ? null : dw, this.frozenBase ? null : db, dout, inp, w, { M: BT, K, N });
    const ab = lora?.params[layer][target], g = lora?.grads[layer][target];
    if (lora && ab && g) {
      const tmp = lora.tmp[layer][target], R = lora.R;
      list.push(
        // dB[R,N] += s · tmp^T @ dout ; dtmp[BT,R] = s · dout @ B^T
        await matmul(gpu, g.b, tmp, dout, null, { M: R, K: BT, N }, { transA: true, accumulate: true, alpha: lora.scale }),
        await matmul(gpu, lora.dtmp, dout, ab.b, null, { M: BT, K: N, N: R }, { transB: true, alpha: lora.scale }),
        // dA[K,R] += inp^T @ dtmp ; dinp += dtmp @ A^T
        await matmul(gpu, g.a, inp, lora.dtmp, null, { M: K, K: BT, N: R }, { transA: true, accumulate: true }),
        await matmul(gpu, dinp, lora.dtmp, ab.a, null, { M: BT, K: R, N: K }, { transB: true, accumulate: true }),
      );
    }
    return list;
  }
}

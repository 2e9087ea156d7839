// Batched autoregressive sampling with a KV cache, entirely on the GPU: every decode step
// (embed → blocks with cached attention → LM head → fused sample → advance) is one recorded
// dispatch list; many steps are encoded into one command buffer and the done flags are read
// back only between chunks.
//
// Prefill: prompts are not fed one decode step per token. One forward over (rows × positions)
// writes the KV cache of positions 0..P_max-2 of every row (the decode step's kernels on more
// rows, no LM head), then each row decodes from its own last prompt token (positions are per
// row): a batch takes maxNew decode steps whatever its prompts' lengths. Past a row's own prompt
// the prefill writes cache entries that its decoding overwrites before any read. When runs of G
// consecutive rows share their prompt (a group of G samples of one problem), only the first row
// of each group is prefilled and its cache is copied to the others. Row for row the arithmetic is
// the decode step's and a draw depends on (seed, row, position) only, so tokens, log-probs and
// entropies are bit for bit those of the token-by-token path (tested).
import { Gpu, view, type Dispatch, type TensorRef } from '../gpu/runtime';
import { matmul, matmulForward } from '../gpu/ops/matmul';
import { layernormForward } from '../gpu/ops/layers';
import {
  attentionDecode, createDecodeBuffers, decodeAdvance, decodeBlock, decodeBlockUnsupported, encoderDecode, kvCacheWrite, kvFork, sampleStep,
  type DecodeBuffers, type DecodeDims, type PrefillShape, type SampleOpts,
} from '../gpu/ops/decode';
import type { GPTConfig } from './config';
import type { TensorTable } from './params';
import { paramViews } from './gpt';

export interface GenerateOpts {
  temperature: number;
  topK: number; // 0 = off
  topP: number; // 1 = off
  seed: number;
  eosToken: number;
  maxNew: number;
}

export interface Generation {
  /** tokens [B, Tmax]: prompt then response; positions past the end hold the pad token 0 */
  tokens: Uint32Array;
  /** log π of each sampled token under the sampling distribution [B, Tmax] (0 on prompt positions) */
  logp: Float32Array;
  /** entropy of the sampling distribution at each sampled position [B, Tmax] */
  entropy: Float32Array;
  promptLen: number[];
  /** response lengths including the end token when one was produced */
  responseLen: number[];
  /** whether the response ended with the end token (false = truncated at maxNew or the context) */
  finished: boolean[];
}

const CHUNK = 16;
/** The most rows (sequences × positions) one prefill dispatch takes: bounds its scratch buffers. */
const PREFILL_ROWS = 4096;

/**
 * How generate() feeds the prompts: 'shared' prefills them and, when consecutive rows share
 * their prompt, prefills each group once and copies its cache; 'rows' prefills every row; 'off'
 * feeds prompts one decode step per token, every row in lockstep from position 0. All three give
 * the same tokens, log-probs and entropies bit for bit.
 */
export type PrefillMode = 'shared' | 'rows' | 'off';

/**
 * How a decode step runs a transformer block: 'fused' in two kernels with one workgroup per row
 * (shaders/decode_block.wgsl: 2 dispatches a block), 'layered' with the training forward's kernels
 * (LayerNorms, matmuls, cache write, attention: 8 dispatches a block; the projections add into
 * the residual stream in place and the MLP's first matmul applies GELU on its way out). Prefills
 * use the same design as the decode steps, so the token-by-token and prefilled paths stay equal
 * bit for bit within either; the two designs agree to rounding.
 */
export type BlockKernel = 'fused' | 'layered';

/** What the last generate() did: decode steps run, prefilled positions per row, the group size shared, submits. */
export interface GenerateTrace {
  decodeSteps: number;
  prefilled: number;
  sharedGroup: number;
  submits: number;
}

/** Scratch activations of a forward over R rows (the decode step's, or a prefill chunk's). */
interface Scratch {
  x: TensorRef[];
  ln: TensorRef; mean: TensorRef; rstd: TensorRef;
  qkv: TensorRef; atty: TensorRef; fchGelu: TensorRef;
}

/**
 * The largest G ≥ 2 dividing the batch such that every run of G consecutive prompts is one
 * prompt (1 when none is): those rows can share one prefill.
 */
export function sharedGroupSize(prompts: readonly (readonly number[])[]): number {
  const B = prompts.length;
  const same = (a: readonly number[], b: readonly number[]): boolean => a.length === b.length && a.every((x, t) => x === b[t]);
  for (let G = B; G >= 2; G--) {
    if (B % G !== 0) continue;
    let ok = true;
    for (let k = 0; ok && k < B; k += G) for (let j = 1; ok && j < G; j++) ok = same(prompts[k], prompts[k + j]);
    if (ok) return G;
  }
  return 1;
}
/**
 * Widest model the fused block is the default for: each row's workgroup reads the layer's 12·C²
 * weights (196 KB at C = 64, within any GPU's L2 cache; 786 KB at 128, where hundreds of rows
 * re-reading them may cost more than the launches saved).
 */
export const FUSED_DEFAULT_MAX_C = 64;

/**
 * The block design a decoder records unless told. On a GPU, 'fused' for models up to
 * FUSED_DEFAULT_MAX_C channels: at the loops' batches (8-512 rows) the layered step launches 27
 * dispatches for `small`, most of them one to four 64x64 tiles, and is bound by launch latency;
 * the fused one launches 9 with a workgroup per row. Wider models re-read too many weights per
 * row (FUSED_DEFAULT_MAX_C), and software adapters (SwiftShader) pay more for the fused kernels' barriers than they save
 * (`npm run bench` measures both side by side: fusedVsLayeredBlocks). This default is a design
 * choice not yet measured on a GPU.
 */
export function defaultBlockKernel(gpu: Gpu, cfg: GPTConfig, unsupported: string | null): BlockKernel {
  if (unsupported || gpu.softwareAdapter || cfg.nEmbd > FUSED_DEFAULT_MAX_C) return 'layered';
  return 'fused';
}

/** Marks token slots the sampler has not written (no vocabulary id is this large). */
const UNWRITTEN = 0xffffffff;

export class Decoder {
  readonly st: DecodeBuffers;
  readonly logits: TensorRef; // [B,V] of the latest step
  private stepList: Dispatch[] = [];
  private sampler!: { setOpts(o: SampleOpts): void };
  private caches: { k: TensorRef; v: TensorRef }[] = [];
  private readonly dims: DecodeDims;
  private P!: ReturnType<typeof paramViews>;
  private prefillScratch: Scratch | null = null;
  private prefillCap = PREFILL_ROWS;
  /** prefill forwards by `Q,G` and cache forks by `G,upTo`, recorded when first needed */
  private readonly prefillLists = new Map<string, Dispatch[]>();
  private design: BlockKernel = 'layered';
  /** what the last generate() ran (for tests and the bench) */
  lastTrace: GenerateTrace = { decodeSteps: 0, prefilled: 0, sharedGroup: 1, submits: 0 };

  private constructor(readonly gpu: Gpu, readonly cfg: GPTConfig, readonly B: number, readonly Tmax: number) {
    this.dims = { B, C: cfg.nEmbd, NH: cfg.nHead, Tmax, V: cfg.vocabSize };
    this.st = createDecodeBuffers(gpu, B, Tmax);
    for (const r of Object.values(this.st) as TensorRef[]) this.own(r);
    this.logits = this.own(view(gpu.createBuffer(B * cfg.vocabSize * 4, 'decode.logits'), 0, B * cfg.vocabSize));
  }

  private readonly owned = new Set<GPUBuffer>();

  /** The block design this decoder records, fixed at create() (see BlockKernel). */
  get blockKernel(): BlockKernel {
    return this.design;
  }

  private own(r: TensorRef): TensorRef {
    this.owned.add(r.buffer);
    return r;
  }

  /** Frees the caches and scratch buffers (not the parameters, which the decoder only reads). */
  destroy(): void {
    for (const b of this.owned) b.destroy();
    this.owned.clear();
  }

  /**
   * A decoder for B sequences of at most Tmax tokens over the parameters in `params`;
   * `prefillRows` caps the rows (sequences × positions) of one prefill dispatch (default 4096).
   */
  static async create(
    gpu: Gpu, cfg: GPTConfig, table: TensorTable, params: GPUBuffer,
    shape: { B: number; Tmax: number; prefillRows?: number; blockKernel?: BlockKernel },
  ): Promise<Decoder> {
    if (shape.Tmax > cfg.nPositions) throw new Error(`Tmax=${shape.Tmax} exceeds the context length ${cfg.nPositions}`);
    const cap = shape.prefillRows ?? PREFILL_ROWS;
    if (!Number.isInteger(cap) || cap < 1) throw new RangeError(`prefillRows must be a positive integer, got ${cap}`);
    const d = new Decoder(gpu, cfg, shape.B, shape.Tmax);
    d.prefillCap = cap;
    await d.record(table, params, shape.blockKernel);
    return d;
  }

  private scratch(R: number, tag: string): Scratch {
    const C = this.cfg.nEmbd;
    const buf = (n: number, label: string): TensorRef => this.own(view(this.gpu.createBuffer(n * 4, label), 0, n));
    return {
      // the fused blocks alternate two residual buffers; the layered ones add into one in place
      x: this.design === 'fused' ? [buf(R * C, `${tag}.x0`), buf(R * C, `${tag}.x1`)] : [buf(R * C, `${tag}.x0`)],
      ln: buf(R * C, `${tag}.ln`), mean: buf(R, `${tag}.mean`), rstd: buf(R, `${tag}.rstd`),
      qkv: buf(R * 3 * C, `${tag}.qkv`), atty: buf(R * C, `${tag}.atty`), fchGelu: buf(R * 4 * C, `${tag}.fchGelu`),
    };
  }

  /**
   * Embedding and blocks (cache writes included) over the rows of `shape`: the decode step's
   * (Q = G = 1, B rows) or a prefill's. Returns the dispatches and the final residual stream.
   */
  private async blocks(shape: PrefillShape, sc: Scratch): Promise<{ list: Dispatch[]; last: TensorRef }> {
    const { gpu, cfg, st, dims, P } = this;
    const C = cfg.nEmbd;
    const R = (this.B / shape.G) * shape.Q;
    const { x, ln, mean, rstd, qkv, atty, fchGelu } = sc;
    const list: Dispatch[] = [await encoderDecode(gpu, x[0], st, P.wte, P.wpe, dims, shape)];
    for (let l = 0; l < cfg.nLayer; l++) {
      const p = P.layers[l], cache = this.caches[l];
      const xin = x[l % 2], xout = x[(l + 1) % 2];
      if (this.design === 'fused') {
        list.push(...await decodeBlock(gpu, { xout, q: atty, xin, kcache: cache.k, vcache: cache.v }, p, st, dims, shape));
        continue;
      }
      // the residual stream stays in x[0]: x += proj(attention) and x += proj(GELU(fc(LN(x))))
      const xs = x[0];
      list.push(
        await layernormForward(gpu, ln, mean, rstd, xs, p.ln1w, p.ln1b, { N: R, C }),
        await matmulForward(gpu, qkv, ln, p.qkvw, p.qkvb, { M: R, K: C, N: 3 * C }),
        await kvCacheWrite(gpu, cache.k, cache.v, qkv, st, dims, shape),
        await attentionDecode(gpu, atty, qkv, cache.k, cache.v, st, dims, { shape }),
        await matmul(gpu, xs, atty, p.attprojw, p.attprojb, { M: R, K: C, N: C }, { accumulate: true }),
        await layernormForward(gpu, ln, mean, rstd, xs, p.ln2w, p.ln2b, { N: R, C }),
        await matmul(gpu, fchGelu, ln, p.fcw, p.fcb, { M: R, K: C, N: 4 * C }, { gelu: true }),
        await matmul(gpu, xs, fchGelu, p.fcprojw, p.fcprojb, { M: R, K: 4 * C, N: C }, { accumulate: true }),
      );
    }
    return { list, last: this.design === 'fused' ? x[cfg.nLayer % 2] : x[0] };
  }

  private async record(table: TensorTable, params: GPUBuffer, blockKernel?: BlockKernel): Promise<void> {
    const { gpu, cfg, B, Tmax, st, dims } = this;
    const C = cfg.nEmbd, V = cfg.vocabSize;
    this.P = paramViews(params, table, cfg.nLayer);
    const P = this.P;
    const why = decodeBlockUnsupported(gpu, dims, P.layers[0]);
    if (blockKernel === 'fused' && why) throw new RangeError(`the fused decode block cannot run this model: ${why}`);
    this.design = blockKernel ?? defaultBlockKernel(gpu, cfg, why);
    for (let l = 0; l < cfg.nLayer; l++) {
      const buf = (n: number, label: string): TensorRef => this.own(view(gpu.createBuffer(n * 4, label), 0, n));
      this.caches.push({ k: buf(B * Tmax * C, `kcache.${l}`), v: buf(B * Tmax * C, `vcache.${l}`) });
    }
    const sc = this.scratch(B, 'decode');
    const { list, last } = await this.blocks({ Q: 1, G: 1 }, sc);
    list.push(
      await layernormForward(gpu, sc.ln, sc.mean, sc.rstd, last, P.lnfw, P.lnfb, { N: B, C }),
      await matmul(gpu, this.logits, sc.ln, P.wte, null, { M: B, K: C, N: V }, { transB: true }),
    );
    const sampler = await sampleStep(gpu, st, this.logits, dims, { temperature: 1, topK: 0, topP: 1, seed: 0, eosToken: 0, maxNew: Tmax });
    this.sampler = sampler;
    list.push(sampler.dispatch, await decodeAdvance(gpu, st));
    this.stepList = list;
  }

  /** Rows one prefill dispatch may take (at least the batch). */
  private get prefillRows(): number {
    return Math.max(this.B, Math.min(this.prefillCap, this.B * (this.Tmax - 1)));
  }

  /** The prefill forward of `shape`, recorded on first use. */
  private async prefillList(shape: PrefillShape): Promise<Dispatch[]> {
    const key = `${shape.Q},${shape.G}`;
    let list = this.prefillLists.get(key);
    if (!list) {
      this.prefillScratch ??= this.scratch(this.prefillRows, 'prefill');
      list = (await this.blocks(shape, this.prefillScratch)).list;
      this.prefillLists.set(key, list);
    }
    return list;
  }

  /**
   * Writes the KV cache of positions 0..n-1 of every row (their tokens written by start()),
   * computing only the first row of each group of G (one prompt) and copying its cache to the
   * group. Leaves the positions to the caller. Returns the submits it took.
   */
  private async prefill(n: number, G: number): Promise<number> {
    const seqs = this.B / G;
    const Qmax = Math.max(1, Math.floor(this.prefillRows / seqs));
    let submits = 0;
    for (let p0 = 0; p0 < n; p0 += Qmax) {
      const list = await this.prefillList({ Q: Math.min(Qmax, n - p0), G });
      this.gpu.write(this.st.step, new Uint32Array(this.B).fill(p0));
      this.gpu.run(list, 'prefill');
      submits++;
    }
    if (G > 1) {
      const key = `fork ${G},${n}`;
      let list = this.prefillLists.get(key);
      if (!list) {
        list = [];
        for (const c of this.caches) list.push(await kvFork(this.gpu, c.k, c.v, this.dims, { src: 0, dst0: 1, count: G - 1, upTo: n, groups: seqs, stride: G }));
        this.prefillLists.set(key, list);
      }
      this.gpu.run(list, 'prefill-fork');
      submits++;
    }
    return submits;
  }

  /** Writes prompts (one per sequence, at most B) and resets the state to position 0. */
  start(prompts: readonly (readonly number[])[], opts: GenerateOpts, startStep = 0): void {
    const { B, Tmax } = this;
    if (prompts.length !== B) throw new Error(`${prompts.length} prompts for a decoder of batch ${B}`);
    const tokens = new Uint32Array(B * Tmax).fill(UNWRITTEN);
    const plen = new Uint32Array(B);
    prompts.forEach((p, b) => {
      if (p.length < 1) throw new Error(`prompt ${b} is empty`);
      if (p.length >= Tmax) throw new Error(`prompt ${b} has ${p.length} tokens; the context holds ${Tmax}`);
      tokens.set(p, b * Tmax);
      plen[b] = p.length;
    });
    this.gpu.write(this.st.tokens, tokens);
    this.gpu.write(this.st.promptLen, plen);
    this.gpu.write(this.st.done, new Uint32Array(B));
    this.gpu.write(this.st.logp, new Float32Array(B * Tmax));
    this.gpu.write(this.st.entropy, new Float32Array(B * Tmax));
    this.gpu.write(this.st.step, new Uint32Array(B).fill(startStep));
    this.sampler.setOpts({ ...opts });
  }

  /** Encodes `n` decode steps into one command buffer. */
  runSteps(n: number): void {
    const enc = this.gpu.device.createCommandEncoder({ label: 'decode' });
    for (let i = 0; i < n; i++) this.gpu.encode(enc, this.stepList);
    this.gpu.submit(enc);
  }

  /**
   * Samples continuations of `prompts` until every sequence ends or reaches maxNew / the context.
   * `prefill` says how the prompts are fed (see PrefillMode; the results are the same).
   */
  async generate(prompts: readonly (readonly number[])[], opts: GenerateOpts, prefill: PrefillMode = 'shared'): Promise<Generation> {
    this.start(prompts, opts);
    const lens = prompts.map((p) => p.length);
    const minPrompt = Math.min(...lens);
    const maxPrompt = Math.max(...lens);
    let submits = 0, n = 0, G = 1, steps: number;
    if (prefill === 'off') {
      // lockstep from position 0: step s feeds position s and samples s + 1 where the prompt has ended
      steps = Math.min(this.Tmax - 1, maxPrompt + opts.maxNew - 1);
    } else {
      n = maxPrompt - 1;
      G = prefill === 'shared' && n > 0 ? sharedGroupSize(prompts) : 1;
      if (n > 0) submits += await this.prefill(n, G);
      // each row from its last prompt token: step k samples position P_b + k
      this.gpu.write(this.st.step, Uint32Array.from(lens, (P) => P - 1));
      steps = Math.min(opts.maxNew, this.Tmax - minPrompt);
    }
    let s = 0;
    while (s < steps) {
      const k = Math.min(CHUNK, steps - s);
      this.runSteps(k);
      submits++;
      s += k;
      if (prefill !== 'off' || s >= minPrompt) {
        const done = await this.gpu.readU32(this.st.done);
        if (done.every((d) => d === 1)) break;
      }
    }
    this.lastTrace = { decodeSteps: s, prefilled: n, sharedGroup: G, submits };
    return this.collect(prompts.map((p) => p.length), opts.eosToken);
  }

  /** Copies the cache of sequence `src` (positions < upTo) into sequences dst0..dst0+count-1. */
  async fork(fork: { src: number; dst0: number; count: number; upTo: number }): Promise<void> {
    const list: Dispatch[] = [];
    for (const c of this.caches) list.push(await kvFork(this.gpu, c.k, c.v, this.dims, fork));
    this.gpu.run(list, 'kv-fork');
  }

  async collect(promptLen: number[], eos: number): Promise<Generation> {
    const [tokens, logp, entropy] = await Promise.all([this.gpu.readU32(this.st.tokens), this.gpu.readF32(this.st.logp), this.gpu.readF32(this.st.entropy)]);
    const { B, Tmax } = this;
    const responseLen: number[] = [];
    const finished: boolean[] = [];
    for (let b = 0; b < B; b++) {
      let n = 0;
      let fin = false;
      for (let t = promptLen[b]; t < Tmax && tokens[b * Tmax + t] !== UNWRITTEN; t++) {
        n++;
        if (tokens[b * Tmax + t] === eos) {
          fin = true;
          break;
        }
      }
      for (let t = promptLen[b] + n; t < Tmax; t++) tokens[b * Tmax + t] = 0;
      responseLen.push(n);
      finished.push(fin);
    }
    return { tokens, logp, entropy, promptLen, responseLen, finished };
  }
}

// Batched autoregressive sampling with a KV cache, entirely on the GPU: every decode step
// (embed → blocks with cached attention → LM head → fused sample → advance) is one recorded
// dispatch list; many steps are encoded into one command buffer and the done flags are read
// back only between chunks.
import { Gpu, view, type Dispatch, type TensorRef } from '../gpu/runtime';
import { matmul, matmulForward } from '../gpu/ops/matmul';
import { geluForward, layernormForward } from '../gpu/ops/layers';
import { residualForward } from '../gpu/ops/elementwise';
import {
  attentionDecode, createDecodeBuffers, decodeAdvance, encoderDecode, kvCacheWrite, kvFork, sampleStep,
  type DecodeBuffers, type DecodeDims, type SampleOpts,
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
/** Marks token slots the sampler has not written (no vocabulary id is this large). */
const UNWRITTEN = 0xffffffff;

export class Decoder {
  readonly st: DecodeBuffers;
  readonly logits: TensorRef; // [B,V] of the latest step
  private stepList: Dispatch[] = [];
  private sampler!: { setOpts(o: SampleOpts): void };
  private caches: { k: TensorRef; v: TensorRef }[] = [];
  private readonly dims: DecodeDims;

  private constructor(readonly gpu: Gpu, readonly cfg: GPTConfig, readonly B: number, readonly Tmax: number) {
    this.dims = { B, C: cfg.nEmbd, NH: cfg.nHead, Tmax, V: cfg.vocabSize };
    this.st = createDecodeBuffers(gpu, B, Tmax);
    for (const r of Object.values(this.st)) this.own(r);
    this.logits = this.own(view(gpu.createBuffer(B * cfg.vocabSize * 4, 'decode.logits'), 0, B * cfg.vocabSize));
  }

  private readonly owned = new Set<GPUBuffer>();

  private own(r: TensorRef): TensorRef {
    this.owned.add(r.buffer);
    return r;
  }

  /** Frees the caches and scratch buffers (not the parameters, which the decoder only reads). */
  destroy(): void {
    for (const b of this.owned) b.destroy();
    this.owned.clear();
  }

  /** A decoder for B sequences of at most Tmax tokens over the parameters in `params`. */
  static async create(gpu: Gpu, cfg: GPTConfig, table: TensorTable, params: GPUBuffer, shape: { B: number; Tmax: number }): Promise<Decoder> {
    if (shape.Tmax > cfg.nPositions) throw new Error(`Tmax=${shape.Tmax} exceeds the context length ${cfg.nPositions}`);
    const d = new Decoder(gpu, cfg, shape.B, shape.Tmax);
    await d.record(table, params);
    return d;
  }

  private async record(table: TensorTable, params: GPUBuffer): Promise<void> {
    const { gpu, cfg, B, Tmax, st, dims } = this;
    const C = cfg.nEmbd, V = cfg.vocabSize;
    const P = paramViews(params, table, cfg.nLayer);
    const buf = (n: number, label: string): TensorRef => this.own(view(gpu.createBuffer(n * 4, label), 0, n));
    const x = [buf(B * C, 'decode.x0'), buf(B * C, 'decode.x1')];
    const ln = buf(B * C, 'decode.ln'), mean = buf(B, 'decode.mean'), rstd = buf(B, 'decode.rstd');
    const qkv = buf(B * 3 * C, 'decode.qkv'), atty = buf(B * C, 'decode.atty'), proj = buf(B * C, 'decode.proj');
    const res2 = buf(B * C, 'decode.res2'), fch = buf(B * 4 * C, 'decode.fch'), fchGelu = buf(B * 4 * C, 'decode.fchGelu');
    for (let l = 0; l < cfg.nLayer; l++) {
      this.caches.push({ k: buf(B * Tmax * C, `kcache.${l}`), v: buf(B * Tmax * C, `vcache.${l}`) });
    }

    const list: Dispatch[] = [await encoderDecode(gpu, x[0], st, P.wte, P.wpe, dims)];
    for (let l = 0; l < cfg.nLayer; l++) {
      const p = P.layers[l], cache = this.caches[l];
      const xin = x[l % 2], xout = x[(l + 1) % 2];
      list.push(
        await layernormForward(gpu, ln, mean, rstd, xin, p.ln1w, p.ln1b, { N: B, C }),
        await matmulForward(gpu, qkv, ln, p.qkvw, p.qkvb, { M: B, K: C, N: 3 * C }),
        await kvCacheWrite(gpu, cache.k, cache.v, qkv, st, dims),
        await attentionDecode(gpu, atty, qkv, cache.k, cache.v, st, dims),
        await matmulForward(gpu, proj, atty, p.attprojw, p.attprojb, { M: B, K: C, N: C }),
        await residualForward(gpu, res2, xin, proj, B * C),
        await layernormForward(gpu, ln, mean, rstd, res2, p.ln2w, p.ln2b, { N: B, C }),
        await matmulForward(gpu, fch, ln, p.fcw, p.fcb, { M: B, K: C, N: 4 * C }),
        await geluForward(gpu, fchGelu, fch, B * 4 * C),
        await matmulForward(gpu, proj, fchGelu, p.fcprojw, p.fcprojb, { M: B, K: 4 * C, N: C }),
        await residualForward(gpu, xout, res2, proj, B * C),
      );
    }
    const last = x[cfg.nLayer % 2];
    list.push(
      await layernormForward(gpu, ln, mean, rstd, last, P.lnfw, P.lnfb, { N: B, C }),
      await matmul(gpu, this.logits, ln, P.wte, null, { M: B, K: C, N: V }, { transB: true }),
    );
    const sampler = await sampleStep(gpu, st, this.logits, dims, { temperature: 1, topK: 0, topP: 1, seed: 0, eosToken: 0, maxNew: Tmax });
    this.sampler = sampler;
    list.push(sampler.dispatch, await decodeAdvance(gpu, st));
    this.stepList = list;
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
    this.gpu.write(this.st.step, new Uint32Array([startStep]));
    this.sampler.setOpts({ ...opts });
  }

  /** Encodes `n` decode steps into one command buffer. */
  runSteps(n: number): void {
    const enc = this.gpu.device.createCommandEncoder({ label: 'decode' });
    for (let i = 0; i < n; i++) this.gpu.encode(enc, this.stepList);
    this.gpu.submit(enc);
  }

  /** Samples continuations of `prompts` until every sequence ends or reaches maxNew / the context. */
  async generate(prompts: readonly (readonly number[])[], opts: GenerateOpts): Promise<Generation> {
    this.start(prompts, opts);
    const maxPrompt = Math.max(...prompts.map((p) => p.length));
    const lastStep = Math.min(this.Tmax - 1, maxPrompt + opts.maxNew - 1);
    let s = 0;
    while (s < lastStep) {
      const n = Math.min(CHUNK, lastStep - s);
      this.runSteps(n);
      s += n;
      const minPrompt = Math.min(...prompts.map((p) => p.length));
      if (s >= minPrompt) {
        const done = await this.gpu.readU32(this.st.done);
        if (done.every((d) => d === 1)) break;
      }
    }
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

// The same GPT-2 policy as src/model/gpt.ts written with TF.js ops, trained with TF.js autodiff
// and Adam: the anchor our training step is compared against. Same parameter layout and
// initial values (from the tensor table), pre-LN blocks, fused qkv, causal attention with an
// additive mask, MLP 4C with tanh-GELU, final LN, LM head tied to wte, mean cross-entropy.
import type * as TF from '@tensorflow/tfjs-core';
import type { GPTConfig } from '../model/config';
import { layerTensors, globalTensors, tensorData, type TensorInfo, type TensorTable } from '../model/params';
import type { Tfjs } from './tfjs_env';

interface Block {
  ln1w: TF.Variable; ln1b: TF.Variable;
  qkvw: TF.Variable; qkvb: TF.Variable; // [C,3C], [3C]
  projw: TF.Variable; projb: TF.Variable; // [C,C], [C]
  ln2w: TF.Variable; ln2b: TF.Variable;
  fcw: TF.Variable; fcb: TF.Variable; // [C,4C], [4C]
  fcprojw: TF.Variable; fcprojb: TF.Variable; // [4C,C], [C]
}

let instances = 0;

export class TfjsGpt {
  private readonly wte: TF.Variable; // [V,C]
  private readonly wpe: TF.Variable; // [T,C]: only the first T rows of wpe are used
  private readonly lnfw: TF.Variable;
  private readonly lnfb: TF.Variable;
  private readonly blocks: Block[] = [];
  private readonly vars: TF.Variable[] = [];
  private readonly mask: TF.Tensor; // [T,T]: 0 on and below the diagonal, -1e9 above
  private tokens: TF.Tensor | null = null; // int32 [B*T]
  private targets: TF.Tensor | null = null; // float32 one-hot [B*T,V]
  private readonly optimizer: TF.Optimizer;

  constructor(private readonly tf: Tfjs, private readonly cfg: GPTConfig, table: TensorTable, init: Float32Array, readonly B: number, readonly T: number, lr: number) {
    const prefix = `tfjs-gpt${instances++}/`;
    const v = (t: TensorInfo, shape: readonly number[] = t.shape): TF.Variable => {
      const data = tensorData(init, t).slice(0, shape.reduce((a, b) => a * b, 1));
      // tidy frees the initial tensor; the variable (a copy holding its own reference) stays
      const x = tf.tidy(() => tf.variable(tf.tensor(data, [...shape]), true, prefix + t.name));
      this.vars.push(x);
      return x;
    };
    const g = globalTensors(table);
    const C = cfg.nEmbd;
    this.wte = v(g.wte);
    this.wpe = v(g.wpe, [T, C]);
    for (let l = 0; l < cfg.nLayer; l++) {
      const t = layerTensors(table, l);
      this.blocks.push({
        ln1w: v(t.ln1Weight), ln1b: v(t.ln1Bias), qkvw: v(t.qkvWeight), qkvb: v(t.qkvBias),
        projw: v(t.attnProjWeight), projb: v(t.attnProjBias), ln2w: v(t.ln2Weight), ln2b: v(t.ln2Bias),
        fcw: v(t.fcWeight), fcb: v(t.fcBias), fcprojw: v(t.fcProjWeight), fcprojb: v(t.fcProjBias),
      });
    }
    this.lnfw = v(g.lnfWeight);
    this.lnfb = v(g.lnfBias);
    this.mask = tf.tidy(() => tf.mul(tf.sub(1, tf.linalg.bandPart(tf.ones([T, T]), -1, 0)), -1e9));
    this.optimizer = tf.train.adam(lr, 0.9, 0.95, 1e-8);
  }

  /** tokens and targets, u32 [B*T] each. */
  setBatch(tokens: Uint32Array, targets: Uint32Array): void {
    const tf = this.tf;
    this.tokens?.dispose();
    this.targets?.dispose();
    this.tokens = tf.tensor1d(Int32Array.from(tokens), 'int32');
    this.targets = tf.tidy(() => tf.cast(tf.oneHot(tf.tensor1d(Int32Array.from(targets), 'int32'), this.cfg.vocabSize), 'float32'));
  }

  private layerNorm(x: TF.Tensor, w: TF.Tensor, b: TF.Tensor): TF.Tensor {
    const tf = this.tf;
    const { mean, variance } = tf.moments(x, -1, true);
    return tf.add(tf.mul(tf.mul(tf.sub(x, mean), tf.rsqrt(tf.add(variance, this.cfg.layerNormEps))), w), b);
  }

  /** Splits q, k or v (index i of the fused qkv [BT,3C]) into heads: [B*NH, T, HS]. */
  private heads(qkv: TF.Tensor, i: number): TF.Tensor {
    const tf = this.tf;
    const { B, T } = this;
    const C = this.cfg.nEmbd, NH = this.cfg.nHead, HS = C / NH;
    const part = tf.slice(qkv, [0, i * C], [B * T, C]); // [BT,C]
    return tf.reshape(tf.transpose(tf.reshape(part, [B, T, NH, HS]), [0, 2, 1, 3]), [B * NH, T, HS]);
  }

  private attention(x: TF.Tensor, p: Block): TF.Tensor {
    const tf = this.tf;
    const { B, T } = this;
    const C = this.cfg.nEmbd, NH = this.cfg.nHead, HS = C / NH;
    const qkv = tf.add(tf.matMul(x, p.qkvw), p.qkvb); // [BT,3C]
    const [q, k, v] = [0, 1, 2].map((i) => this.heads(qkv, i));
    const scores = tf.add(tf.mul(tf.matMul(q, k, false, true), 1 / Math.sqrt(HS)), this.mask); // [B*NH,T,T]
    const y = tf.matMul(tf.softmax(scores), v); // [B*NH,T,HS]
    const merged = tf.reshape(tf.transpose(tf.reshape(y, [B, NH, T, HS]), [0, 2, 1, 3]), [B * T, C]);
    return tf.add(tf.matMul(merged, p.projw), p.projb);
  }

  private gelu(x: TF.Tensor): TF.Tensor {
    const tf = this.tf;
    const inner = tf.mul(Math.sqrt(2 / Math.PI), tf.add(x, tf.mul(0.044715, tf.pow(x, 3))));
    return tf.mul(tf.mul(0.5, x), tf.add(1, tf.tanh(inner)));
  }

  /** Mean next-token cross-entropy of the current batch (a scalar). */
  loss(): TF.Scalar {
    const tf = this.tf;
    if (!this.tokens || !this.targets) throw new Error('TfjsGpt: setBatch first');
    const { B, T } = this;
    const C = this.cfg.nEmbd;
    const emb = tf.gather(this.wte, this.tokens); // [BT,C]
    let x = tf.reshape(tf.add(tf.reshape(emb, [B, T, C]), this.wpe), [B * T, C]); // residual [BT,C]
    for (const p of this.blocks) {
      x = tf.add(x, this.attention(this.layerNorm(x, p.ln1w, p.ln1b), p));
      const h = this.gelu(tf.add(tf.matMul(this.layerNorm(x, p.ln2w, p.ln2b), p.fcw), p.fcb)); // [BT,4C]
      x = tf.add(x, tf.add(tf.matMul(h, p.fcprojw), p.fcprojb));
    }
    const logits = tf.matMul(this.layerNorm(x, this.lnfw, this.lnfb), this.wte, false, true); // [BT,V]
    return tf.neg(tf.mean(tf.sum(tf.mul(this.targets, tf.logSoftmax(logits)), -1))) as TF.Scalar;
  }

  /** One Adam step on the current batch; returns the loss before the step (caller disposes). */
  step(): TF.Scalar {
    const l = this.optimizer.minimize(() => this.loss(), true, this.vars);
    if (!l) throw new Error('TF.js minimize returned no loss');
    return l;
  }

  dispose(): void {
    for (const v of this.vars) v.dispose();
    this.mask.dispose();
    this.tokens?.dispose();
    this.targets?.dispose();
    this.optimizer.dispose();
  }
}

// pg_loss on the GPU against the float64 reference: both ratio levels, every KL type, dual clip
// on and off, masked holes and padding rows, rows of different lengths, T above the workgroup;
// then the loss head inside a GPT forward.
import { beforeAll, describe, expect, it } from 'vitest';
import { testGpu } from '../helpers/gpu';
import { expectClose } from '../helpers/tolerance';
import { mulberry32, randInts } from '../helpers/rng';
import { view, type Gpu, type TensorRef } from '../../src/gpu/runtime';
import { pgLoss } from '../../src/gpu/ops/pg';
import { PG_NSTATS, type KlType, type PgHyper } from '../../src/rl/hyper';
import { pgLossRef } from '../../src/reference/pg';
import { makePgLossHead } from '../../src/engines/webgpu/loss_head';
import { GPT } from '../../src/model/gpt';
import { GPT_PRESETS } from '../../src/model/config';
import { buildTensorTable } from '../../src/model/params';
import { initParams } from '../../src/model/init';

const base: PgHyper = { epsLow: 0.2, epsHigh: 0.28, dualClipC: null, klType: null, beta: 0, klClamp: 10, entCoef: 0, ratioLevel: 'token' };

interface Inputs {
  logp: Float32Array; entropy: Float32Array; oldLogp: Float32Array; refLogp: Float32Array; adv: Float32Array; coef: Float32Array;
}

/** Relative distance of ρ to the nearest clip bound (ε 0.2 / 0.28 and dual clip 3). */
const kinkDistance = (rho: number): number => Math.min(...[0.8, 1.28, 3].map((k) => Math.abs(rho - k) / k));

/**
 * Random inputs whose ratios span both clips and the dual clip, at token level and (through a
 * per-row shift) at sequence level. Row 1 is entirely masked; masked positions hold NaN log-probs
 * (padding must never leak). Ratios within 1e-3 of a bound are moved off it: float32 and float64
 * would otherwise disagree on which side they fall.
 */
function randomInputs(seed: number, B: number, T: number): Inputs {
  const rand = mulberry32(seed);
  const n = B * T;
  const x: Inputs = { logp: new Float32Array(n), entropy: new Float32Array(n), oldLogp: new Float32Array(n), refLogp: new Float32Array(n), adv: new Float32Array(n), coef: new Float32Array(n) };
  for (let b = 0; b < B; b++) {
    const len = b === 1 ? 0 : Math.max(1, Math.floor(T * (0.3 + 0.7 * rand())));
    const shift = (rand() * 2 - 1) * 1.6;
    const A = rand() * 2 - 1;
    let sum = 0, count = 0;
    for (let t = 0; t < T; t++) {
      const i = b * T + t;
      const on = t < len && rand() > 0.15;
      x.coef[i] = on ? 0.01 + rand() * 0.1 : 0;
      x.adv[i] = rand() < 0.5 ? A : rand() * 2 - 1;
      x.entropy[i] = 2 * rand();
      x.logp[i] = on ? -0.1 - 3 * rand() : NaN;
      let lr = (rand() * 2 - 1) * 1.6;
      while (kinkDistance(Math.exp(lr)) < 1e-3) lr += 3e-3;
      x.oldLogp[i] = x.logp[i] - lr;
      x.refLogp[i] = x.logp[i] + (rand() < 0.1 ? 11 + rand() : (rand() * 2 - 1) * 3);
      if (on) (sum += x.logp[i] - x.oldLogp[i]), count++;
    }
    // Sequence level sees exp(mean log-ratio) = exp(m): move the whole row by (shift − m).
    if (count > 0) {
      let d = shift - sum / count;
      while (kinkDistance(Math.exp(sum / count + d)) < 1e-3) d += 3e-3;
      for (let t = 0; t < T; t++) x.oldLogp[b * T + t] -= d;
    }
  }
  return x;
}

interface Bound {
  run(h: PgHyper): Promise<{ w: Float32Array; e: Float32Array; stats: Float32Array }>;
}

async function bind(gpu: Gpu, x: Inputs, B: number, T: number): Promise<Bound> {
  const n = B * T;
  const ref = (a: Float32Array, label: string): TensorRef => view(gpu.upload(a, label), 0, n);
  const out = { w: view(gpu.createBuffer(n * 4, 'w'), 0, n), e: view(gpu.createBuffer(n * 4, 'e'), 0, n), stats: view(gpu.createBuffer(B * PG_NSTATS * 4, 'stats'), 0, B * PG_NSTATS) };
  const op = await pgLoss(gpu, out, {
    logp: ref(x.logp, 'logp'), entropy: ref(x.entropy, 'entropy'), oldLogp: ref(x.oldLogp, 'old'), refLogp: ref(x.refLogp, 'ref'), adv: ref(x.adv, 'adv'), coef: ref(x.coef, 'coef'),
  }, { B, T }, base);
  return {
    async run(h) {
      op.setHyper(h);
      gpu.run(op.dispatches);
      return { w: await gpu.readF32(out.w), e: await gpu.readF32(out.e), stats: await gpu.readF32(out.stats) };
    },
  };
}

describe('pg_loss vs pgLossRef', () => {
  let gpu: Gpu;
  beforeAll(async () => {
    gpu = await testGpu();
  });

  const combos: [PgHyper['ratioLevel'], KlType | null, number | null][] = [];
  for (const level of ['token', 'sequence'] as const) for (const kl of [null, 'k1', 'k2', 'k3'] as const) for (const dual of [null, 3]) combos.push([level, kl, dual]);

  it.each([[6, 37], [3, 300], [1, 1]])('B=%i T=%i: every ratio level, KL type and dual-clip setting', async (B, T) => {
    const x = randomInputs(B * 1000 + T, B, T);
    const bound = await bind(gpu, x, B, T);
    const seen = { low: 0, high: 0, dual: 0 };
    for (const [ratioLevel, klType, dualClipC] of combos) {
      const h: PgHyper = { ...base, ratioLevel, klType, dualClipC, beta: klType ? 0.05 : 0, entCoef: 0.01 };
      const got = await bound.run(h);
      const want = pgLossRef(x, { B, T }, h);
      const tag = `${ratioLevel}/${klType}/${dualClipC}`;
      // float32 exp and sums of up to T terms against float64
      expectClose(`w ${tag}`, got.w, want.w, { atol: 2e-6, rtol: 2e-5 });
      expectClose(`e ${tag}`, got.e, want.e, { atol: 0, rtol: 1e-6 });
      // KL sums include e^10 (clamped δ): absolute errors grow with it, so a relative tolerance leads
      expectClose(`stats ${tag}`, got.stats, want.stats, { atol: 1e-5, rtol: 2e-5 });
      for (let i = 0; i < B * T; i++) {
        if (x.coef[i] === 0 && (got.w[i] !== 0 || got.e[i] !== 0)) throw new Error(`${tag}: masked position ${i} got w=${got.w[i]} e=${got.e[i]}`);
      }
      seen.low += want.metrics['clip_ratio/low_mean'];
      seen.high += want.metrics['clip_ratio/high_mean'];
      seen.dual += want.metrics['clip_ratio/dual_mean'];
    }
    if (T > 1) expect(seen.low * seen.high * seen.dual).toBeGreaterThan(0);
  });

  it('a row whose tokens are all masked writes zeros everywhere, even at sequence level', async () => {
    const B = 2, T = 5;
    const x = randomInputs(3, B, T); // row 1 is fully masked with NaN log-probs
    const bound = await bind(gpu, x, B, T);
    const got = await bound.run({ ...base, ratioLevel: 'sequence', klType: 'k3', beta: 0.1, entCoef: 0.1 });
    expect(Array.from(got.w.subarray(T))).toEqual([0, 0, 0, 0, 0]);
    expect(Array.from(got.stats.subarray(PG_NSTATS))).toEqual(new Array(PG_NSTATS).fill(0));
  });
});

describe('the pg loss head inside GPT.create', () => {
  it('a forward writes the reference weights from the model\'s own log-probs, and metrics from stats', async () => {
    const gpu = await testGpu();
    const cfg = GPT_PRESETS.tiny;
    const B = 3, T = 10, BT = B * T;
    const rand = mulberry32(5);
    const h: PgHyper = { ...base, dualClipC: 3, klType: 'k3', beta: 0.02, entCoef: 0.003 };
    const head = makePgLossHead(gpu, { B, T }, h);
    const model = await GPT.create(gpu, cfg, initParams(cfg, buildTensorTable(cfg), 9), { B, T }, { lossHead: head.lossHead });
    model.setBatch(randInts(rand, BT, cfg.vocabSize), randInts(rand, BT, cfg.vocabSize));
    // first forward only to learn log π, so old / reference log-probs can sit at chosen ratios
    const x = randomInputs(8, B, T);
    head.setBatch({ B, T, oldLogp: new Float32Array(BT), refLogp: new Float32Array(BT), adv: x.adv, coef: x.coef });
    model.forward();
    const logp = await gpu.readF32(model.batch.logp);
    const ratio = x.logp.map((lp, i) => lp - x.oldLogp[i]);
    const oldLogp = logp.map((lp, i) => lp - (Number.isFinite(ratio[i]) ? ratio[i] : 0));
    const refLogp = logp.map((lp, i) => lp + 0.5 * Math.sin(i));
    head.setBatch({ B, T, oldLogp, refLogp, adv: x.adv, coef: x.coef });
    model.forward();
    const [w, e, entropy, logp2, metrics] = [await gpu.readF32(model.batch.w), await gpu.readF32(model.batch.e), await gpu.readF32(model.batch.entropy), await gpu.readF32(model.batch.logp), await head.readMetrics()];
    expect(Array.from(logp2)).toEqual(Array.from(logp));
    const want = pgLossRef({ logp, entropy, oldLogp, refLogp, adv: x.adv, coef: x.coef }, { B, T }, h);
    // the ratios are recovered through float32 subtractions of log-probs: ~1e-6 relative
    expectClose('w', w, want.w, { atol: 1e-5, rtol: 1e-4 });
    expectClose('e', e, want.e, { atol: 0, rtol: 1e-6 });
    expect(metrics.loss).toBeCloseTo(want.metrics.loss, 5);
    expect(metrics['clip_ratio/region_mean']).toBeCloseTo(want.metrics['clip_ratio/region_mean'], 6);
    expect(metrics.tokens).toBe(want.metrics.tokens);
    // without reference log-probs the KL is off; a β would then be an error
    expect(() => head.setBatch({ B, T, oldLogp, refLogp: null, adv: x.adv, coef: x.coef })).toThrow(/set beta to 0/);
    head.setHyper({ ...h, beta: 0 });
    head.setBatch({ B, T, oldLogp, refLogp: null, adv: x.adv, coef: x.coef });
    model.forward();
    expect((await head.readMetrics()).kl).toBe(0);
  });

  it('recorded at several lengths, a short batch is weighted like one of a head made for its length', async () => {
    const gpu = await testGpu();
    const cfg = GPT_PRESETS.tiny;
    const B = 3, T = 10, Tb = 4, n = B * Tb;
    const rand = mulberry32(6);
    const h: PgHyper = { ...base, dualClipC: 3, klType: 'k2', beta: 0.05, entCoef: 0.01 };
    const head = makePgLossHead(gpu, { B, T }, h);
    const model = await GPT.create(gpu, cfg, initParams(cfg, buildTensorTable(cfg), 9), { B, T, lengths: [Tb, T] }, { lossHead: head.lossHead });
    model.setBatch(randInts(rand, n, cfg.vocabSize), randInts(rand, n, cfg.vocabSize));
    const x = randomInputs(9, B, Tb);
    const inputs = { oldLogp: new Float32Array(n), refLogp: new Float32Array(n), adv: x.adv, coef: x.coef };
    head.setBatch({ B, T: Tb, ...inputs });
    model.forward();
    const logp = await gpu.readF32({ ...model.batch.logp, size: n * 4 });
    const oldLogp = logp.map((lp, i) => lp - 0.3 * Math.cos(i));
    const refLogp = logp.map((lp, i) => lp + 0.4 * Math.sin(i));
    head.setBatch({ B, T: Tb, ...inputs, oldLogp, refLogp });
    model.forward();
    const read = (r: TensorRef) => gpu.readF32({ ...r, size: n * 4 });
    const [w, e, entropy] = [await read(model.batch.w), await read(model.batch.e), await read(model.batch.entropy)];
    const want = pgLossRef({ logp, entropy, oldLogp, refLogp, adv: x.adv, coef: x.coef }, { B, T: Tb }, h);
    expectClose('w', w, want.w, { atol: 1e-5, rtol: 1e-4 });
    expectClose('e', e, want.e, { atol: 0, rtol: 1e-6 });
    expect((await head.readMetrics()).loss).toBeCloseTo(want.metrics.loss, 5);
    // a batch of a length the model did not record is refused by the head as by the model
    expect(() => head.setBatch({ B, T: 7, ...inputs })).toThrow(/T in 4, 10/);
  });
});

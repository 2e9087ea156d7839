import { describe, expect, it } from 'vitest';
import { testGpu } from '../helpers/gpu';
import { expectClose } from '../helpers/tolerance';
import { mulberry32, randn } from '../helpers/rng';
import { asRef, type Dispatch, type Gpu } from '../../src/gpu/runtime';
import { createDecodeBuffers, decodeAdvance, sampleStep, type DecodeBuffers, type DecodeDims, type SampleOpts } from '../../src/gpu/ops/decode';
import type { KernelVariant } from '../../src/gpu/runtime';
import {
  entropyRef,
  policyDistributionRef,
  philox4x32Ref,
  sampleStepRef,
  sampleUniformRef,
  samplingDistributionRef,
  sortedOrderRef,
  type SampleStateRef,
} from '../../src/reference/decode';

const NO_EOS = 0xffffffff;
const base: SampleOpts = { temperature: 1, topK: 0, topP: 1, seed: 1234, eosToken: NO_EOS, maxNew: 1000 };

interface Setup {
  gpu: Gpu;
  st: DecodeBuffers;
  dims: DecodeDims;
  sampler: { dispatch: Dispatch; setOpts(o: SampleOpts): void };
  adv: Dispatch;
}

/** Decode state for B sequences over fixed logits (B, V); prompts are `promptLen` tokens 900 + position. */
async function setup(dims: { B: number; Tmax: number; V: number }, logits: Float32Array, promptLen: number[], opts: SampleOpts, variant?: KernelVariant): Promise<Setup> {
  const gpu = await testGpu();
  const full: DecodeDims = { ...dims, C: 4, NH: 1 };
  const st = createDecodeBuffers(gpu, dims.B, dims.Tmax);
  const tokens = new Uint32Array(dims.B * dims.Tmax);
  promptLen.forEach((n, b) => {
    for (let t = 0; t < n; t++) tokens[b * dims.Tmax + t] = 900 + t;
  });
  gpu.write(st.tokens, tokens);
  gpu.write(st.promptLen, Uint32Array.from(promptLen));
  const sampler = await sampleStep(gpu, st, asRef(gpu.upload(logits, 'logits')), full, opts, { variant });
  return { gpu, st, dims: full, sampler, adv: await decodeAdvance(gpu, st) };
}

/** Positions s0 .. s1-1 in one command buffer. */
function runSteps(x: Setup, s0: number, s1: number): void {
  x.gpu.write(x.st.step, new Uint32Array(x.dims.B).fill(s0));
  const ds: Dispatch[] = [];
  for (let s = s0; s < s1; s++) ds.push(x.sampler.dispatch, x.adv);
  x.gpu.run(ds);
}

async function readState(x: Setup) {
  const { gpu, st } = x;
  return { tokens: await gpu.readU32(st.tokens), done: await gpu.readU32(st.done), logp: await gpu.readF32(st.logp), entropy: await gpu.readF32(st.entropy) };
}

const rowOf = (a: ArrayLike<number>, b: number, V: number): number[] => Array.from({ length: V }, (_, j) => a[b * V + j]);

// ---- chi-square p-value: regularised upper incomplete gamma Q(df/2, x/2) (Numerical Recipes)
function lnGamma(x: number): number {
  const c = [76.18009172947146, -86.50532032941677, 24.01409824083091, -1.231739572450155, 0.1208650973866179e-2, -0.5395239384953e-5];
  let y = x;
  const tmp = x + 5.5 - (x + 0.5) * Math.log(x + 5.5);
  let ser = 1.000000000190015;
  for (const ci of c) ser += ci / ++y;
  return -tmp + Math.log((2.5066282746310005 * ser) / x);
}

function gammaQ(a: number, x: number): number {
  if (x < a + 1) {
    let sum = 1 / a;
    let del = sum;
    for (let n = 1; n < 1000 && Math.abs(del) > Math.abs(sum) * 1e-15; n++) sum += del *= x / (a + n);
    return 1 - sum * Math.exp(-x + a * Math.log(x) - lnGamma(a));
  }
  let b = x + 1 - a;
  let c = 1e300;
  let d = 1 / b;
  let h = d;
  for (let i = 1; i < 1000; i++) {
    const an = -i * (i - a);
    b += 2;
    d = 1 / (an * d + b);
    c = b + an / c;
    const del = d * c;
    h *= del;
    if (Math.abs(del - 1) < 1e-15) break;
  }
  return Math.exp(-x + a * Math.log(x) - lnGamma(a)) * h;
}

/** Pearson chi-square of counts against probabilities q (support only), pooling bins of expected count < 5. */
function chiSquare(counts: number[], q: Float64Array): { stat: number; df: number; p: number } {
  const n = counts.reduce((a, c) => a + c, 0);
  const bins = [...q.keys()].filter((i) => q[i] > 0).map((i) => ({ e: n * q[i], o: counts[i] })).sort((a, b) => a.e - b.e);
  const pooled: { e: number; o: number }[] = [];
  let acc = { e: 0, o: 0 };
  for (const bin of bins) {
    if (bin.e >= 5 && acc.e === 0) pooled.push(bin);
    else {
      acc = { e: acc.e + bin.e, o: acc.o + bin.o };
      if (acc.e >= 5) {
        pooled.push(acc);
        acc = { e: 0, o: 0 };
      }
    }
  }
  if (acc.e > 0) {
    if (pooled.length) pooled[pooled.length - 1] = { e: pooled[pooled.length - 1].e + acc.e, o: pooled[pooled.length - 1].o + acc.o };
    else pooled.push(acc);
  }
  const stat = pooled.reduce((s, b) => s + (b.o - b.e) ** 2 / b.e, 0);
  const df = pooled.length - 1;
  return { stat, df, p: df > 0 ? gammaQ(df / 2, stat / 2) : 1 };
}

describe('chi-square helper', () => {
  it('gives the textbook critical values', () => {
    // chi2 upper 0.001 critical values: df 1 -> 10.828, df 10 -> 29.588, df 60 -> 99.607
    expect(gammaQ(0.5, 10.828 / 2)).toBeCloseTo(0.001, 5);
    expect(gammaQ(5, 29.588 / 2)).toBeCloseTo(0.001, 5);
    expect(gammaQ(30, 99.607 / 2)).toBeCloseTo(0.001, 5);
  });
});

describe('sampler generator', () => {
  it('Philox-4x32-10 reference matches the Random123 known-answer vectors', () => {
    const hex = (v: number[]) => v.map((x) => x.toString(16).padStart(8, '0'));
    expect(hex(philox4x32Ref([0, 0, 0, 0], [0, 0]))).toEqual(['6627e8d5', 'e169c58d', 'bc57ac4c', '9b00dbd8']);
    const f = 0xffffffff;
    expect(hex(philox4x32Ref([f, f, f, f], [f, f]))).toEqual(['408f276d', '41c83b0e', 'a20bc7c6', '6d5451fd']);
    expect(hex(philox4x32Ref([0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344], [0xa4093822, 0x299f31d0]))).toEqual([
      'd16cfe09', '94fdcceb', '5001e420', '24126ea1',
    ]);
  });
});

describe('sample_step greedy', () => {
  it.each([64, 1000])('takes the argmax, lowest index on ties, with logp = entropy = 0 (V=%i)', async (V) => {
    const B = 5;
    const logits = randn(mulberry32(V), B * V, 2);
    logits[0 * V + 9] = 10; // tie: 5 wins
    logits[0 * V + 5] = 10;
    logits.fill(0.5, 1 * V, 2 * V); // all equal: 0 wins
    logits[2 * V + V - 1] = 10; // the last id
    logits[3 * V + 3] = -1e30; // a huge negative logit elsewhere changes nothing
    const x = await setup({ B, Tmax: 4, V }, logits, [1, 1, 1, 1, 1], { ...base, temperature: 0, topK: 3, topP: 0.5 });
    runSteps(x, 0, 1);
    const got = await readState(x);
    const want = Array.from({ length: B }, (_, b) => sortedOrderRef(rowOf(logits, b, V))[0]);
    expect(want.slice(0, 3)).toEqual([5, 0, V - 1]);
    expect(Array.from({ length: B }, (_, b) => got.tokens[b * 4 + 1])).toEqual(want);
    expect(Array.from(got.logp)).toEqual(new Array(B * 4).fill(0));
    expect(Array.from(got.entropy)).toEqual(new Array(B * 4).fill(0));
  });
});

describe('sample_step distribution', () => {
  it.each([
    { V: 64, temperature: 1, topK: 0, topP: 1 },
    { V: 50, temperature: 0.7, topK: 10, topP: 1 },
    { V: 64, temperature: 1.3, topK: 0, topP: 0.8 },
    { V: 64, temperature: 1, topK: 5, topP: 0.9 },
    { V: 1000, temperature: 1, topK: 0, topP: 0.95 },
    { V: 50, temperature: 0.5, topK: 60, topP: 1 },
    { V: 3, temperature: 2, topK: 0, topP: 1 },
    { V: 1, temperature: 1, topK: 0, topP: 1 },
    { V: 64, temperature: 1, topK: 0, topP: 1e-6 },
  ])('token, logp and entropy follow the reference for %o', async ({ V, temperature, topK, topP }) => {
    const B = 16;
    const Tmax = 4;
    const logits = randn(mulberry32(V + topK), B * V, 3);
    const opts = { ...base, temperature, topK, topP };
    const x = await setup({ B, Tmax, V }, logits, new Array<number>(B).fill(1), opts);
    runSteps(x, 2, 3);
    const got = await readState(x);
    let exact = 0;
    for (let b = 0; b < B; b++) {
      const row = rowOf(logits, b, V);
      const q = samplingDistributionRef(row, temperature, topK, topP);
      const y = got.tokens[b * Tmax + 3];
      expect(q[y], `sequence ${b} drew token ${y} outside the support`).toBeGreaterThan(0);
      // f32 softmax over up to 1000 logits of magnitude ~10
      // log π and H of the full temperature-scaled distribution, whatever top-k / top-p drew from
      const pi = policyDistributionRef(row, temperature);
      expectClose(`logp b=${b}`, [got.logp[b * Tmax + 3]], [Math.log(pi[y])], { atol: 2e-5, rtol: 1e-5 });
      expectClose(`entropy b=${b}`, [got.entropy[b * Tmax + 3]], [entropyRef(pi)], { atol: 2e-5, rtol: 1e-5 });
      // the same uniform through the reference's inverse CDF gives the same token unless it
      // lies within f32 rounding of a cumulative boundary
      const u = sampleUniformRef(opts.seed, b, 3);
      let cum = 0;
      let margin = Infinity;
      let want = -1;
      for (const i of sortedOrderRef(row)) {
        if (q[i] === 0) continue;
        cum += q[i];
        margin = Math.min(margin, Math.abs(cum - u));
        if (want < 0 && cum > u) want = i;
      }
      if (margin > 1e-5) {
        expect(y, `sequence ${b}`).toBe(want);
        exact++;
      }
    }
    expect(exact).toBeGreaterThan(B / 2);
    expect(got.tokens.filter((_, i) => i % Tmax !== 0 && i % Tmax !== 3).every((t) => t === 0)).toBe(true);
  });
});

describe('sample_step seeds', () => {
  it('same seed gives the same tokens, a new seed (set by setOpts) different ones', async () => {
    const B = 64;
    const V = 64;
    const logits = randn(mulberry32(3), B * V, 1);
    const x = await setup({ B, Tmax: 6, V }, logits, new Array<number>(B).fill(1), base);
    const draw = async (seed: number) => {
      x.sampler.setOpts({ ...base, seed });
      runSteps(x, 0, 5);
      return Array.from(await x.gpu.readU32(x.st.tokens));
    };
    const a = await draw(7);
    const a2 = await draw(7);
    const b = await draw(8);
    expect(a2).toEqual(a);
    const differing = a.filter((t, i) => t !== b[i]).length;
    expect(differing).toBeGreaterThan(B * 5 * 0.5); // exp. ~ 95% differ for near-uniform logits
  });
});

// ~20k draws per setting from B = 256 sequences x 79 positions with the same logits; a chi-square
// test at significance 0.001 per setting (the four tests together: family-wise error ~0.4 %;
// the draws are deterministic, so a pass stays a pass).
describe('sample_step statistics', () => {
  const V = 64;
  const B = 256;
  const Tmax = 80;
  const row = randn(mulberry32(2024), V, 1.5);
  const logits = new Float32Array(B * V);
  for (let b = 0; b < B; b++) logits.set(row, b * V);
  let shared: Setup | null = null;

  it.each([
    { temperature: 1, topK: 0, topP: 1 },
    { temperature: 0.7, topK: 10, topP: 1 },
    { temperature: 1.3, topK: 0, topP: 0.8 },
    { temperature: 1, topK: 5, topP: 0.9 },
  ])('empirical frequencies fit samplingDistributionRef (chi-square, significance 0.001) for %o', async (o) => {
    const opts = { ...base, ...o, seed: 99 + o.topK };
    shared ??= await setup({ B, Tmax, V }, logits, new Array<number>(B).fill(1), opts);
    const x = shared;
    x.sampler.setOpts(opts);
    runSteps(x, 0, Tmax - 1);
    const tokens = await x.gpu.readU32(x.st.tokens);
    const counts = new Array<number>(V).fill(0);
    for (let b = 0; b < B; b++) for (let t = 1; t < Tmax; t++) counts[tokens[b * Tmax + t]]++;
    const q = samplingDistributionRef(row, o.temperature, o.topK, o.topP);
    const outside = counts.filter((c, i) => c > 0 && q[i] === 0).length;
    expect(outside, 'tokens outside the top-k / top-p support').toBe(0);
    const { stat, df, p } = chiSquare(counts, q);
    expect(p, `chi2=${stat.toFixed(1)} df=${df}`).toBeGreaterThan(0.001);
    expect(df).toBeGreaterThan(2);
  });
});

describe('sample_step prompts and done', () => {
  const B = 5;
  const Tmax = 10;
  const V = 64;

  function refState(promptLen: number[], done: number[], sentinel: number): SampleStateRef {
    const st: SampleStateRef = {
      tokens: new Uint32Array(B * Tmax),
      promptLen: Uint32Array.from(promptLen),
      done: Uint32Array.from(done),
      logp: new Float64Array(B * Tmax).fill(sentinel),
      entropy: new Float64Array(B * Tmax).fill(sentinel),
    };
    promptLen.forEach((n, b) => {
      for (let t = 0; t < n; t++) st.tokens[b * Tmax + t] = 900 + t;
    });
    return st;
  }

  it.each([
    { temperature: 0, eosToken: 7, maxNew: 3 },
    { temperature: 1, eosToken: 2, maxNew: 5 },
  ])('keeps prompt tokens, zeroes their logp, stops at eos or maxNew, leaves done rows alone: %o', async (o) => {
    const logits = randn(mulberry32(11), B * V, 2);
    logits[0 * V + 7] = 20; // greedy: row 0 emits eos at once
    const promptLen = [1, 4, 7, Tmax, Tmax - 2];
    const done = [0, 0, 0, 0, 0];
    const opts = { ...base, ...o };
    const x = await setup({ B, Tmax, V }, logits, promptLen, opts);
    x.gpu.write(x.st.logp, new Float32Array(B * Tmax).fill(9));
    x.gpu.write(x.st.entropy, new Float32Array(B * Tmax).fill(9));
    runSteps(x, 0, Tmax); // the last step (t = Tmax) writes nothing
    const got = await readState(x);

    const ref = refState(promptLen, done, 9);
    for (let s = 0; s < Tmax; s++) sampleStepRef(ref, logits, s, x.dims, opts);
    expect(Array.from(got.tokens)).toEqual(Array.from(ref.tokens));
    expect(Array.from(got.done)).toEqual(Array.from(ref.done));
    expectClose('logp', got.logp, ref.logp, { atol: 2e-5, rtol: 1e-5 });
    expectClose('entropy', got.entropy, ref.entropy, { atol: 2e-5, rtol: 1e-5 });

    for (let b = 0; b < B; b++) {
      for (let t = 0; t < promptLen[b]; t++) expect(got.tokens[b * Tmax + t]).toBe(900 + t);
      expect(got.logp[b * Tmax]).toBe(9); // position 0 is never predicted
      for (let t = 1; t < promptLen[b]; t++) expect(got.logp[b * Tmax + t]).toBe(0);
    }
    if (o.temperature === 0) {
      expect(Array.from(got.done)).toEqual([1, 1, 1, 0, 0]); // eos; maxNew; maxNew; no room; 2 < maxNew tokens
      expect(got.logp.slice(2, Tmax)).toEqual(new Float32Array(Tmax - 2).fill(9)); // row 0 stopped after position 1
      expect(got.logp.slice(Tmax + 7, 2 * Tmax)).toEqual(new Float32Array(3).fill(9)); // row 1 made positions 4..6
    }
  });

  it('skips sequences that are already done', async () => {
    const logits = randn(mulberry32(12), B * V, 2);
    const x = await setup({ B, Tmax, V }, logits, [2, 2, 2, 2, 2], base);
    x.gpu.write(x.st.done, Uint32Array.from([1, 0, 1, 0, 1]));
    runSteps(x, 0, Tmax);
    const got = await readState(x);
    for (const b of [0, 2, 4]) {
      expect(got.tokens.slice(b * Tmax + 2, (b + 1) * Tmax).every((t) => t === 0)).toBe(true);
      expect(got.logp.slice(b * Tmax, (b + 1) * Tmax).every((t) => t === 0)).toBe(true);
    }
    expect(got.logp.slice(1 * Tmax + 2, 2 * Tmax).every((l) => l < 0)).toBe(true);
  });
});

describe('sample_step: the direct design draws what the tiled one draws', () => {
  // the direct kernel repeats the tiled kernel's sums in its order, so tokens, log-probs and
  // entropies are bit for bit the same (the runs recorded with one replay with the other)
  it.each([
    { V: 64, temperature: 1, topK: 0, topP: 1 },
    { V: 64, temperature: 0.7, topK: 5, topP: 1 },
    { V: 64, temperature: 1.3, topK: 0, topP: 0.8 },
    { V: 50, temperature: 1, topK: 9, topP: 0.6 },
    { V: 200, temperature: 1, topK: 0, topP: 0.95 },
    { V: 3, temperature: 2, topK: 0, topP: 1 },
    { V: 64, temperature: 0, topK: 0, topP: 1 },
  ])('%o', async ({ V, temperature, topK, topP }) => {
    const B = 24;
    const Tmax = 6;
    // scores with ties and a wide range, prompts of 1 to 3 tokens, one sequence already done
    const logits = randn(mulberry32(V * 7 + topK), B * V, 3).map((x, i) => (i % 11 === 0 ? Math.round(x) : x));
    const promptLen = Array.from({ length: B }, (_, b) => 1 + (b % 3));
    const opts = { ...base, temperature, topK, topP, eosToken: 2, maxNew: 3 };
    const run = async (variant: KernelVariant) => {
      const x = await setup({ B, Tmax, V }, Float32Array.from(logits), promptLen, opts, variant);
      x.gpu.write(x.st.done, Uint32Array.from({ length: B }, (_, b) => (b === 5 ? 1 : 0)));
      runSteps(x, 0, Tmax);
      return readState(x);
    };
    const [tiled, direct] = [await run('tiled'), await run('direct')];
    expect(Array.from(direct.tokens)).toEqual(Array.from(tiled.tokens));
    expect(Array.from(direct.done)).toEqual(Array.from(tiled.done));
    expect(Array.from(direct.logp)).toEqual(Array.from(tiled.logp));
    expect(Array.from(direct.entropy)).toEqual(Array.from(tiled.entropy));
  });
});

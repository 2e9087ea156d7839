// In-app kernel self-test: each check runs one WGSL kernel on seeded random data and compares
// it with its float64 CPU reference, using the same tolerance helper as the GPU test tier.
// Adding a kernel's check is one entry in SELF_TESTS.
import { view, type Gpu, type TensorRef } from '../gpu/runtime';
import { residualForward } from '../gpu/ops/elementwise';
import { matmulForward } from '../gpu/ops/matmul';
import { geluForward, layernormForward } from '../gpu/ops/layers';
import { attentionForward, type AttentionDims } from '../gpu/ops/attention';
import { softmaxLogp } from '../gpu/ops/loss';
import { residualForwardRef } from '../reference/elementwise';
import { matmulForwardRef } from '../reference/matmul';
import { geluForwardRef, layernormForwardRef } from '../reference/layers';
import { attentionForwardRef } from '../reference/attention';
import { softmaxLogpRef } from '../reference/loss';
import { compareClose, type Tolerance } from '../util/tolerance';
import { mulberry32, randArray } from '../util/rng';
import { MODEL_SELF_TESTS } from './selftest_model';

export interface SelfTestResult {
  ok: boolean;
  maxAbs: number;
  message: string;
}

export interface SelfTest {
  name: string;
  run(gpu: Gpu): Promise<SelfTestResult>;
}

/** Buffers of one check, destroyed when it ends so repeated runs do not pile up GPU memory. */
class Scratch {
  private readonly buffers: GPUBuffer[] = [];
  constructor(readonly gpu: Gpu) {}

  upload(data: Float32Array | Uint32Array, label: string): TensorRef {
    return view(this.keep(this.gpu.upload(data, label)), 0, data.length);
  }

  zeros(elems: number, label: string): TensorRef {
    return view(this.keep(this.gpu.createBuffer(elems * 4, label)), 0, elems);
  }

  private keep(b: GPUBuffer): GPUBuffer {
    this.buffers.push(b);
    return b;
  }

  destroy(): void {
    for (const b of this.buffers) b.destroy();
  }
}

async function withScratch(gpu: Gpu, body: (s: Scratch) => Promise<SelfTestResult>): Promise<SelfTestResult> {
  const s = new Scratch(gpu);
  try {
    return await body(s);
  } finally {
    s.destroy();
  }
}

/** Compares several outputs of one kernel; the check passes when all do. */
function compare(...cases: [label: string, got: ArrayLike<number>, want: ArrayLike<number>, tol: Tolerance][]): SelfTestResult {
  const reports = cases.map(([label, got, want, tol]) => compareClose(label, got, want, tol));
  return {
    ok: reports.every((r) => r.ok),
    maxAbs: Math.max(...reports.map((r) => r.maxAbs)),
    message: reports.map((r) => r.message).join('\n'),
  };
}

// n is not a multiple of the workgroup size, so the bounds check of the last workgroup runs.
function checkResidualForward(n: number): SelfTest {
  return {
    name: `residual_forward n=${n}`,
    run: (gpu) =>
      withScratch(gpu, async (s) => {
        const rand = mulberry32(n);
        const a = randArray(rand, n);
        const b = randArray(rand, n);
        const out = s.zeros(n, 'selftest.out');
        gpu.run([await residualForward(gpu, out, s.upload(a, 'selftest.a'), s.upload(b, 'selftest.b'), n)]);
        const want = new Float64Array(n);
        residualForwardRef(want, a, b);
        // one float32 rounding of an exact sum: relative error at most 2^-24
        return compare(['residual_forward', await gpu.readF32(out), want, { atol: 0, rtol: 1e-6 }]);
      }),
  };
}

// A Conv1D layer (weight [in, out], bias). N % 4 != 0 takes the scalar entry, else the vec4 one.
function checkMatmulForward(M: number, K: number, N: number): SelfTest {
  return {
    name: `matmul_forward ${M}x${K}x${N}${N % 4 === 0 && K % 4 === 0 ? ' (vec4)' : ''}`,
    run: (gpu) =>
      withScratch(gpu, async (s) => {
        const rand = mulberry32(M * 7919 + K * 31 + N);
        const inp = randArray(rand, M * K);
        const weight = randArray(rand, K * N);
        const bias = randArray(rand, N);
        const out = s.zeros(M * N, 'selftest.out');
        const d = await matmulForward(gpu, out, s.upload(inp, 'selftest.inp'), s.upload(weight, 'selftest.weight'), s.upload(bias, 'selftest.bias'), { M, K, N });
        gpu.run([d]);
        const want = new Float64Array(M * N);
        matmulForwardRef(want, inp, weight, bias, { M, K, N });
        // float32 rounding of a K-term dot product of terms in [-1, 1], as in test/gpu/matmul.test.ts
        return compare([d.label, await gpu.readF32(out), want, { atol: 1e-6 * (K + 4) + 2e-6, rtol: 1e-6 }]);
      }),
  };
}

function checkLayernormForward(N: number, C: number): SelfTest {
  return {
    name: `layernorm_forward N=${N} C=${C}`,
    run: (gpu) =>
      withScratch(gpu, async (s) => {
        const rand = mulberry32(N * 1000 + C);
        const inp = randArray(rand, N * C, 2);
        const weight = randArray(rand, C);
        const bias = randArray(rand, C);
        const out = s.zeros(N * C, 'selftest.out');
        const mean = s.zeros(N, 'selftest.mean');
        const rstd = s.zeros(N, 'selftest.rstd');
        gpu.run([await layernormForward(gpu, out, mean, rstd, s.upload(inp, 'selftest.inp'), s.upload(weight, 'selftest.w'), s.upload(bias, 'selftest.b'), { N, C })]);
        const want = { out: new Float64Array(N * C), mean: new Float64Array(N), rstd: new Float64Array(N) };
        layernormForwardRef(want.out, want.mean, want.rstd, inp, weight, bias, N, C);
        // the tolerances of test/gpu/layers.test.ts: float32 row sums of C terms
        const tol = { atol: 2e-5, rtol: 1e-5 };
        return compare(
          ['layernorm out', await gpu.readF32(out), want.out, tol],
          ['layernorm mean', await gpu.readF32(mean), want.mean, tol],
          ['layernorm rstd', await gpu.readF32(rstd), want.rstd, { atol: 0, rtol: 1e-5 }],
        );
      }),
  };
}

function checkGeluForward(n: number): SelfTest {
  return {
    name: `gelu_forward n=${n}`,
    run: (gpu) =>
      withScratch(gpu, async (s) => {
        // [-6, 6) reaches both tails of tanh, where a wrong constant shows
        const inp = randArray(mulberry32(n), n, 6);
        const out = s.zeros(n, 'selftest.out');
        gpu.run([await geluForward(gpu, out, s.upload(inp, 'selftest.inp'), n)]);
        const want = new Float64Array(n);
        geluForwardRef(want, inp, n);
        return compare(['gelu', await gpu.readF32(out), want, { atol: 1e-6, rtol: 1e-5 }]);
      }),
  };
}

function checkAttentionForward(d: AttentionDims): SelfTest {
  const { B, T, C, NH } = d;
  return {
    name: `attention_forward B=${B} T=${T} C=${C} NH=${NH}`,
    run: (gpu) =>
      withScratch(gpu, async (s) => {
        const qkv = randArray(mulberry32(B * T * C + NH), B * T * 3 * C);
        const out = s.zeros(B * T * C, 'selftest.out');
        const lse = s.zeros(B * NH * T, 'selftest.lse');
        gpu.run([await attentionForward(gpu, out, lse, s.upload(qkv, 'selftest.qkv'), d)]);
        const want = { out: new Float64Array(B * T * C), lse: new Float64Array(B * NH * T) };
        attentionForwardRef(want.out, want.lse, qkv, d);
        // scores of O(1): float32 rounding ~1e-7 relative, as in test/gpu/attention.test.ts
        const tol = { atol: 2e-6, rtol: 1e-5 };
        return compare(['attention out', await gpu.readF32(out), want.out, tol], ['attention lse', await gpu.readF32(lse), want.lse, tol]);
      }),
  };
}

// Mean cross-entropy weights (w = -1/R, e = 0) with one masked row, at temperature 1.
function checkSoftmaxLogp(R: number, V: number): SelfTest {
  return {
    name: `softmax_logp R=${R} V=${V}`,
    run: (gpu) =>
      withScratch(gpu, async (s) => {
        const rand = mulberry32(R * 100 + V);
        const logits = randArray(rand, R * V, 4);
        const targets = Uint32Array.from({ length: R }, () => Math.floor(rand() * V));
        const w = new Float32Array(R).fill(-1 / R);
        w[R - 1] = 0;
        const e = new Float32Array(R);
        const out = { logp: s.zeros(R, 'selftest.logp'), entropy: s.zeros(R, 'selftest.entropy'), dlogits: s.zeros(R * V, 'selftest.dlogits') };
        const sm = await softmaxLogp(gpu, out, s.upload(logits, 'selftest.logits'), s.upload(targets, 'selftest.targets'), s.upload(w, 'selftest.w'), s.upload(e, 'selftest.e'), { R, V });
        gpu.run([sm.dispatch]);
        const want = { logp: new Float64Array(R), entropy: new Float64Array(R), dlogits: new Float64Array(R * V) };
        softmaxLogpRef(want, logits, targets, w, e, { R, V });
        // the tolerances of test/gpu/loss.test.ts
        const stats = { atol: 1e-5, rtol: 1e-6 };
        return compare(
          ['logp', await gpu.readF32(out.logp), want.logp, stats],
          ['entropy', await gpu.readF32(out.entropy), want.entropy, stats],
          ['dlogits', await gpu.readF32(out.dlogits), want.dlogits, { atol: 5e-7, rtol: 1e-5 }],
        );
      }),
  };
}

/** Sizes are small (each check well under a second on a software adapter) and not multiples of tiles. */
export const SELF_TESTS: SelfTest[] = [
  checkResidualForward(70_001),
  checkMatmulForward(37, 45, 50),
  checkMatmulForward(64, 64, 192),
  checkLayernormForward(33, 64),
  checkLayernormForward(9, 37),
  checkGeluForward(10_001),
  checkAttentionForward({ B: 2, T: 37, C: 64, NH: 4 }),
  checkSoftmaxLogp(19, 67),
  ...MODEL_SELF_TESTS,
];

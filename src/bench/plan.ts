// What `rlvr-lab bench` measures and how long it spends on each measurement. The full plan
// uses the shapes of the default policy at its training batch; the quick plan shrinks them so
// the whole run stays under a minute on a 2-core machine with SwiftShader (~2 GFLOP/s).

export interface MatmulCase {
  label: string;
  M: number;
  K: number;
  N: number;
  /** B stored [N,K] (the tied LM head reads wte [V,C] this way). */
  transB: boolean;
}

export interface BenchPlan {
  mode: 'quick' | 'full';
  matmul: MatmulCase[];
  /** Seconds each timed kernel measurement aims to fill (after warm-up and calibration). */
  targetS: number;
  /** Upper bound on repetitions of one kernel measurement. */
  maxReps: number;
  attention: { B: number; C: number; NH: number; Ts: number[] };
  /** one decode step's attention, by design: B rows at each count of cached positions − 1 */
  decodeAttention: { B: number; C: number; NH: number; Tmax: number; positions: number[] };
  train: { B: number; T: number; warmup: number; steps: number; tfjsWarmup: number; tfjsSteps: number; lr: number };
  /** sampling; `group`: rows per shared prompt in the prefill comparison */
  sample: { B: number; prompt: number; maxNew: number; reps: number; group: number };
  /** DATPO's branches: `group` continuations of `maxNew` tokens from each fork's prefix of `prompt` tokens, B rows */
  fork: { B: number; prompt: number; maxNew: number; reps: number; group: number };
  /** the side-by-side sampling in Chromium (ours, onnxruntime-web WebGPU and wasm): rows per case, greedy or T = 1 */
  ort: { cases: { B: number; greedy: boolean }[]; maxNew: number };
  /** one GRPO step of the shipped small policy (timed steps after a warm-up) and an evaluation */
  controlStep: { steps: number; eval: { problems: number; samples: number } };
  seed: number;
}

/** The layer matmuls of a GPT block of width C over BT rows, plus one square n×n×n. */
export function transformerMatmuls(BT: number, C: number, V: number, square: number): MatmulCase[] {
  const mk = (M: number, K: number, N: number, transB = false): MatmulCase => ({
    label: transB ? `[${M},${K}]x[${N},${K}]^T` : `[${M},${K}]x[${K},${N}]`,
    M, K, N, transB,
  });
  return [
    mk(BT, C, 3 * C), // fused qkv
    mk(BT, C, 4 * C), // MLP up
    mk(BT, 4 * C, C), // MLP down
    mk(BT, C, V, true), // tied LM head: logits = x @ wte^T
    mk(square, square, square),
  ];
}

export function benchPlan(quick: boolean): BenchPlan {
  if (quick) {
    return {
      mode: 'quick',
      matmul: transformerMatmuls(512, 64, 64, 256),
      targetS: 0.25,
      maxReps: 50,
      attention: { B: 4, C: 64, NH: 2, Ts: [64, 128, 256] },
      decodeAttention: { B: 64, C: 64, NH: 2, Tmax: 128, positions: [32, 96] },
      train: { B: 4, T: 32, warmup: 1, steps: 2, tfjsWarmup: 1, tfjsSteps: 1, lr: 3e-3 },
      sample: { B: 64, prompt: 8, maxNew: 16, reps: 4, group: 8 },
      fork: { B: 64, prompt: 48, maxNew: 24, reps: 2, group: 4 },
      ort: { cases: [{ B: 1, greedy: true }, { B: 8, greedy: true }, { B: 64, greedy: true }, { B: 64, greedy: false }], maxNew: 16 },
      controlStep: { steps: 2, eval: { problems: 8, samples: 8 } },
      seed: 1234,
    };
  }
  return {
    mode: 'full',
    matmul: transformerMatmuls(2048, 64, 64, 1024),
    targetS: 2,
    maxReps: 500,
    attention: { B: 4, C: 64, NH: 2, Ts: [64, 128, 256] },
    decodeAttention: { B: 64, C: 64, NH: 2, Tmax: 128, positions: [32, 96] },
    train: { B: 16, T: 64, warmup: 3, steps: 10, tfjsWarmup: 2, tfjsSteps: 3, lr: 3e-3 },
    sample: { B: 64, prompt: 8, maxNew: 56, reps: 3, group: 8 },
    fork: { B: 64, prompt: 48, maxNew: 24, reps: 3, group: 4 },
    ort: { cases: [1, 8, 64, 256].flatMap((B) => [{ B, greedy: true }, { B, greedy: false }]), maxNew: 48 },
    controlStep: { steps: 3, eval: { problems: 32, samples: 64 } },
    seed: 1234,
  };
}

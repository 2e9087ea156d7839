// A synthetic grid for the explorer's figure in `npm run bench` (§6 of issue 26): `runs` runs in
// arms of `seeds`, `steps` steps, `metrics` step metrics (the GRPO charts' keys first), with
// evaluations at the start and the end; seeded, so every bench draws the same data.
import { CONTROL_LOOP } from '../loops/registry';
import { mulberry32 } from '../util/rng';
import { knobText } from './grid';
import { ABLATION_FORMAT, ABLATION_VERSION, SWEEP_FORMAT, SWEEP_VERSION, type Sweep, type SweepArm, type SweepEval } from './format';

const KEYS = ['reward', 'entropy/solve', 'entropy/all', 'completions/mean_length', 'clip_ratio/region_mean', 'kl', 'frac_reward_zero_std', 'grad_norm', 'lr', 'tokens/generated'];

export function syntheticSweep(runs = 48, steps = 300, metrics = 20, seeds = 4): Sweep {
  const rng = mulberry32(26);
  const keys = Array.from({ length: metrics }, (_, i) => KEYS[i] ?? `synthetic/metric_${i}`);
  const nArms = Math.max(1, Math.round(runs / seeds));
  const problems = 50, n = 16;
  const evalAt = (step: number, p: number): SweepEval => {
    const correct = Array.from({ length: problems }, () => Math.min(n, Math.max(0, Math.round(n * (p + (rng() - 0.5) * 0.6)))));
    const passAtK: Record<string, number> = {};
    for (const k of [1, 2, 4, 8, 16]) passAtK[String(k)] = Math.min(1, p * (1 + Math.log2(k) * 0.25));
    return { type: 'eval', step, set: 'eval-mixed', passAtK, majAtK: { '1': p, '4': p * 1.05, '16': p * 1.1 }, meanEntropy: 1, n, correct };
  };
  const arms: SweepArm[] = Array.from({ length: nArms }, (_, a) => {
    const lr = 1e-5 * (a + 1);
    const results = Array.from({ length: seeds }, (_, s) => {
      let tokens = 0;
      const cols: Record<string, (number | null)[]> = Object.fromEntries(keys.map((k) => [k, [] as (number | null)[]]));
      const seconds: number[] = [], tok: number[] = [], step: number[] = [];
      for (let i = 1; i <= steps; i++) {
        step.push(i);
        seconds.push(1 + rng() * 0.2);
        const gen = 900 + rng() * 200;
        tokens += gen;
        tok.push(tokens);
        keys.forEach((k, j) => cols[k].push(k === 'tokens/generated' ? gen : Math.tanh((i / steps) * (1 + a * 0.1)) * (j + 1) * 0.1 + (rng() - 0.5) * 0.05));
      }
      const p = 0.3 + a * 0.01;
      return { seed: s + 1, start: evalAt(0, 0.3), end: evalAt(steps, p), steps, generatedTokens: tokens, seconds: seconds.reduce((x, y) => x + y, 0), report: {}, series: { step, seconds, tokens: tok, metrics: cols }, evals: [evalAt(0, 0.3), evalAt(steps, p)] };
    });
    return { id: `arm${a + 1}`, label: `lr ${knobText(lr)}`, knobs: { lr }, ablation: { format: ABLATION_FORMAT, version: ABLATION_VERSION, loop: CONTROL_LOOP, base: 'small', config: { lr, steps }, partial: false, results } };
  });
  return { format: SWEEP_FORMAT, version: SWEEP_VERSION, title: `synthetic: ${runs} runs × ${steps} steps × ${metrics} metrics`, curvesRecorded: true, arms };
}

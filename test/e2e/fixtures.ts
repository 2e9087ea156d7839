// Runs as the page exports them, for e2e tests that need a finished run without training one.
import type { RunStatus } from '../../src/lab/protocol';
import { validateGrpoConfig } from '../../src/loops/grpo/config';
import { runFile } from '../../src/state/files/exportRun';
import { appendChunk, EMPTY_RUN_DATA } from '../../src/state/runData';

/**
 * A finished 3-step run as the page exports it; `lr`: the learning rate each step reported (a
 * change is a live knob change), `evalSteps`: the steps it was evaluated at.
 */
export function runJson(seed = 9, opts: { lr?: number[]; evalSteps?: number[] } = {}): string {
  const lr = opts.lr ?? [1e-4, 1e-4, 1e-4];
  const evalSteps = opts.evalSteps ?? [0, 3];
  const evalAt = (step: number, p: number) => ({ type: 'eval' as const, step, set: 'eval-mixed', passAtK: { '1': p, '2': p + 0.1, '4': p + 0.2 }, avgAtK: { '1': p }, majAtK: { '1': p }, meanEntropy: 1.2, meanLength: 10, histogram: [3, 1, 0, 1] });
  const data = appendChunk(EMPTY_RUN_DATA, {
    step: [1, 2, 3], seconds: [2, 2, 2], keys: ['reward', 'entropy/solve', 'lr'], metrics: [0.2, 1.5, lr[0], 0.35, 1.4, lr[1], 0.5, 1.3, lr[2]],
    samples: [{ type: 'samples', step: 3, samples: [{ prompt: '3+4', response: '3+4=7;#7', reward: 1, entropy: [0.4, 0.2] }] }],
    evals: evalSteps.map((step) => evalAt(step, 0.1 + step / 15)),
  });
  const status: RunStatus = { state: 'done', step: 3, totalSteps: 3, stepsPerS: 0.5, etaS: 0, error: null };
  const config = validateGrpoConfig({ steps: 3, seed, lr: lr[0] });
  return runFile({ id: `elsewhere-${seed}`, index: 7, label: '#7 GRPO · small', diff: '', loop: 'grpo', policy: 'small', config, createdAt: Date.UTC(2025, 0, 2), status, data }, 'json').text;
}

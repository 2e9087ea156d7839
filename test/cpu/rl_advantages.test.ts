// Advantage estimators against numbers worked out by hand.
import { describe, expect, it } from 'vitest';
import { expectClose } from '../helpers/tolerance';
import { assignAdvantages, computeAdvantages, std } from '../../src/rl/advantages';
import type { Trajectory } from '../../src/rl/trajectory';
import type { Role } from '../../src/world/tokenizer';

const traj = (role: Role, groupId: number, reward: number, advantage?: number): Trajectory => ({
  role, groupId, reward, advantage, promptTokens: [1], responseTokens: [2], lossMask: [1], oldLogp: [-1], entropy: [0.5], truncated: false,
});

// group (solve, 0): rewards 1 1 1 5 → mean 2, deviations −1 −1 −1 3, Σd² = 12
//   Bessel std = √(12/3) = 2, population std = √(12/4) = √3
// group (solve, 1): rewards 0 2 4 → mean 2, deviations −2 0 2, Σd² = 8; Bessel std = 2
// group (vary, 0): same groupId as the first solve group, rewards 0 1 → mean 0.5, Bessel std √0.5
// group (vary, 7): a single trajectory → A = 0
const batch = [
  traj('solve', 0, 1), traj('solve', 0, 1), traj('solve', 0, 1), traj('solve', 0, 5),
  traj('solve', 1, 0), traj('solve', 1, 2), traj('solve', 1, 4),
  traj('vary', 0, 0), traj('vary', 0, 1),
  traj('vary', 7, 1),
];
const eps = 1e-6;

describe('a group of one response', () => {
  it('gets A = 0 by default (no baseline), or veRL\'s A = r with mean 0 and std 1', () => {
    const lone = [traj('solve', 0, 1), traj('solve', 1, 0), traj('solve', 1, 1)];
    expect(computeAdvantages(lone, { estimator: 'group_std', eps, bessel: true })[0]).toBe(0);
    expect(computeAdvantages(lone, { estimator: 'group_std', eps, bessel: true, singleton: 'verl' })[0]).toBeCloseTo(1 / (1 + eps), 15);
    expect(computeAdvantages(lone, { estimator: 'none', eps, bessel: true, singleton: 'verl' })[0]).toBe(1);
    // groups of two or more are unaffected
    const a = computeAdvantages(lone, { estimator: 'none', eps, bessel: true, singleton: 'verl' });
    expect([a[1], a[2]]).toEqual([-0.5, 0.5]);
    expect(assignAdvantages(lone, { advantage: 'group_std', advEps: eps, bessel: true, singletonAdvantage: 'verl' })[0].advantage).toBeCloseTo(1 / (1 + eps), 15);
  });
});

describe('advantage estimators', () => {
  it('group_std with Bessel: (r − mean_g)/(std_g + ε), never pooled across roles', () => {
    const a = computeAdvantages(batch, { estimator: 'group_std', eps, bessel: true });
    const s = Math.SQRT1_2; // std of (0, 1) with n − 1
    const want = [-1 / (2 + eps), -1 / (2 + eps), -1 / (2 + eps), 3 / (2 + eps), -2 / (2 + eps), 0, 2 / (2 + eps), -0.5 / (s + eps), 0.5 / (s + eps), 0];
    expectClose('A', a, want, { atol: 1e-15, rtol: 1e-14 });
    // the vary group with groupId 0 did not see the solve rewards: its mean is 0.5, not 1.5
    expect(a[7] + a[8]).toBeCloseTo(0, 14);
  });

  it('group_std without Bessel uses the population std', () => {
    const a = computeAdvantages(batch.slice(0, 4), { estimator: 'group_std', eps: 1e-4, bessel: false });
    const s = Math.sqrt(3);
    expectClose('A', a, [-1 / (s + 1e-4), -1 / (s + 1e-4), -1 / (s + 1e-4), 3 / (s + 1e-4)], { atol: 1e-15, rtol: 1e-14 });
  });

  it('a group with equal rewards or of size 1 gets A = 0', () => {
    const a = computeAdvantages([traj('solve', 3, 1), traj('solve', 3, 1), traj('teach', 4, 0.7)], { estimator: 'group_std', eps, bessel: true });
    expect(Array.from(a)).toEqual([0, 0, 0]);
  });

  it('none (Dr. GRPO): r − mean_g', () => {
    const a = computeAdvantages(batch, { estimator: 'none', eps, bessel: true });
    expect(Array.from(a)).toEqual([-1, -1, -1, 3, -2, 0, 2, -0.5, 0.5, 0]);
  });

  it('batch_std: r − mean_g over the std of the role\'s rewards in the batch', () => {
    // solve rewards 1 1 1 5 0 2 4: mean 2, Σd² = 1+1+1+9+4+0+4 = 20, Bessel std √(20/6)
    // vary rewards 0 1 1: mean 2/3, Σd² = 4/9+1/9+1/9 = 2/3, Bessel std √(1/3)
    const a = computeAdvantages(batch, { estimator: 'batch_std', eps, bessel: true });
    const ss = Math.sqrt(20 / 6) + eps;
    const sv = Math.sqrt(1 / 3) + eps;
    const want = [-1 / ss, -1 / ss, -1 / ss, 3 / ss, -2 / ss, 0, 2 / ss, -0.5 / sv, 0.5 / sv, 0];
    expectClose('A', a, want, { atol: 1e-15, rtol: 1e-14 });
  });

  it('external keeps the loop\'s advantages and rejects a missing one', () => {
    const given = [traj('solve', 0, 1, 0.25), traj('solve', 0, 0, -0.75)];
    const out = assignAdvantages(given, { advantage: 'external', advEps: eps, bessel: true });
    expect(out.map((t) => t.advantage)).toEqual([0.25, -0.75]);
    expect(() => assignAdvantages([...given, traj('solve', 1, 1)], { advantage: 'external', advEps: eps, bessel: true })).toThrow(/trajectory 2 .*supplied none/);
    expect(() => computeAdvantages(given, { estimator: 'external', eps, bessel: true })).toThrow(/assignAdvantages/);
  });

  it('assignAdvantages copies (the input is not changed) and rejects non-finite rewards', () => {
    const input = batch.slice(4, 7);
    const out = assignAdvantages(input, { advantage: 'none', advEps: eps, bessel: true });
    expect(out.map((t) => t.advantage)).toEqual([-2, 0, 2]);
    expect(input.every((t) => t.advantage === undefined)).toBe(true);
    expect(() => computeAdvantages([traj('solve', 0, NaN)], { estimator: 'none', eps, bessel: true })).toThrow(/reward NaN is not finite/);
  });

  it('std of fewer than two values is 0', () => {
    expect(std([3], true)).toBe(0);
    expect(std([], false)).toBe(0);
    expect(std([0, 2, 4], true)).toBe(2);
  });
});

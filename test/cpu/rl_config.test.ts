// The RL core's config: paper defaults, presets, and validator messages that say what to change.
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_RL_CORE, RL_CORE_FIELDS, RL_CORE_PRESETS, diffFromDefaults, pgHyperOf, resolveRlConfig, validateRlConfig, type RlCorePresetName,
} from '../../src/rl/config';

describe('RL core config', () => {
  it('defaults are the LOOPS.md §0 values', () => {
    expect(DEFAULT_RL_CORE).toEqual({
      advantage: 'group_std', advEps: 1e-6, bessel: true, singletonAdvantage: 'zero', clipLow: 0.2, clipHigh: 0.28, dualClipC: null, ratioLevel: 'token',
      aggregation: 'token_mean', constantNormTokens: null, seqMeanCount: 'all', klType: 'k3', beta: 0, klClamp: 10, entCoef: 0, epochs: 1, miniBatches: 1,
      filterZeroVariance: false, dynamicSampling: false, maxGenBatches: 10, maskTruncated: false, maxGradNorm: 1.0, temperature: 1.0,
    });
    for (const [k, f] of Object.entries(RL_CORE_FIELDS)) {
      expect(f.help.length, k).toBeGreaterThan(10);
      expect(f.paper.length, k).toBeGreaterThan(0);
    }
  });

  it.each(Object.keys(RL_CORE_PRESETS) as RlCorePresetName[])('preset %s is valid', (name) => {
    const c = resolveRlConfig(name);
    expect(diffFromDefaults(c)).toEqual(Object.fromEntries(Object.entries(RL_CORE_PRESETS[name]).filter(([k, v]) => DEFAULT_RL_CORE[k as keyof typeof DEFAULT_RL_CORE] !== v)));
  });

  it('presets carry the papers\' values', () => {
    expect(resolveRlConfig('svs').dualClipC).toBe(3);
    expect(resolveRlConfig('opensir')).toMatchObject({ advEps: 1e-4, clipHigh: 0.2, beta: 1e-4, klType: 'k3' });
    expect(resolveRlConfig('dr_grpo')).toMatchObject({ advantage: 'none', aggregation: 'constant_norm' });
    expect(resolveRlConfig('dapo')).toMatchObject({ dynamicSampling: true, filterZeroVariance: true, maxGenBatches: 10 });
    expect(resolveRlConfig('datpo')).toMatchObject({ advantage: 'external', epochs: 2, clipHigh: 0.2 });
    expect(resolveRlConfig('dapo', { maxGenBatches: 4 }).maxGenBatches).toBe(4);
  });

  it('rejects an unknown key and suggests the closest name', () => {
    expect(() => validateRlConfig({ clip_high: 0.3 })).toThrow('rl: unknown key "clip_high" (did you mean "clipHigh"?); allowed keys: advantage, advEps');
    expect(() => validateRlConfig({ epoch: 2 })).toThrow(/unknown key "epoch" \(did you mean "epochs"\?\)/);
    expect(() => validateRlConfig({ learningRate: 1e-3 })).toThrow(/unknown key "learningRate"; allowed keys/);
    expect(() => resolveRlConfig('dapoo' as RlCorePresetName)).toThrow('unknown RL preset "dapoo" (did you mean "dapo"?)');
  });

  it('rejects bad values with the rule to follow', () => {
    expect(() => validateRlConfig({ aggregation: 'token-mean' })).toThrow('rl.aggregation = "token-mean": must be one of token_mean, seq_mean_token_mean, seq_mean_token_sum, constant_norm (did you mean "token_mean"?)');
    expect(() => validateRlConfig({ clipLow: 1 })).toThrow('rl.clipLow = 1: must be < 1');
    expect(() => validateRlConfig({ dualClipC: 1 })).toThrow('rl.dualClipC = 1: must be > 1 or null');
    expect(() => validateRlConfig({ advEps: 0 })).toThrow('rl.advEps = 0: must be > 0');
    expect(() => validateRlConfig({ epochs: 1.5 })).toThrow('rl.epochs = 1.5: must be an integer');
    expect(() => validateRlConfig({ beta: -0.1 })).toThrow('rl.beta = -0.1: must be ≥ 0');
    expect(() => validateRlConfig({ bessel: 'yes' })).toThrow('rl.bessel = "yes": must be true or false');
    expect(() => validateRlConfig({ temperature: 0 })).toThrow('rl.temperature = 0: must be > 0');
    expect(() => validateRlConfig([])).toThrow(/expected an object/);
  });

  it('rejects inconsistent settings and says what to change', () => {
    expect(() => validateRlConfig({ dynamicSampling: true })).toThrow(/needs filterZeroVariance: true; set filterZeroVariance to true or dynamicSampling to false/);
  });

  it('maps to the loss kernel\'s scalars; β without a reference is an error', () => {
    const c = resolveRlConfig('opensir');
    expect(pgHyperOf(c, true)).toEqual({ epsLow: 0.2, epsHigh: 0.2, dualClipC: null, klType: 'k3', beta: 1e-4, klClamp: 10, entCoef: 0, ratioLevel: 'token' });
    expect(() => pgHyperOf(c, false)).toThrow(/compute refLogp or set beta to 0/);
    expect(pgHyperOf(DEFAULT_RL_CORE, false).klType).toBeNull();
  });

  it('the resolved config is frozen', () => {
    expect(Object.isFrozen(resolveRlConfig('grpo'))).toBe(true);
  });
});

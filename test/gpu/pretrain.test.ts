// Pretraining is a pure function of (config, seed): a run stopped and resumed from its saved
// state (parameters, AdamW moments, step) ends bit-identical to an uninterrupted one.
import { describe, expect, it } from 'vitest';
import { testGpu } from '../helpers/gpu';
import { GPT_PRESETS } from '../../src/model/config';
import { buildTensorTable } from '../../src/model/params';
import { initParams } from '../../src/model/init';
import { createPretrainModel, DEFAULT_PRETRAIN, freshState, pretrain, type PretrainConfig, type PretrainState } from '../../src/pretrain/run';
import { maxOpsAt, pretrainBatch, promptLossEnd, DEFAULT_MIX } from '../../src/pretrain/data';
import { decode, EOS, PAD, SEP } from '../../src/world/index';

const cfg = GPT_PRESETS.tiny;
const table = buildTensorTable(cfg);
const pc: PretrainConfig = { ...DEFAULT_PRETRAIN, seed: 5, steps: 6, batchSize: 4, seqLen: 64, evalEvery: 3, evalBatches: 1, patience: 0, warmup: 2 };

describe('pretraining', () => {
  it('batches depend only on (seed, step); loss only on response tokens', () => {
    const a = pretrainBatch(5, 17, 4, 64, DEFAULT_MIX, 3);
    const b = pretrainBatch(5, 17, 4, 64, DEFAULT_MIX, 3);
    const c = pretrainBatch(5, 18, 4, 64, DEFAULT_MIX, 3);
    expect(Array.from(a.tokens)).toEqual(Array.from(b.tokens));
    expect(Array.from(a.tokens)).not.toEqual(Array.from(c.tokens));
    const wsum = a.w.reduce((s, x) => s + x, 0);
    expect(wsum).toBeCloseTo(-1, 5);
    expect(a.w.filter((x) => x !== 0).length).toBe(a.responseTokens);
    expect([0, 0.1, 0.2, 0.3, 1].map((p) => maxOpsAt(p, { finalMaxOps: 4, rampFraction: 0.3 }))).toEqual([1, 2, 3, 4, 4]);
  });

  it('packed rows hold whole examples back to back, each decodable, loss only on their responses', () => {
    const B = 6, T = 64;
    const packed = pretrainBatch(9, 3, B, T, DEFAULT_MIX, 2);
    const single = pretrainBatch(9, 3, B, T, DEFAULT_MIX, 2, false);
    expect(single.roles.length).toBe(B);
    expect(packed.roles.length).toBeGreaterThan(B);
    expect(packed.responseTokens).toBeGreaterThan(single.responseTokens);
    for (let b = 0; b < B; b++) {
      // targets are the inputs shifted by one wherever both are inside the row
      for (let t = 0; t + 1 < T; t++) if (packed.targets[b * T + t] !== PAD) expect(packed.targets[b * T + t]).toBe(packed.tokens[b * T + t + 1]);
      // every loss position predicts a response token: after a role's prompt and before its EOS
      const text = decode(Array.from(packed.tokens.subarray(b * T, (b + 1) * T)).filter((x) => x !== PAD));
      expect(text.length).toBeGreaterThan(0);
      for (let t = 0; t < T; t++) if (packed.w[b * T + t] !== 0) expect(packed.targets[b * T + t]).not.toBe(PAD);
    }
    // the example after an EOS starts the next prompt, and that prediction carries no loss
    let boundaries = 0;
    for (let i = 0; i < B * T; i++) if (packed.tokens[i] === EOS && packed.targets[i] !== PAD) {
      boundaries++;
      expect(packed.w[i]).toBe(0);
    }
    expect(boundaries).toBeGreaterThan(0);
  });

  it('the prompt loss weighs prompt tokens after the role token, relative to response tokens', () => {
    const B = 4, T = 64;
    const off = pretrainBatch(9, 3, B, T, DEFAULT_MIX, 2, true, 0);
    const half = pretrainBatch(9, 3, B, T, DEFAULT_MIX, 2, true, 0.5);
    expect(Array.from(half.tokens)).toEqual(Array.from(off.tokens));
    expect(half.w.reduce((s, x) => s + x, 0)).toBeCloseTo(-1, 5);
    const responseW = -off.w.find((x) => x !== 0)!;
    let promptTargets = 0, responseTargets = 0, halfResponseW = 0;
    for (let i = 0; i < B * T; i++) {
      if (off.w[i] !== 0) {
        responseTargets++;
        halfResponseW = -half.w[i];
      } else if (half.w[i] !== 0) {
        promptTargets++;
        // never the role token (predicted from <bos>) nor the next example's <bos> (predicted from EOS)
        expect(off.tokens[i]).not.toBe(EOS);
        expect(decode([off.tokens[i]])).not.toBe('<bos>');
      }
    }
    expect(responseW).toBeCloseTo(1 / off.responseTokens, 8);
    expect(promptTargets).toBeGreaterThan(0);
    for (let i = 0; i < B * T; i++) if (off.w[i] === 0 && half.w[i] !== 0) expect(-half.w[i]).toBeCloseTo(halfResponseW / 2, 8);
    expect(responseTargets * halfResponseW + promptTargets * (halfResponseW / 2)).toBeCloseTo(1, 5);
    expect(() => pretrainBatch(9, 3, B, T, DEFAULT_MIX, 2, true, 1.5)).toThrow(/promptWeight/);
  });

  it("a propose prompt's earlier proposals carry no prompt loss; its target does", () => {
    const B = 8, T = 128;
    const only = { solve: 0, vary: 0, challenge: 0, teach: 0, propose: 1 };
    const off = pretrainBatch(4, 2, B, T, only, 3, true, 0);
    const on = pretrainBatch(4, 2, B, T, only, 3, true, 1);
    const BOS_ID = on.tokens[0];
    expect(decode([BOS_ID])).toBe('<bos>');
    let targetLoss = 0, earlierTokens = 0, examples = 0;
    for (let b = 0; b < B; b++) {
      for (let s = b * T; s < (b + 1) * T; s++) {
        if (on.tokens[s] !== BOS_ID) continue;
        // the prompt runs from <bos> at s to the position r whose target is the response's first token
        let r = s;
        while (r < (b + 1) * T && off.w[r] === 0) r++;
        if (r === (b + 1) * T) continue; // the row ends inside this prompt
        examples++;
        const firstSep = on.tokens.subarray(s, r + 1).indexOf(SEP) + s;
        expect(firstSep).toBeGreaterThan(s + 1);
        expect(on.w[s]).toBe(0); // the role token
        for (let j = s + 1; j < r; j++) {
          // position j predicts tokens[j + 1]: the target and its <sep> carry loss, earlier proposals none
          if (j + 1 <= firstSep) {
            expect(on.w[j]).not.toBe(0);
            targetLoss++;
          } else {
            expect(on.w[j]).toBe(0);
            earlierTokens++;
          }
        }
      }
    }
    expect(examples).toBeGreaterThan(B);
    expect(targetLoss).toBeGreaterThan(0);
    expect(earlierTokens).toBeGreaterThan(0);
    expect(promptLossEnd([1, 2, SEP, 3, SEP])).toBe(3);
    expect(promptLossEnd([1, 2, 3])).toBe(3);
  });

  it('a resumed run ends bit-identical to an uninterrupted one', async () => {
    const gpu = await testGpu();
    const init = initParams(cfg, table, 5);
    const full = await createPretrainModel(gpu, cfg, init, pc);
    const fullState = await pretrain(full, pc, freshState());
    expect(fullState.step).toBe(6);
    const want = await full.readParams();

    // first half: stop at the evaluation after step 3, keeping what the CLI would save
    let saved: { params: Float32Array; opt: Awaited<ReturnType<typeof full.readOptimiserState>>; state: PretrainState } | null = null;
    const ac = new AbortController();
    const first = await createPretrainModel(gpu, cfg, init, pc);
    await pretrain(first, pc, freshState(), {
      signal: ac.signal,
      save: async (m, s) => {
        saved = { params: await m.readParams(), opt: await m.readOptimiserState(), state: structuredClone(s) };
        ac.abort();
      },
    });
    expect(saved!.state.step).toBe(3);
    const second = await createPretrainModel(gpu, cfg, saved!.params, pc);
    second.loadOptimiserState(saved!.opt);
    const resumedState = await pretrain(second, pc, saved!.state);
    expect(resumedState.step).toBe(6);
    expect(Array.from(await second.readParams())).toEqual(Array.from(want));
    expect(resumedState.history.map((h) => h.evalLoss)).toEqual(fullState.history.map((h) => h.evalLoss));
  });
});

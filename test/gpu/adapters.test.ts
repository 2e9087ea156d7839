// The engine's LoRA adapter sets (TTSP's proposer and solver over one frozen base): the base is
// bit-identical after training, each set has its own optimiser state (training one leaves the
// other's values and moments untouched), rollouts sample the base with their role's set merged
// in (the same tokens and log-probs as a plain engine on base + (α/r)·A@B merged on the host in
// float64), the evaluation samples the solve set or, asked, the frozen base, and saved states
// load back.
import { describe, expect, it } from 'vitest';
import { testGpu } from '../helpers/gpu';
import { expectClose } from '../helpers/tolerance';
import { loadCheckpointDir } from '../../src/model/checkpoint_node';
import { createWebGpuEngine } from '../../src/engines/webgpu/engine';
import { DEFAULT_RL_CORE } from '../../src/rl/config';
import { buildTensorTable, tensor } from '../../src/model/params';
import { buildLoraTable, layerAdapters, specTargets, targetDims, type LoraSpec } from '../../src/model/lora';
import { EOS, proposePrompt, solvePrompt } from '../../src/world/index';
import type { AdapterSetInit, LoopEngine, RewardFn, TrainSettings } from '../../src/loops/engine';
import type { GPTConfig } from '../../src/model/config';
import type { Role } from '../../src/world/index';

const PROPOSER: LoraSpec = { name: 'proposer', rank: 4, alpha: 8 };
// the solver adapts a subset of the projections: the merge and the training touch only those
const SOLVER: LoraSpec = { name: 'solver', rank: 2, alpha: 2, targets: ['mlp.c_fc', 'attn.c_proj'] };
const SETS: AdapterSetInit[] = [{ spec: PROPOSER, roles: ['propose'], seed: 1 }, { spec: SOLVER, roles: ['solve'], seed: 2 }];
// an entropy bonus makes every update move the adapters whatever the rewards
const SETTINGS: TrainSettings = { rl: { ...DEFAULT_RL_CORE, entCoef: 0.05 }, lr: 1e-2, weightDecay: 0, maxNewTokens: 12 };
/** a reward that differs within a group on a random policy: the response's length parity */
const parity: RewardFn<null> = (_p, r) => ({ reward: r.length % 2, text: '' });

const sampling = (role: Role, seed: number) => ({ groupSize: 4, role, groupIdBase: 0, seed, temperature: 1, topK: 0, topP: 1, eosToken: EOS, maxNew: 12 });

async function rolloutOf(engine: LoopEngine, role: Role, seed: number) {
  const prompt = role === 'propose' ? proposePrompt('3+4', ['2*5']) : solvePrompt('3+4');
  return engine.rollout([{ prompt, payload: null }, { prompt, payload: null }], sampling(role, seed), parity);
}

/** base + (α/r)·A@B on the four adapted projections, in float64, rounded to f32 at the end. */
function mergeOnHost(cfg: GPTConfig, base: Float32Array, spec: LoraSpec, adapter: Float32Array): Float32Array {
  const table = buildTensorTable(cfg), atable = buildLoraTable(cfg, spec);
  const out = base.slice();
  const s = spec.alpha / spec.rank;
  for (let l = 0; l < cfg.nLayer; l++) {
    const pairs = layerAdapters(atable, l);
    for (const t of specTargets(spec)) {
      const [K, N] = targetDims(cfg, t);
      const w = tensor(table, `h.${l}.${t}.weight`);
      const pair = pairs[t]!;
      for (let k = 0; k < K; k++) {
        for (let n = 0; n < N; n++) {
          let acc = 0;
          for (let r = 0; r < spec.rank; r++) acc += adapter[pair.a.offset + k * spec.rank + r] * adapter[pair.b.offset + r * N + n];
          out[w.offset + k * N + n] = base[w.offset + k * N + n] + s * acc;
        }
      }
    }
  }
  return out;
}

const same = (a: Float32Array, b: Float32Array): boolean => a.length === b.length && a.every((x, i) => Object.is(x, b[i]));

describe('LoRA adapter sets in the WebGPU engine', () => {
  it('train one set at a time over a frozen base, each with its own optimiser state, and sample with the role\'s set merged', async () => {
    const gpu = await testGpu();
    const tiny = await loadCheckpointDir('public/models/tiny');
    const init = { cfg: tiny.cfg, params: tiny.params, reference: tiny.params, trainRows: 8, decodeBatch: 8, adapters: SETS };
    const engine = await createWebGpuEngine(gpu, init, SETTINGS);
    try {
      expect(engine.adapters?.names).toEqual(['proposer', 'solver']);
      const start = await engine.adapters!.read();
      // B = 0 at the start: every set is the base, so both roles' rollouts sample the base
      expect(start.every((s) => s.optimiser.step === 0 && s.optimiser.m.every((x) => x === 0))).toBe(true);

      // ---- train the proposer only
      const proposals = await rolloutOf(engine, 'propose', 11);
      const st = await engine.train(proposals);
      expect(st.optimiserSteps).toBe(1);
      const afterP = await engine.adapters!.read();
      const [p1, s1] = afterP;
      expect(same(p1.params, start[0].params)).toBe(false);
      expect(p1.optimiser.step).toBe(1);
      expect(p1.optimiser.m.some((x) => x !== 0)).toBe(true);
      // the solver's values and moments are untouched
      expect(same(s1.params, start[1].params)).toBe(true);
      expect(s1.optimiser.step).toBe(0);
      expect(s1.optimiser.m.every((x) => x === 0) && s1.optimiser.v.every((x) => x === 0)).toBe(true);
      // the base is bit-identical
      expect(same(await engine.readParams(), tiny.params)).toBe(true);

      // ---- then the solver only: the proposer's state stays as it was
      await engine.train(await rolloutOf(engine, 'solve', 12));
      const [p2, s2] = await engine.adapters!.read();
      expect(same(p2.params, p1.params) && same(p2.optimiser.m, p1.optimiser.m) && same(p2.optimiser.v, p1.optimiser.v)).toBe(true);
      expect(p2.optimiser.step).toBe(1);
      expect(same(s2.params, s1.params)).toBe(false);
      expect(s2.optimiser.step).toBe(1);
      expect(same(await engine.readParams(), tiny.params)).toBe(true);

      // ---- a rollout samples base + the role's set: a plain engine on the host-merged weights gives the same
      for (const [role, spec, st2] of [['propose', PROPOSER, p2], ['solve', SOLVER, s2]] as const) {
        const merged = mergeOnHost(tiny.cfg, tiny.params, spec, st2.params);
        const plain = await createWebGpuEngine(gpu, { ...init, params: merged, reference: merged, adapters: undefined }, SETTINGS);
        try {
          const a = await rolloutOf(engine, role, 21), b = await rolloutOf(plain, role, 21);
          expect(a.map((t) => t.responseTokens)).toEqual(b.map((t) => t.responseTokens));
          a.forEach((t, i) => expectClose(`${role} rollout ${i} log-probs`, Array.from(t.oldLogp), Array.from(b[i].oldLogp), { atol: 1e-5, rtol: 1e-5 }));
        } finally {
          plain.destroy();
        }
      }

      // ---- one update trains one set
      await expect(engine.train([...proposals, ...(await rolloutOf(engine, 'solve', 13))])).rejects.toThrow(/one adapter set/);

      // ---- the evaluation: the solve set, or the frozen base when asked
      const problems = [{ id: 0, text: '3+4', answer: 7 }, { id: 1, text: '2*5', answer: 10 }];
      const opts = { n: 4, ks: [1, 4], seed: 3, maxNew: 12 };
      const adapted = await engine.evaluate(problems, opts);
      const frozen = await engine.evaluate(problems, { ...opts, frozenBase: true });
      const plainBase = await createWebGpuEngine(gpu, { ...init, adapters: undefined }, SETTINGS);
      try {
        const ref = await plainBase.evaluate(problems, opts);
        expect(frozen.problems.map((p) => p.answers)).toEqual(ref.problems.map((p) => p.answers));
        expect(frozen.meanEntropy).toBe(ref.meanEntropy);
        expect(adapted.meanEntropy).not.toBe(ref.meanEntropy);
      } finally {
        plainBase.destroy();
      }

      // ---- saved states load back (a resumed run)
      engine.adapters!.load(start);
      const back = await engine.adapters!.read();
      expect(back.every((s, i) => same(s.params, start[i].params) && s.optimiser.step === 0)).toBe(true);
      expect(() => engine.adapters!.load([start[0]])).toThrow(/no saved state for adapter set "solver"/);
    } finally {
      engine.destroy();
    }
  });

  it('refuses sets that share a role or a name', async () => {
    const gpu = await testGpu();
    const tiny = await loadCheckpointDir('public/models/tiny');
    const init = { cfg: tiny.cfg, params: tiny.params, reference: tiny.params, trainRows: 4, decodeBatch: 4 };
    await expect(createWebGpuEngine(gpu, { ...init, adapters: [SETS[0], { spec: SOLVER, roles: ['propose'], seed: 1 }] }, SETTINGS)).rejects.toThrow(/role propose is served by both/);
    await expect(createWebGpuEngine(gpu, { ...init, adapters: [SETS[0], { ...SETS[1], spec: { ...SOLVER, name: 'proposer' } }] }, SETTINGS)).rejects.toThrow(/two adapter sets are named "proposer"/);
  });
});

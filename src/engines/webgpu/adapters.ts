// The WebGPU engine with LoRA adapter sets (TTSP's proposer and solver): one frozen base buffer,
// one PolicyTrainer per set over that shared base (its own adapter buffer, gradients and AdamW
// moments), and one KV-cache decoder over a "sampling" copy of the base into which the set a
// rollout needs is merged first, W' = W + (α/r)·A@B on the four adapted projections of every
// block (the rest of the copy never changes: the base is frozen). A rollout or an update names
// its set through its role; the held-out evaluation samples with the set that serves `solve`
// (or the frozen base, EvalOptions.frozenBase).
import type { Dispatch, Gpu } from '../../gpu/runtime';
import { view } from '../../gpu/runtime';
import { matmul } from '../../gpu/ops/matmul';
import { residualForward } from '../../gpu/ops/elementwise';
import { buildTensorTable, type TensorTable } from '../../model/params';
import { Decoder } from '../../model/decoder';
import { loraViews, paramViews } from '../../model/buffers';
import { buildLoraTable, initLora, LORA_TARGETS, loraScale, sameShape, specTargets, targetDims, type LoraTarget } from '../../model/lora';
import { fill } from '../../gpu/ops/layers';
import { PolicyTrainer, trainRowsFor } from './trainer';
import { prepareUpdate, type TrainStats } from '../../rl/update';
import { FrozenPolicy } from './frozen_policy';
import { rollout } from '../../rl/rollout';
import { evaluateSet } from '../../eval/evaluate';
import type { Trajectory } from '../../rl/trajectory';
import type { AdapterSetInit, AdapterState, EngineInit, LoopEngine, TrainSettings } from '../../loops/engine';
import type { Role } from '../../world/index';

interface AdapterSet {
  name: string;
  roles: readonly Role[];
  /** constant_norm's L_max of its roles (null: the loop's) */
  maxNewTokens: number | null;
  trainer: PolicyTrainer;
  /** writes the sampling buffer's adapted weights from the base and this set */
  merge: Dispatch[];
}

/** The base weight each LoRA target adapts, in paramViews' names. */
const BASE_WEIGHT: Record<LoraTarget, 'qkvw' | 'attprojw' | 'fcw' | 'fcprojw'> = {
  'attn.c_attn': 'qkvw', 'attn.c_proj': 'attprojw', 'mlp.c_fc': 'fcw', 'mlp.c_proj': 'fcprojw',
};

function checkSets(sets: readonly AdapterSetInit[], cfg: EngineInit['cfg']): void {
  const names = new Set<string>();
  const roles = new Map<Role, string>();
  for (const s of sets) {
    if (s.spec.rank > cfg.nEmbd) throw new Error(`engine: adapter set "${s.spec.name}" has rank ${s.spec.rank}, more than the policy's width ${cfg.nEmbd}: lower the rank`);
    if (names.has(s.spec.name)) throw new Error(`engine: two adapter sets are named "${s.spec.name}"`);
    names.add(s.spec.name);
    if (s.roles.length === 0) throw new Error(`engine: adapter set "${s.spec.name}" serves no role`);
    for (const r of s.roles) {
      const other = roles.get(r);
      if (other) throw new Error(`engine: role ${r} is served by both adapter sets "${other}" and "${s.spec.name}"`);
      roles.set(r, s.spec.name);
    }
  }
}

export async function createAdapterEngine(gpu: Gpu, init: EngineInit, settings: TrainSettings): Promise<LoopEngine> {
  const { cfg } = init;
  const inits = init.adapters ?? [];
  if (inits.length === 0) throw new Error('engine: createAdapterEngine needs at least one adapter set');
  checkSets(inits, cfg);
  const table: TensorTable = buildTensorTable(cfg);
  if (init.params.length !== table.totalFloats) throw new Error(`engine: the base has ${init.params.length} floats, ${cfg.nLayer} layers of width ${cfg.nEmbd} need ${table.totalFloats}`);
  const mem = gpu.owner();
  const sets: AdapterSet[] = [];
  let decoder: Decoder | null = null;
  let reference: FrozenPolicy | null = null;
  const destroy = (): void => {
    decoder?.destroy();
    for (const s of sets) s.trainer.destroy();
    reference?.destroy();
    mem.destroy();
  };
  try {
    const base = mem.upload(init.params, 'base-params');
    // the decoder's parameters: the base with the current set merged into its adapted weights
    const sampling = mem.upload(init.params, 'sampling-params');
    const C = cfg.nEmbd;
    const delta = view(mem.createBuffer(4 * C * C * 4, 'lora-merge-delta'), 0, 4 * C * C);
    const B = paramViews(base, table, cfg.nLayer), S = paramViews(sampling, table, cfg.nLayer);
    const shape = { rows: trainRowsFor(gpu, init.trainRows), T: cfg.nPositions, maxNewTokens: settings.maxNewTokens };
    for (const s of inits) {
      const atable = buildLoraTable(cfg, s.spec);
      const values = s.init ?? initLora(atable, s.seed);
      if (values.length !== atable.totalFloats) throw new Error(`engine: adapter set "${s.spec.name}" has ${values.length} floats, rank ${s.spec.rank} needs ${atable.totalFloats}`);
      const trainer = await PolicyTrainer.create(gpu, cfg, init.params, settings.rl, shape, { adapter: { spec: s.spec, table: atable, init: values }, baseParams: base });
      sets.push({ name: s.spec.name, roles: s.roles, maxNewTokens: s.maxNewTokens ?? null, trainer, merge: [] });
      const A = loraViews(trainer.model.trainable, atable, cfg.nLayer);
      const R = s.spec.rank, scale = loraScale(s.spec);
      const merge: Dispatch[] = [];
      for (let l = 0; l < cfg.nLayer; l++) {
        // every projection is written: one the set does not adapt goes back to the base (another set may have changed it)
        for (const t of LORA_TARGETS) {
          const [K, N] = targetDims(cfg, t);
          const w = BASE_WEIGHT[t], ab = A[l][t];
          merge.push(
            ab ? await matmul(gpu, delta, ab.a, ab.b, null, { M: K, K: R, N }, { alpha: scale }) : await fill(gpu, delta, 0, K * N),
            await residualForward(gpu, S.layers[l][w], B.layers[l][w], delta, K * N),
          );
        }
      }
      sets[sets.length - 1].merge = merge;
    }
    decoder = await Decoder.create(gpu, cfg, table, sampling, { B: init.decodeBatch, Tmax: cfg.nPositions });
    const dec = decoder;
    /** the set whose weights the sampling buffer holds (null: none merged yet) */
    let merged: string | null = null;
    const setFor = (role: Role): AdapterSet => {
      const s = sets.find((x) => x.roles.includes(role));
      if (!s) throw new Error(`engine: no adapter set serves role ${role} (sets: ${sets.map((x) => `${x.name} → ${x.roles.join(', ')}`).join('; ')})`);
      return s;
    };
    const mergeFor = (s: AdapterSet): void => {
      if (merged === s.name) return;
      gpu.run(s.merge, `merge-${s.name}`);
      merged = s.name;
    };
    let current = settings;
    const configure = (st: TrainSettings): void => {
      current = st;
      for (const s of sets) {
        s.trainer.setRl(st.rl, s.maxNewTokens ?? st.maxNewTokens);
        s.trainer.model.setHyper({ lr: st.lr, weightDecay: st.weightDecay });
      }
      reference?.setTemperature(st.rl.temperature);
    };
    configure(settings);
    let klOn = false;
    const frozen = async (): Promise<FrozenPolicy> => (reference ??= await FrozenPolicy.create(gpu, cfg, init.reference, { rows: shape.rows, T: cfg.nPositions }, current.rl.temperature));
    const zeros = { m: new Float32Array(table.totalFloats), v: new Float32Array(table.totalFloats), step: 0 };
    const train = async (trajs: readonly Trajectory[]): Promise<TrainStats> => {
      const roles = [...new Set(trajs.map((t) => t.role))];
      const targets = [...new Set(roles.map((r) => setFor(r)))];
      if (targets.length > 1) throw new Error(`engine: one update trains one adapter set; roles ${roles.join(', ')} belong to ${targets.map((s) => s.name).join(' and ')}: train them apart`);
      if (targets.length === 0) return prepareUpdate([], current.rl).stats;
      const s = targets[0];
      klOn ||= current.rl.beta > 0;
      const stats = await s.trainer.train(klOn ? await (await frozen()).annotate(trajs) : trajs);
      if (merged === s.name) merged = null;
      return stats;
    };
    const adapters = {
      names: sets.map((s) => s.name),
      async read(): Promise<AdapterState[]> {
        return Promise.all(sets.map(async (s) => ({ spec: s.trainer.model.adapter!.spec, params: await s.trainer.model.readTrainable(), optimiser: await s.trainer.model.readOptimiserState() })));
      },
      load(states: readonly AdapterState[]): void {
        for (const s of sets) {
          const st = states.find((x) => x.spec.name === s.name);
          if (!st) throw new Error(`engine: no saved state for adapter set "${s.name}" (saved: ${states.map((x) => x.spec.name).join(', ') || 'none'})`);
          const spec = s.trainer.model.adapter!.spec;
          if (!sameShape(st.spec, spec)) throw new Error(`engine: saved adapter "${s.name}" has rank ${st.spec.rank}, α ${st.spec.alpha}, targets ${specTargets(st.spec).join(' ')}; the run's set has rank ${spec.rank}, α ${spec.alpha}, targets ${specTargets(spec).join(' ')}`);
          const n = s.trainer.model.adapter?.table.totalFloats ?? 0;
          if (st.params.length !== n) throw new Error(`engine: saved adapter "${s.name}" has ${st.params.length} floats, the set needs ${n}`);
          gpu.write(s.trainer.model.trainable, st.params);
          s.trainer.model.loadOptimiserState(st.optimiser);
        }
        merged = null;
      },
    };
    return {
      cfg,
      kind: 'webgpu',
      rollout(prompts, opts, reward) {
        mergeFor(setFor(opts.role));
        return rollout(dec, prompts, opts, reward);
      },
      train,
      configure,
      embed: async (seqs) => (await frozen()).embed(seqs),
      evaluate(problems, opts, onProgress) {
        if (!opts.frozenBase) mergeFor(setFor('solve'));
        return evaluateSet(gpu, { cfg, table, params: opts.frozenBase ? base : sampling }, problems, opts, onProgress);
      },
      readParams: () => gpu.readF32(view(base, 0, table.totalFloats)),
      // the base is frozen: it has no optimiser state (the adapter sets' are in `adapters`)
      readOptimiserState: async () => ({ m: zeros.m.slice(), v: zeros.v.slice(), step: 0 }),
      loadOptimiserState: (s) => {
        if (s.m.length !== table.totalFloats || s.v.length !== table.totalFloats) throw new Error(`engine: optimiser state has ${s.m.length} floats, the base ${table.totalFloats}`);
      },
      destroy,
      adapters,
    };
  } catch (e) {
    destroy();
    throw e;
  }
}

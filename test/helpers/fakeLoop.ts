// A loop and an engine with no model behind them, for the run manager's tests: the driver
// (src/loops/driver.ts) orders the events as it does for every loop (evaluation at the start;
// per step: step, samples, records, evaluation when due, checkpoint when due, boundary), while the
// step's metrics come from the test. The engine's "parameters" are filled with the last step
// done, so a checkpoint says which step it holds.
import { DEFAULT_RL_CORE } from '../../src/rl/config';
import { ConfigError } from '../../src/util/errors';
import type { BaseLoopConfig } from '../../src/loops/base_config';
import type { BodyResume, StepResult } from '../../src/loops/body';
import type { EngineInit, LoopEngine, TrainSettings } from '../../src/loops/engine';
import type { LoopDefinition } from '../../src/loops/spec';
import type { EvalResult } from '../../src/eval/evaluate';

const tick = () => new Promise((r) => setTimeout(r, 0));

export interface FakeSeen {
  /** what the engine was made from */
  init?: EngineInit;
  /** where the body was told to resume */
  resume?: BodyResume | null;
  /** every config the loop validated */
  configs: unknown[];
  /** "compute N" per step computed */
  log: string[];
  /** every configure() the engine got: the settings in force from then on */
  configured: TrainSettings[];
}

export interface FakeLoopOptions {
  evalEvery?: number;
  checkpointEvery?: number;
  samplesPerStep?: number;
  /** the step's metrics (default: reward = step) */
  metrics?: (step: number) => Record<string, number>;
  /** records of the step (default none) */
  records?: (step: number) => StepResult['records'];
  /** replaces the step's work (it may wait or throw); its result's metrics stand */
  step?: (step: number) => Promise<Record<string, number>>;
}

export function fakeConfig(obj: unknown, o: FakeLoopOptions): BaseLoopConfig {
  const raw = (obj ?? {}) as Record<string, unknown>;
  if (raw.bad) throw new ConfigError('fake.steps = 0: must be ≥ 1');
  return Object.freeze({
    seed: 0, steps: typeof raw.steps === 'number' ? raw.steps : 4, tokenBudget: typeof raw.tokenBudget === 'number' ? raw.tokenBudget : 0, lr: typeof raw.lr === 'number' ? raw.lr : 1e-4, weightDecay: 0, evalSet: 'eval-mixed',
    evalEvery: o.evalEvery ?? 0, evalProblems: 1, evalN: 1, samplesPerStep: o.samplesPerStep ?? 0, checkpointEvery: o.checkpointEvery ?? 0,
    rl: { ...DEFAULT_RL_CORE, ...(raw.rl as object | undefined) },
  });
}

/** The definition; with `seen` the test watches what the run manager hands it. */
export function fakeLoop(seen: FakeSeen, o: FakeLoopOptions = {}): LoopDefinition<BaseLoopConfig> {
  return {
    spec: {
      name: 'fake', title: 'fake', paper: null, summary: '', fields: {} as never, rlPresets: ['grpo'], presets: {},
      validate: (obj) => (seen.configs.push(obj), fakeConfig(obj, o)),
      shape: () => ({ trainRows: 1, decodeBatch: 1 }), cpuMode: true, records: ['fake.record'], views: { metrics: [] },
    },
    body: (engine, _c, resume) => {
      seen.resume = resume;
      return {
        async step(step) {
          seen.log.push(`compute ${step}`);
          await tick();
          const custom = o.step ? await o.step(step) : null;
          (engine as FakeEngine).done = step;
          return {
            metrics: custom ?? (o.metrics ? o.metrics(step) : { reward: step }),
            samples: [{ prompt: 'p', response: 'r', reward: 1, entropy: [0.5] }],
            records: o.records?.(step),
          };
        },
        state: () => ({ at: (engine as FakeEngine).done }),
      };
    },
  };
}

export interface FakeEngine extends LoopEngine {
  /** the last step done (the parameters are filled with it) */
  done: number;
}

export function fakeEngine(init: EngineInit, seen: FakeSeen): FakeEngine {
  seen.init = init;
  const n = init.params.length;
  const e: FakeEngine = {
    cfg: init.cfg, kind: 'fake', done: init.params[0],
    rollout: async () => [],
    train: async () => ({ metrics: {}, keptGroups: 0, droppedGroups: 0, fracZeroStd: 0, trajectories: 0, optimiserSteps: 0, rejectedSteps: 0 }),
    configure: (st) => void seen.configured.push(st),
    evaluate: async (): Promise<EvalResult> => ({
      problems: [], passAtK: { '1': e.done / 10 }, avgAtK: {}, majAtK: {}, histogram: { counts: [1] } as EvalResult['histogram'],
      meanEntropy: 1, responseLength: { mean: 3, std: 0, min: 3, max: 3, clipRatio: 0, count: 1 },
    }),
    embed: async (seqs) => seqs.map(() => new Float32Array(init.cfg.nEmbd)),
    readParams: async () => new Float32Array(n).fill(e.done),
    readOptimiserState: async () => ({ m: new Float32Array(n).fill(e.done), v: new Float32Array(n).fill(e.done), step: e.done }),
    loadOptimiserState: (s) => void (e.done = s.step),
    destroy: () => undefined,
  };
  return e;
}

/** A run manager over the fake loop and engine (GPU-typed; nothing touches a device). */
export function fakeSeen(): FakeSeen {
  return { configs: [], log: [], configured: [] };
}

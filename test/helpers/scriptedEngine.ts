// An engine whose policy is a script: the test decides every response from its prompt (decoded
// to text), so a loop's rules can be checked on outcomes chosen by hand. Updates are not made:
// `train` keeps what it was given (with the advantages the RL core assigns) for the test to read.
import { assignAdvantages } from '../../src/rl/advantages';
import { prepareUpdate } from '../../src/rl/update';
import type { Rollout } from '../../src/rl/rollout';
import type { Trajectory } from '../../src/rl/trajectory';
import type { LoopEngine, TrainSettings } from '../../src/loops/engine';
import type { EvalOptions, EvalResult } from '../../src/eval/evaluate';
import { GPT_PRESETS } from '../../src/model/config';
import { EOS, decode, encode, type Role } from '../../src/world/index';

/** The response text for sample g of a prompt (the role's prompt decoded, special tokens included). */
export type Script = (prompt: string, role: Role, g: number, dataType: string | undefined) => string;

export interface ScriptedEngine extends LoopEngine {
  /** every batch handed to train(), with advantages assigned as the trainer would */
  updates: Trajectory[][];
  settings: TrainSettings | null;
  /** the options of every evaluation asked for */
  evaluations: EvalOptions[];
}

export function scriptedEngine(script: Script): ScriptedEngine {
  const e: ScriptedEngine = {
    cfg: GPT_PRESETS.tiny,
    kind: 'scripted',
    updates: [],
    settings: null,
    evaluations: [],
    async rollout(prompts, opts, reward) {
      const out: Rollout<never>[] = [];
      prompts.forEach((p, i) => {
        for (let g = 0; g < opts.groupSize; g++) {
          const responseTokens = [...encode(script(decode(p.prompt), opts.role, g, opts.dataType)), EOS];
          const r = reward(p.payload, responseTokens);
          out.push({
            role: opts.role, dataType: opts.dataType, groupId: opts.groupIdBase + i, promptTokens: p.prompt, responseTokens,
            lossMask: responseTokens.map(() => 1), oldLogp: responseTokens.map(() => -1), entropy: responseTokens.map(() => 0.5),
            reward: r.reward, truncated: false, payload: p.payload as never, text: r.text,
          });
        }
      });
      return out as never;
    },
    async train(trajs) {
      const rl = e.settings!.rl;
      e.updates.push(assignAdvantages(trajs, rl));
      return prepareUpdate(trajs, rl).stats;
    },
    configure(s) {
      e.settings = s;
    },
    evaluate: async (_problems, opts): Promise<EvalResult> => (e.evaluations.push(opts), {
      problems: [], passAtK: { '1': 0 }, avgAtK: { '1': 0 }, majAtK: { '1': 0 }, histogram: { counts: [1] } as EvalResult['histogram'],
      meanEntropy: 0, responseLength: { mean: 1, std: 0, min: 1, max: 1, clipRatio: 0, count: 1 },
    }),
    // a stand-in embedder: counts of each token id, so equal texts embed equally and different ones differ
    embed: async (seqs) => seqs.map((s) => {
      const v = new Float32Array(64);
      for (const t of s) v[t % 64] += 1;
      return v;
    }),
    readParams: async () => new Float32Array(1),
    readOptimiserState: async () => ({ m: new Float32Array(1), v: new Float32Array(1), step: 0 }),
    loadOptimiserState: () => undefined,
    destroy: () => undefined,
  };
  return e;
}

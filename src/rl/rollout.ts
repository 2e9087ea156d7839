// Rollout: G sampled responses per prompt with the KV-cache decoder, turned into trajectories
// (tokens, sampling log-probs and entropies, reward). The reward function is the loop's.
import type { Decoder, GenerateOpts } from '../model/decoder';
import type { Role } from '../world/tokenizer';
import type { Trajectory } from './trajectory';

/**
 * What rollouts need from a sampler: the KV-cache decoder on the GPU, or CPU mode's
 * (src/engines/cpu/policy.ts). `partialBatches`: it samples fewer prompts than B without padding (the
 * GPU decoder runs a fixed batch; CPU mode's samples row by row and would compute the padding).
 */
export type SamplingDecoder = Pick<Decoder, 'B' | 'Tmax' | 'generate'> & { readonly partialBatches?: boolean };

export interface RolloutPrompt<P> {
  prompt: readonly number[];
  /** what the reward function needs to judge a response (e.g. the gold answer) */
  payload: P;
}

export interface RolloutOptions extends Omit<GenerateOpts, 'seed'> {
  groupSize: number;
  role: Role;
  dataType?: string;
  /** first group id; groups are numbered consecutively */
  groupIdBase: number;
  seed: number;
}

export interface Rollout<P> extends Trajectory {
  payload: P;
  /** the response before the end token, decoded by the caller's reward function */
  text: string;
}

/**
 * Samples `groupSize` responses for every prompt (decoder batches of `decoder.B` sequences,
 * prompts repeated group-wise) and scores each with `reward(payload, responseTokens)`.
 */
export async function rollout<P>(
  decoder: SamplingDecoder,
  prompts: readonly RolloutPrompt<P>[],
  opts: RolloutOptions,
  reward: (payload: P, response: readonly number[]) => { reward: number; text: string },
): Promise<Rollout<P>[]> {
  const jobs: { p: number }[] = [];
  prompts.forEach((_, p) => {
    for (let g = 0; g < opts.groupSize; g++) jobs.push({ p });
  });
  const out: Rollout<P>[] = [];
  const { B, Tmax } = decoder;
  for (let start = 0; start < jobs.length; start += B) {
    const chunk = jobs.slice(start, start + B);
    const batchPrompts = chunk.map((j) => prompts[j.p].prompt);
    if (!decoder.partialBatches) while (batchPrompts.length < B) batchPrompts.push(batchPrompts[0]);
    const gen = await decoder.generate(batchPrompts, { ...opts, seed: (opts.seed + start * 7919) >>> 0 });
    chunk.forEach((job, b) => {
      const pl = gen.promptLen[b];
      const n = gen.responseLen[b];
      const row = b * Tmax;
      const responseTokens = Array.from(gen.tokens.subarray(row + pl, row + pl + n));
      const { reward: r, text } = reward(prompts[job.p].payload, responseTokens);
      out.push({
        role: opts.role,
        dataType: opts.dataType,
        groupId: opts.groupIdBase + job.p,
        promptTokens: prompts[job.p].prompt,
        responseTokens,
        lossMask: new Float32Array(n).fill(1),
        oldLogp: gen.logp.slice(row + pl, row + pl + n),
        entropy: gen.entropy.slice(row + pl, row + pl + n),
        reward: r,
        truncated: !gen.finished[b],
        payload: prompts[job.p].payload,
        text,
      });
    });
  }
  return out;
}

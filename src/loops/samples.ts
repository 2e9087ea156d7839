// The samples panel's view of a step: the first few sampled responses with their prompt, reward
// and per-token entropy, decoded.
import type { Rollout } from '../rl/rollout';
import { decode } from '../world/index';
import type { SampleRecord } from './events';

export function samplesOf(trajs: readonly Rollout<unknown>[], n: number): SampleRecord[] {
  return trajs.slice(0, n).map((t) => ({ prompt: decode(t.promptTokens as number[]), response: t.text, reward: t.reward, entropy: Array.from(t.entropy), role: t.role }));
}

// The loss curve kept for plotting. Long runs are thinned (every other old point dropped,
// the newest kept) so the chart stays cheap to render whatever the step count.
import type { DemoBatch } from '../../lab/protocol';

export interface LossPoint {
  step: number;
  loss: number;
}

export const MAX_POINTS = 2000;

export function appendBatches(points: readonly LossPoint[], batches: readonly DemoBatch[], maxPoints = MAX_POINTS): LossPoint[] {
  if (maxPoints < 2) throw new Error(`appendBatches: maxPoints must be at least 2, got ${maxPoints}`);
  let out = points.slice();
  for (const b of batches) {
    for (let i = 0; i < b.step.length; i++) out.push({ step: b.step[i], loss: b.loss[i] });
  }
  while (out.length > maxPoints) out = thin(out);
  return out;
}

function thin(points: LossPoint[]): LossPoint[] {
  const kept = points.filter((_, i) => i % 2 === 0);
  const last = points[points.length - 1];
  if (kept[kept.length - 1] !== last) kept.push(last);
  return kept;
}

// The training charts of the shown runs: each loop's metric charts from the registry (its spec's
// views), in the order of the first loop shown, then any a compared run's loop adds.
import { isLoopName, loopNamed } from '../../loops/registry';
import type { MetricChartSpec } from '../../loops/spec';

export type { MetricChartSpec } from '../../loops/spec';

export function metricChartsOf(loops: readonly string[]): MetricChartSpec[] {
  const out: MetricChartSpec[] = [];
  for (const name of loops) {
    if (!isLoopName(name)) continue;
    for (const c of loopNamed(name).spec.views.metrics) if (!out.some((o) => o.id === c.id)) out.push(c);
  }
  return out;
}

// The views a loop declares (src/loops/spec.ts LoopViews), drawn by kind: one entry per kind says
// which panel draws it, whether a run has something for it yet, and which component draws a spec.
// The record is typed over every kind of LoopViews, so a new kind does not compile until it has
// its entry here, and adding one touches only this table. `metrics` is not here: those charts are
// the shared step charts, overlaid across runs (charts/specs.ts metricChartsOf).
import { Fragment, type ReactNode } from 'react';
import type { LoopViews } from '../loops/spec';
import type { RunView } from '../state/runsSlice';
import type { ChartAxis } from './charts/xaxis';
import type { RunBadge } from './charts/MetricChart';
import { CurveChart, MultiLineChart, RecordMap, StackedChart, stackedProps } from './charts/LoopViews';
import { RecordBrowser } from './RecordBrowser';
import { CrossPlay } from './CrossPlay';
import { TreeView } from './TreeView';

export type ViewKind = Exclude<keyof LoopViews, 'metrics'>;

/** One spec of a kind (a kind declares a list of them, or, cross-play, one). */
type SpecOf<K extends ViewKind> = NonNullable<LoopViews[K]> extends readonly (infer S)[] ? S : NonNullable<LoopViews[K]>;

/**
 * Where a kind is drawn: `training`, in the training panel's chart grid, once per shown run (named
 * by its badge while runs are compared); `curriculum-grid` and `curriculum`, in the curriculum
 * panel for its one run, in its chart grid or below it.
 */
export type ViewPlace = 'training' | 'curriculum-grid' | 'curriculum';

/** What a view may draw from, by place: its run, and in the training panel the charts' axis, halts and the run's badge. */
export interface PlaceContext {
  training: { run: RunView; axis: ChartAxis; marks: readonly number[]; badge: RunBadge | undefined };
  'curriculum-grid': { run: RunView };
  curriculum: { run: RunView };
}

/** A kind's entry: its place, and a component for one spec given that place's context. */
type ViewEntry<S> = {
  [P in ViewPlace]: {
    place: P;
    /** whether the run has something to draw (absent: always drawn) */
    shows?(spec: S, run: RunView): boolean;
    draw(spec: S, ctx: PlaceContext[P]): ReactNode;
  };
}[ViewPlace];

/** Whether a loop chart of several metrics has something of `run` to draw, or waits for its first step. */
function reports(run: RunView, series: readonly { key: string }[]): boolean {
  return run.data.step.length === 0 || series.some((s) => s.key in run.data.series);
}

/** Every kind's entry, in the order the panels draw them. */
export const VIEWS: { [K in ViewKind]: ViewEntry<SpecOf<K>> } = {
  stacked: {
    place: 'training',
    shows: (spec, run) => reports(run, spec.series),
    draw: (spec, { run, badge }) => <StackedChart {...stackedProps(spec, run.data, badge)} />,
  },
  multiLine: {
    place: 'training',
    shows: (spec, run) => reports(run, spec.series),
    draw: (spec, { run, axis, marks, badge }) => <MultiLineChart spec={spec} data={run.data} axis={axis} marks={marks} run={badge} />,
  },
  curves: { place: 'curriculum-grid', draw: (spec, { run }) => <CurveChart spec={spec} config={run.config} /> },
  maps: { place: 'curriculum-grid', draw: (spec, { run }) => <RecordMap spec={spec} events={run.data.records} /> },
  trees: { place: 'curriculum', draw: (spec, { run }) => <TreeView spec={spec} events={run.data.records} /> },
  browsers: { place: 'curriculum', draw: (spec, { run }) => <RecordBrowser spec={spec} events={run.data.records} /> },
  crossPlay: { place: 'curriculum', draw: (spec, { run }) => <CrossPlay spec={spec} run={run} /> },
};

const KINDS = Object.keys(VIEWS) as ViewKind[];

/** The specs `views` declares of one kind (each spec of LoopViews has an `id`, unique within its loop). */
function specsOf<K extends ViewKind>(views: LoopViews, kind: K): (SpecOf<K> & { id: string })[] {
  const declared = views[kind];
  if (declared === undefined) return [];
  return (Array.isArray(declared) ? declared : [declared]) as (SpecOf<K> & { id: string })[];
}

/** Whether `views` declares anything drawn in one of `places`. */
export function declaresViewsIn(views: LoopViews | null, places: readonly ViewPlace[]): boolean {
  return views !== null && KINDS.some((kind) => places.includes(VIEWS[kind].place) && specsOf(views, kind).length > 0);
}

function drawKind<K extends ViewKind, P extends ViewPlace>(views: LoopViews, kind: K, place: P, ctx: PlaceContext[P]): ReactNode[] {
  const entry: ViewEntry<SpecOf<K>> = VIEWS[kind];
  if (entry.place !== place) return [];
  // the entry's place is `place`, so its component takes this place's context
  const draw = entry.draw as (spec: SpecOf<K>, ctx: PlaceContext[P]) => ReactNode;
  return specsOf(views, kind)
    .filter((spec) => entry.shows?.(spec, ctx.run) ?? true)
    .map((spec) => <Fragment key={`${ctx.run.id}-${kind}-${spec.id}`}>{draw(spec, ctx)}</Fragment>);
}

/** The views of `views` drawn in `place` for `ctx.run`, in the table's order, keyed by run, kind and spec. */
export function drawViews<P extends ViewPlace>(views: LoopViews, place: P, ctx: PlaceContext[P]): ReactNode[] {
  return KINDS.flatMap((kind) => drawKind(views, kind, place, ctx));
}

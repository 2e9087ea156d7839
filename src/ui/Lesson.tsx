// A paper's lesson (`?lesson=<id>`, src/state/lessons.ts): its question, the runs it starts
// together (same base policy and seed), the charts to watch and what docs/results.md measured
// from the shipped base, and one button that starts the runs, ticks them side by side and goes
// to the first chart. The charts it names are marked on the page (LessonFocus).
import { createContext, useMemo } from 'react';
import { loopLabel, loopSpec } from '../state/launcher';
import { selectLessonSetups } from '../state/launcherSlice';
import { paperLesson } from '../state/lessons';
import { selectExclusiveJob, selectRunsReady } from '../state/store';
import { useLab, useLabStore } from './LabStore';

/** The chart ids the open lesson asks to watch; ChartFrame marks them. */
export const LessonFocus = createContext<readonly string[]>([]);

/** Where a chart is on the page (its figure), to scroll to it. */
function chartElement(id: string): Element | null {
  return document.querySelector(`[data-testid="chart-${id}"]`);
}

function goToChart(id: string): void {
  chartElement(id)?.scrollIntoView({ behavior: 'smooth', block: 'center' });
}

export function LessonBanner() {
  const lesson = paperLesson(useLab((s) => s.lesson.paper));
  const launcher = useLab((s) => s.launcher.state);
  const catalog = useLab((s) => s.catalog);
  const uploads = useLab((s) => s.uploads.list);
  const store = useLabStore();
  const lessonId = lesson?.id;
  // resolved again only when what they depend on changes (a selector would make a new array each time)
  const setups = useMemo(() => selectLessonSetups(store.getState()), [store, launcher, catalog, uploads, lessonId]);
  const ready = useLab(selectRunsReady);
  const busy = useLab(selectExclusiveJob);
  const start = useLab((s) => s.startLesson);
  if (!lesson) return null;
  const invalid = setups.find((r) => !r.ok);
  const first = setups.find((r) => r.ok);
  const why = invalid && !invalid.ok ? invalid.message : !ready ? 'Needs a working WebGPU device (see the adapter panel).' : busy ? 'Wait for the self-test or the demo to finish.' : null;
  const go = async () => {
    const run = start();
    await Promise.resolve();
    // the charts appear with the runs: go to the first one the lesson watches
    requestAnimationFrame(() => goToChart(lesson.charts[0].id));
    await run;
  };
  return (
    <section className="panel lesson" aria-labelledby="lesson-title" data-testid="lesson" data-lesson={lesson.id}>
      <h2 id="lesson-title">Lesson: {lesson.title}</h2>
      <p>{lesson.question}</p>
      <ol className="lesson-runs" data-testid="lesson-runs">
        {lesson.runs.map((r, i) => (
          <li key={i}>
            <strong>{loopLabel(r.loop)}</strong>, {loopSpec(r).presets[r.setup]?.title ?? r.setup}
            {r.fields ? `, ${Object.entries(r.fields).map(([k, v]) => `${k} ${String(v)}`).join(', ')}` : ''}: {r.role}
          </li>
        ))}
      </ol>
      <p className="detail">
        {first?.ok ? `From the ${first.policy} base policy, seed ${first.config.seed}, side by side (the page address can change either).` : ''}
      </p>
      <p className="lesson-watch">
        Watch:{' '}
        {lesson.charts.map((c, i) => (
          <span key={c.id}>
            {i > 0 && ', '}
            <button type="button" className="link" data-testid="lesson-chart" onClick={() => goToChart(c.id)}>
              {c.name}
            </button>
          </span>
        ))}
        {lesson.xAxis === 'tokens' && ' (by generated tokens: the loops compared at equal cost)'}
      </p>
      <p className="lesson-measured" data-testid="lesson-measured">
        <strong>Measured here</strong> ({lesson.source}{lesson.base ? `, on ${lesson.base}` : ''}): {lesson.measured}
      </p>
      <div className="actions">
        <button type="button" data-testid="lesson-start" disabled={why !== null} onClick={() => void go()}>
          Start the lesson&apos;s runs
        </button>
        {why && <span className="status" data-testid="lesson-why">{why}</span>}
      </div>
    </section>
  );
}

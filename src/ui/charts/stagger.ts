// Chart redraws, one per task. recharts takes 10–40 ms to draw one chart here, and a training
// step changes every chart at once: drawn in the store's update they made one main-thread task
// of 150–400 ms per step (traced: recharts' render, its selectors and its text measuring). Each
// chart instead draws the data it was given in a task of its own, in the order the changes came;
// between those tasks the page stays responsive and paints. A chart that changes again before
// its turn draws only its latest data.
import { useEffect, useRef, useState } from 'react';
import { flushSync } from 'react-dom';

type Job = () => void;

const queue: Job[] = [];
let pending = false;

function pump(): void {
  pending = false;
  queue.shift()?.();
  if (queue.length > 0) schedule();
}

function schedule(): void {
  if (pending) return;
  pending = true;
  // a macrotask: the browser may handle input and paint between two charts
  setTimeout(pump, 0);
}

/**
 * The value to draw: `value` as of the chart's last turn, null before its first. `value` must
 * keep its identity while unchanged (a memoised component's props do).
 */
export function useStaggered<T>(value: T): T | null {
  const [shown, setShown] = useState<T | null>(null);
  const latest = useRef(value);
  const job = useRef<Job | null>(null);
  useEffect(() => {
    latest.current = value;
    if (Object.is(shown, value) || job.current) return;
    const j: Job = () => {
      job.current = null;
      // rendered now, inside this task, so that each chart's drawing is a task of its own
      flushSync(() => setShown(latest.current));
    };
    job.current = j;
    queue.push(j);
    schedule();
  }, [value, shown]);
  useEffect(
    () => () => {
      const j = job.current;
      if (j && queue.includes(j)) queue.splice(queue.indexOf(j), 1);
      job.current = null;
    },
    [],
  );
  return shown;
}

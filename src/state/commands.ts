// The page's commands, registered once: buttons, keyboard shortcuts and the help overlay all
// read this list, so a shortcut does exactly what its button does and is enabled exactly when
// the button is. Commands act on the active run: the selected run, when this page started it.
import { canRestore } from './resume';
import type { RunView } from './runsSlice';
import { selectExclusiveJob, selectRunsReady, type LabState } from './store';

export type CommandId = 'pause' | 'resume' | 'toggle-pause' | 'step' | 'stop' | 'help';

export interface Command {
  id: CommandId;
  /** `KeyboardEvent.key` values that run it; none for button-only commands */
  keys: readonly string[];
  /** how the help overlay writes the key */
  keyLabel?: string;
  title: string;
  enabled(s: LabState): boolean;
  run(s: LabState): void;
}

/** The run commands act on, or null. */
export function activeRun(s: LabState): RunView | null {
  const r = s.runs.selected ? s.runs.byId[s.runs.selected] : null;
  return r && r.live ? r : null;
}

const canPause = (s: LabState) => ['running', 'starting'].includes(activeRun(s)?.status.state ?? '');
const canResume = (s: LabState) => !selectExclusiveJob(s) && ['paused', 'pausing'].includes(activeRun(s)?.status.state ?? '');

/** The selected run, when it can start again from its checkpoint now (interrupted, or its GPU was lost and a new one is ready). */
export function restorableRun(s: LabState): RunView | null {
  const r = s.runs.selected ? s.runs.byId[s.runs.selected] : null;
  return r && canRestore(r) && selectRunsReady(s) && !selectExclusiveJob(s) ? r : null;
}
const withRun = (f: (s: LabState, id: string) => unknown) => (s: LabState) => {
  const r = activeRun(s);
  if (r) void f(s, r.id);
};

export const COMMANDS: readonly Command[] = [
  { id: 'pause', keys: [], title: 'Pause the run after the step in progress', enabled: canPause, run: withRun((s, id) => s.pauseRun(id)) },
  {
    id: 'resume', keys: [], title: 'Resume the run (an interrupted one, or one whose GPU was lost, from its last checkpoint)',
    enabled: (s) => canResume(s) || restorableRun(s) !== null,
    run: (s) => {
      const r = restorableRun(s);
      if (r) void s.resumeFromCheckpoint(r.id);
      else withRun((st, id) => st.resumeRun(id))(s);
    },
  },
  {
    id: 'toggle-pause', keys: [' '], keyLabel: 'Space', title: 'Pause or resume the selected run',
    enabled: (s) => canPause(s) || canResume(s),
    run: (s) => (canPause(s) ? command('pause') : command('resume')).run(s),
  },
  {
    id: 'step', keys: ['s', 'S'], keyLabel: 'S', title: 'Single step: one more RL step of the paused run',
    enabled: (s) => !selectExclusiveJob(s) && activeRun(s)?.status.state === 'paused', run: withRun((s, id) => s.stepRun(id)),
  },
  {
    id: 'stop', keys: [], title: 'Stop the run after the step in progress',
    enabled: (s) => ['starting', 'running', 'pausing', 'paused'].includes(activeRun(s)?.status.state ?? ''), run: withRun((s, id) => s.stopRun(id)),
  },
  { id: 'help', keys: ['?'], keyLabel: '?', title: 'Show or hide this list of shortcuts', enabled: () => true, run: (s) => s.setHelpOpen(!s.view.helpOpen) },
];

export function command(id: CommandId): Command {
  const c = COMMANDS.find((x) => x.id === id);
  if (!c) throw new Error(`no command "${id}"`);
  return c;
}

/** What a key press targets, as far as shortcuts care. */
export interface KeyTarget {
  tagName: string;
  isContentEditable: boolean;
  type?: string;
  role?: string | null;
}

const TYPING = new Set(['INPUT', 'TEXTAREA', 'SELECT']);
const ACTIVATED_BY_SPACE = new Set(['BUTTON', 'A', 'SUMMARY']);

/**
 * The command a key press runs, or null: none while typing in a form field, none with Ctrl, Alt
 * or Meta held, and Space is left to a focused button or link (Space activates it).
 */
export function commandForKey(e: { key: string; ctrlKey: boolean; altKey: boolean; metaKey: boolean }, target: KeyTarget | null): Command | null {
  if (e.ctrlKey || e.altKey || e.metaKey) return null;
  if (target && (TYPING.has(target.tagName) || target.isContentEditable)) return null;
  if (e.key === ' ' && target && (ACTIVATED_BY_SPACE.has(target.tagName) || target.role === 'button')) return null;
  return COMMANDS.find((c) => c.keys.includes(e.key)) ?? null;
}

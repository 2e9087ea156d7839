// The knobs a run takes between steps (src/loops/driver.ts LiveKnobs, the same for every loop), free of React: their specs
// (help and paper value from the config fields), the values a run uses now (its latest reported
// metrics, else its set-up), the page-side check before a change is sent (the loop's own
// validator, so the messages match), and the steps where a change took effect, found in the
// stored metrics so the chart marks survive a reload.
import type { LiveKnobs } from '../lab/protocol';
import { BASE_FIELDS, type BaseLoopConfig } from '../loops/base_config';
import { applyKnobs } from '../loops/driver';
import { loopNamed } from '../loops/registry';
import { RL_CORE_FIELDS } from '../rl/config';
import type { RunData } from './runData';
import { errorText } from '../util/errors';

export type KnobKey = keyof LiveKnobs;

export interface KnobSpec {
  key: KnobKey;
  /** the name the loop reports it under in each step's metrics */
  metric: string;
  label: string;
  help: string;
  paper: string;
  /** a change of it is marked on the charts */
  marked: boolean;
}

export const KNOB_SPECS: readonly KnobSpec[] = [
  { key: 'lr', metric: 'lr', label: 'learning rate', help: BASE_FIELDS.lr.help, paper: BASE_FIELDS.lr.paper, marked: true },
  { key: 'temperature', metric: 'temperature', label: 'temperature', help: RL_CORE_FIELDS.temperature.help, paper: RL_CORE_FIELDS.temperature.paper, marked: true },
  // β > 0 set live makes the loop take its frozen reference (the run's starting policy) from then on
  { key: 'beta', metric: 'beta', label: 'KL β', help: RL_CORE_FIELDS.beta.help, paper: RL_CORE_FIELDS.beta.paper, marked: true },
  { key: 'entCoef', metric: 'entCoef', label: 'entropy coef.', help: RL_CORE_FIELDS.entCoef.help, paper: RL_CORE_FIELDS.entCoef.paper, marked: true },
  { key: 'clipLow', metric: 'clip_low', label: 'clip ε low', help: RL_CORE_FIELDS.clipLow.help, paper: RL_CORE_FIELDS.clipLow.paper, marked: true },
  { key: 'clipHigh', metric: 'clip_high', label: 'clip ε high', help: RL_CORE_FIELDS.clipHigh.help, paper: RL_CORE_FIELDS.clipHigh.paper, marked: true },
];

export function knobsOfConfig(c: BaseLoopConfig): LiveKnobs {
  const { temperature, beta, entCoef, clipLow, clipHigh } = c.rl;
  return { lr: c.lr, temperature, beta, entCoef, clipLow, clipHigh };
}

/** The values a run trains with now: each knob's latest reported value, else its set-up's. */
export function currentKnobs(config: BaseLoopConfig, data: Pick<RunData, 'series'>): LiveKnobs {
  const out = knobsOfConfig(config);
  for (const s of KNOB_SPECS) {
    const ys = data.series[s.metric] ?? [];
    for (let i = ys.length - 1; i >= 0; i--) {
      if (Number.isFinite(ys[i])) {
        out[s.key] = ys[i];
        break;
      }
    }
  }
  return out;
}

/** The loop validator's message for `change` applied over `current`, or null when it is valid. */
export function checkKnobs(loop: string, config: BaseLoopConfig, current: LiveKnobs, change: Partial<LiveKnobs>): string | null {
  try {
    applyKnobs(loopNamed(loop).spec.validate, config, { ...current, ...change });
    return null;
  } catch (e) {
    return errorText(e);
  }
}

/** Form text to a change: the knobs whose parsed value differs from `current`; or why it cannot be read. */
export function parseKnobs(text: Readonly<Record<KnobKey, string>>, current: LiveKnobs): { ok: true; change: Partial<LiveKnobs> } | { ok: false; message: string } {
  const change: Partial<LiveKnobs> = {};
  for (const s of KNOB_SPECS) {
    const t = text[s.key].trim();
    const v = Number(t);
    if (t === '' || !Number.isFinite(v)) return { ok: false, message: `${s.label}: "${t}" is not a number` };
    if (v !== current[s.key]) change[s.key] = v;
  }
  return { ok: true, change };
}

/** A step where knob values differ from the step before (the first step: from the set-up). */
export interface KnobChange {
  step: number;
  changes: { metric: string; from: number; to: number }[];
  /** "lr → 5e-5, temperature → 0.7" */
  label: string;
}

/**
 * Steps whose reported knob values differ from the previous reported step's; `initial` (the
 * set-up's values) stands before the first step, so a change made before step 1 is found too.
 */
export function knobChanges(steps: readonly number[], series: Readonly<Record<string, readonly number[]>>, initial?: LiveKnobs, format: (v: number) => string = String): KnobChange[] {
  const specs = KNOB_SPECS.filter((s) => s.marked);
  const last = new Map<string, number>(initial ? specs.map((s) => [s.metric, initial[s.key]]) : []);
  const out: KnobChange[] = [];
  for (let i = 0; i < steps.length; i++) {
    const changes: KnobChange['changes'] = [];
    for (const s of specs) {
      const v = series[s.metric]?.[i];
      if (v === undefined || !Number.isFinite(v)) continue;
      const prev = last.get(s.metric);
      if (prev !== undefined && prev !== v) changes.push({ metric: s.metric, from: prev, to: v });
      last.set(s.metric, v);
    }
    if (changes.length > 0) out.push({ step: steps[i], changes, label: changes.map((c) => `${c.metric} → ${format(c.to)}`).join(', ') });
  }
  return out;
}

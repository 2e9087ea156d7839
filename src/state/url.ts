// Launcher state ⇄ URL query, so a link reproduces a set-up. Only non-default values are
// written, each under its config field's name (`?policy=tiny&seed=3&steps=20&clipHigh=0.2`);
// the loop, its set-up and the RL preset under `loop`, `setup` and `preset`. Parameters that are not the launcher's
// (e.g. `debug`) are left alone.
import {
  DEFAULT_LAUNCHER,
  DEFAULT_LOOP,
  DEFAULT_SETUP,
  RL_KEYS,
  fieldSpec,
  rlKeys,
  formatValue,
  loopKeys,
  parseInput,
  presetNames,
  setField,
  setLoop,
  setPreset,
  setupNames,
  type LauncherState,
} from './launcher';
import { LOOPS, isLoopName } from '../loops/registry';
import { showText } from '../util/show';
import type { RlCorePresetName } from '../rl/config';
import { isUploadName } from './files/policyUpload';
import { corpusRef, isCorpusRef } from './persist/corpusArchive';
import { PAPER_LESSONS, paperLesson } from './lessons';

/** Query parameters the page reads elsewhere (the explorer's `grid` and `explore`: src/explore/gridUrl.ts; a paper's `lesson`); never reported as unknown. */
export const PAGE_PARAMS: readonly string[] = ['debug', 'hide', 'lock', 'grid', 'explore', 'lesson'];
/** Parameters that may repeat: their values are lists (`hide=a&hide=b` is `hide=a,b`). */
const LIST_PARAMS: readonly string[] = ['hide', 'lock'];

/** A link's parameter past this is no set-up anyone typed (a corpus or a checkpoint never travels in links). */
export const MAX_PARAM_CHARS = 2000;

/** Every loop's fields that hold a corpus (SPICE's `corpus`): a link names an uploaded one. */
const CORPUS_FIELDS: ReadonlySet<string> = new Set(LOOPS.flatMap((d) => Object.entries(d.spec.fields).filter(([, f]) => f.type.kind === 'string' && f.type.holds === 'corpus').map(([k]) => k)));

/**
 * A field's value in a link: itself, or for a corpus past a link's cap (an uploaded file) its
 * name `upload:<hash>`, which this browser's corpus store resolves on reload. Any other value
 * past the cap stays in the page, out of the address: a reload of a 60,000-character address
 * got HTTP 431 and never loaded the lab.
 */
function linkValue(key: string, v: unknown): string | null {
  const text = formatValue(v);
  if (text.length <= MAX_PARAM_CHARS) return text;
  return CORPUS_FIELDS.has(key) && typeof v === 'string' ? corpusRef(v) : null;
}

/** The uploaded corpora an address names (`corpus=upload:…`), to load before it is read. */
export function corpusRefsIn(search: string): string[] {
  const q = new URLSearchParams(search);
  return [...CORPUS_FIELDS].flatMap((k) => q.getAll(k)).filter((v) => isCorpusRef(v) && v.length <= MAX_PARAM_CHARS);
}

export function launcherToQuery(l: LauncherState): URLSearchParams {
  const q = new URLSearchParams();
  if (l.loop !== DEFAULT_LOOP) q.set('loop', l.loop);
  // an uploaded policy lives in this browser only: a link cannot carry it
  if (l.policy !== null && !isUploadName(l.policy)) q.set('policy', l.policy);
  if (l.setup !== DEFAULT_SETUP) q.set('setup', l.setup);
  if (l.preset !== presetNames(l)[0]) q.set('preset', l.preset);
  for (const k of loopKeys(l)) {
    const v = Object.hasOwn(l.fields, k) ? linkValue(k, l.fields[k]) : null;
    if (v !== null) q.set(k, v);
  }
  for (const k of rlKeys(l)) if (Object.hasOwn(l.rl, k)) q.set(k, formatValue(l.rl[k]));
  return q;
}

export interface DecodedQuery {
  launcher: LauncherState;
  /** launcher-looking problems: unknown parameters, an unknown preset */
  warnings: string[];
}

/**
 * The launcher an address sets up. `corpora` gives the text of an uploaded corpus the address
 * names (`corpus=upload:…`), if this browser holds it; one it does not hold is warned of.
 */
export function queryToLauncher(q: URLSearchParams, corpora: (ref: string) => string | undefined = () => undefined): DecodedQuery {
  const warnings: string[] = [];
  // a parameter given twice is read once, and the link's author told which
  const counts = new Map<string, number>();
  for (const [key] of q) counts.set(key, (counts.get(key) ?? 0) + 1);
  for (const [key, n] of counts) {
    if (n > 1 && !LIST_PARAMS.includes(key)) warnings.push(`${showText(key)} is given ${n} times; using the ${key === 'loop' ? 'first' : 'last'} (${showText(key === 'loop' ? q.getAll(key)[0] : q.getAll(key)[n - 1])})`);
  }
  // the loop first: which fields, set-ups and presets exist depends on it
  const loop = q.get('loop') ?? DEFAULT_LOOP;
  if (!isLoopName(loop)) warnings.push(`loop=${showText(loop)}: no such loop (loops: ${LOOPS.map((d) => d.spec.name).join(', ')})`);
  let l: LauncherState = setLoop({ ...DEFAULT_LAUNCHER, fields: {}, rl: {} }, loop);
  const loopFields = new Set(loopKeys(l));
  const rlFields = new Set<string>(rlKeys(l));
  const fields: Record<string, unknown> = {};
  const rl: Record<string, unknown> = {};
  const loopName = showText(l.loop);
  for (const [key, raw] of q) {
    if (key === 'loop') continue;
    if (raw.length > MAX_PARAM_CHARS) {
      warnings.push(`${showText(key)}: its value is ${raw.length} characters, more than a link's ${MAX_PARAM_CHARS}; ignored`);
      continue;
    }
    const value = raw;
    if (key === 'policy' && isUploadName(value)) warnings.push(`policy=${showText(value)}: an uploaded checkpoint lives in the browser it was uploaded to and cannot be opened from a link; using the default policy`);
    else if (key === 'policy') l = { ...l, policy: value === '' ? null : value };
    else if (key === 'setup') {
      if (setupNames(l).includes(value)) l = { ...l, setup: value };
      else warnings.push(`setup=${showText(value)}: the ${loopName} loop has no such set-up (set-ups: ${setupNames(l).join(', ')}); using ${DEFAULT_SETUP}`);
    } else if (key === 'preset') {
      if ((presetNames(l) as string[]).includes(value)) l = setPreset(l, value as RlCorePresetName);
      else warnings.push(`preset=${showText(value)}: not an RL preset of the ${loopName} loop (presets: ${presetNames(l).join(', ')}); using ${presetNames(l)[0]}`);
    } else if (CORPUS_FIELDS.has(key) && loopFields.has(key) && isCorpusRef(value)) {
      const text = corpora(value);
      if (text !== undefined) fields[key] = text;
      else warnings.push(`${key}=${showText(value)}: this browser holds no uploaded corpus of that name (an uploaded corpus stays in the browser it was uploaded to); using the generated corpus`);
    } else if (loopFields.has(key)) fields[key] = parseInput(fieldSpec(l, 'loop', key).type, value);
    else if (rlFields.has(key)) rl[key] = parseInput(fieldSpec(l, 'rl', key).type, value);
    else if (!PAGE_PARAMS.includes(key)) warnings.push(`${showText(key)}: not a setting of the ${loopName} loop's launcher; ignored`);
  }
  // an override equal to the layer below is dropped, as the form would drop it
  for (const [k, v] of Object.entries(fields)) l = setField(l, 'loop', k, v);
  for (const [k, v] of Object.entries(rl)) l = setField(l, 'rl', k, v);
  return { launcher: l, warnings };
}

/** The page URL's query with the launcher's parameters replaced and the page's own kept. */
export function mergeQuery(current: URLSearchParams, l: LauncherState): string {
  const out = new URLSearchParams();
  for (const [k, v] of current) if (PAGE_PARAMS.includes(k)) out.append(k, v);
  for (const [k, v] of launcherToQuery(l)) out.append(k, v);
  const s = out.toString();
  return s ? `?${s}` : '';
}

/**
 * Lesson links: `hide=launcher,knobs` hides those parts of the page and `lock=lr,seed` fixes
 * those fields at the link's values, so a teacher can hand out a set-up; `lesson=<id>` opens one
 * of the papers' lessons (lessons.ts). A convenience, not a safeguard: whoever edits the address
 * can lift them. `launcher`: the Start bar's pickers and the New run panel (a Start button with
 * the fixed set-up stays); `newrun`: the New run panel alone (the launcher's knobs; the Start bar
 * stays); `knobs`: a run's live knobs.
 */
export const HIDEABLE = ['launcher', 'newrun', 'knobs', 'selftest', 'demo', 'adapter', 'samples', 'import', 'upload'] as const;
export type Hideable = (typeof HIDEABLE)[number];

/** Fields a lesson can lock: the loop, policy, set-up and preset pickers and every field of any loop. */
export const LOCKABLE: readonly string[] = [...new Set(['loop', 'policy', 'setup', 'preset', ...LOOPS.flatMap((d) => Object.keys(d.spec.fields)), ...RL_KEYS])];

export interface Lesson {
  hide: readonly Hideable[];
  lock: readonly string[];
  /** the paper lesson the page opens (`lesson=`), or null */
  paper: string | null;
}

export const NO_LESSON: Lesson = Object.freeze({ hide: [], lock: [], paper: null });

function listParam(q: URLSearchParams, key: string): string[] {
  return q.getAll(key).flatMap((v) => v.split(',')).map((s) => s.trim()).filter((s) => s !== '');
}

export function queryToLesson(q: URLSearchParams): { lesson: Lesson; warnings: string[] } {
  const warnings: string[] = [];
  const hide: Hideable[] = [];
  for (const h of listParam(q, 'hide')) {
    if (!(HIDEABLE as readonly string[]).includes(h)) warnings.push(`hide=${showText(h)}: no such part of the page (parts: ${HIDEABLE.join(', ')}); ignored`);
    else if (!hide.includes(h as Hideable)) hide.push(h as Hideable);
  }
  const lock: string[] = [];
  for (const k of listParam(q, 'lock')) {
    if (!LOCKABLE.includes(k)) warnings.push(`lock=${showText(k)}: not a launcher field; ignored`);
    else if (!lock.includes(k)) lock.push(k);
  }
  let paper: string | null = null;
  for (const id of listParam(q, 'lesson')) {
    if (paperLesson(id)) paper = id;
    else warnings.push(`lesson=${showText(id)}: no such lesson (lessons: ${PAPER_LESSONS.map((l) => l.id).join(', ')}); ignored`);
  }
  return { lesson: { hide, lock, paper }, warnings };
}

// The grid's form ⇄ the page URL, beside the launcher's parameters (which carry the grid's base
// set-up): `grid=` holds the knobs, seeds, control arm and concurrency as JSON, so a link
// reproduces the grid; `explore=gallery/<name>.json` opens a sweep file shipped under public/.
// A bad parameter is reported and ignored, never half applied.
import * as v from 'valibot';
import { EMPTY_FORM, MAX_KNOBS, type GridForm } from './grid';

export const GRID_PARAM = 'grid';
export const EXPLORE_PARAM = 'explore';

const FormSchema = v.strictObject({
  knobs: v.pipe(v.array(v.strictObject({ key: v.pipe(v.string(), v.maxLength(80)), values: v.pipe(v.string(), v.maxLength(2000)) })), v.maxLength(MAX_KNOBS)),
  seeds: v.pipe(v.string(), v.maxLength(2000)),
  control: v.nullable(v.strictObject({ loop: v.pipe(v.string(), v.maxLength(40)), setup: v.pipe(v.string(), v.maxLength(80)), matchArm: v.pipe(v.number(), v.integer(), v.minValue(0)), steps: v.pipe(v.number(), v.integer(), v.minValue(1)) })),
  concurrency: v.nullable(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(16))),
});

/** The form as the URL writes it; null when it is the empty form (no parameter). */
export function formToParam(f: GridForm): string | null {
  if (JSON.stringify(f) === JSON.stringify(EMPTY_FORM)) return null;
  return JSON.stringify(f);
}

export function formFromParam(text: string | null): { form: GridForm; warning: string | null } {
  if (text === null) return { form: EMPTY_FORM, warning: null };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { form: EMPTY_FORM, warning: `${GRID_PARAM}: not JSON; the grid's form starts empty` };
  }
  const r = v.safeParse(FormSchema, json);
  if (!r.success) return { form: EMPTY_FORM, warning: `${GRID_PARAM}: ${v.getDotPath(r.issues[0]) ?? '(top level)'}: ${r.issues[0].message}; the grid's form starts empty` };
  return { form: r.output, warning: null };
}

/** Sweep files the page opens by address: under public/gallery/, plain names only. */
const GALLERY_PATH = /^gallery\/[\w.-]+\.json$/;

export function galleryPathOf(text: string | null): { path: string | null; warning: string | null } {
  if (text === null || text === '') return { path: null, warning: null };
  if (!GALLERY_PATH.test(text) || text.includes('..')) return { path: null, warning: `${EXPLORE_PARAM}=${text}: the explorer opens gallery/<name>.json files shipped with the page` };
  return { path: text, warning: null };
}

/** The query with the grid's parameter set (or removed) and every other kept, in order. */
export function withGridParam(search: string, f: GridForm): string {
  const q = new URLSearchParams(search);
  const p = formToParam(f);
  if (p === null) q.delete(GRID_PARAM);
  else q.set(GRID_PARAM, p);
  const s = q.toString();
  return s ? `?${s}` : '';
}

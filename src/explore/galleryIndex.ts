// The gallery's list (public/gallery/index.json, written by scripts/build-gallery.ts), read for
// the intro's "See what the lab measured": each entry's title, the paper's claim and what the
// lab measured, and the sweep file the explorer opens. A malformed index is refused whole, the
// error naming the entry and the field, so the intro says why instead of listing half of it.
import { galleryPathOf } from './gridUrl';

export const GALLERY_INDEX = 'gallery/index.json';

export interface GalleryEntry {
  id: string;
  title: string;
  claim: string;
  measured: string;
  /** gallery/<id>.json, as the explorer's address takes it */
  file: string;
  /** false: the runs kept start and end evaluations only (no step curves) */
  curvesRecorded: boolean;
  arms: number;
  /** seeds per arm */
  seeds: number[];
  /** why a newer entry replaces this one (kept for the record, listed apart), or null for a current one */
  superseded: string | null;
  /** whether the paper's direction holds, in a line (shown before the numbers), or null */
  verdict: string | null;
}

const ID = /^[\w.-]+$/;

export function parseGalleryIndex(text: string, what = GALLERY_INDEX): GalleryEntry[] {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new Error(`${what}: not JSON (${(e as Error).message})`);
  }
  if (typeof raw !== 'object' || raw === null || !Array.isArray((raw as { entries?: unknown }).entries)) throw new Error(`${what}: expected an object with an "entries" array`);
  const ids = new Set<string>();
  return ((raw as { entries: unknown[] }).entries).map((x, i): GalleryEntry => {
    const at = `${what}: entries[${i}]`;
    if (typeof x !== 'object' || x === null) throw new Error(`${at}: expected an object`);
    const e = x as Record<string, unknown>;
    const text = (k: string): string => {
      if (typeof e[k] !== 'string' || (e[k] as string).trim() === '') throw new Error(`${at}.${k}: expected a non-empty string`);
      return e[k] as string;
    };
    const id = text('id');
    if (!ID.test(id)) throw new Error(`${at}.id: ${JSON.stringify(id)} is not a plain name (letters, digits, - _ .)`);
    if (ids.has(id)) throw new Error(`${at}.id: ${id} is listed twice`);
    ids.add(id);
    const [title, claim, measured] = [text('title'), text('claim'), text('measured')];
    const file = text('file');
    // the file must be one the explorer's address opens, or the link would only show a warning
    if (galleryPathOf(file).path === null) throw new Error(`${at}.file: ${JSON.stringify(file)} is not a gallery/<name>.json file`);
    if (typeof e.curvesRecorded !== 'boolean') throw new Error(`${at}.curvesRecorded: expected true or false`);
    if (!Number.isInteger(e.arms) || (e.arms as number) < 1) throw new Error(`${at}.arms: expected a positive integer`);
    if (!Array.isArray(e.seeds) || e.seeds.length !== e.arms || !e.seeds.every((n) => Number.isInteger(n) && n >= 1)) {
      throw new Error(`${at}.seeds: expected one positive seed count per arm (${String(e.arms)})`);
    }
    const superseded = e.superseded === undefined ? null : text('superseded');
    const verdict = e.verdict === undefined ? null : text('verdict');
    return { id, title, claim, measured, file, curvesRecorded: e.curvesRecorded, arms: e.arms as number, seeds: e.seeds as number[], superseded, verdict };
  });
}

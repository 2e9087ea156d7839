// Links inside the page (the introduction's set-ups, the lessons): a link keeps every parameter
// of the page's address (a lesson's hide, lock, loop and set-up) and changes only the ones it is
// about. Switching the loop drops what the new loop does not have, as the launcher does.
import { isLoopName, loopNamed } from '../loops/registry';
import { DEFAULT_LOOP, rlKeys } from './launcher';
import { PAGE_PARAMS } from './url';

/** The parameters of `q` that still mean something once the loop is `loop`. */
function keptForLoop(q: URLSearchParams, loop: string): URLSearchParams {
  if (!isLoopName(loop)) return new URLSearchParams(q);
  const spec = loopNamed(loop).spec;
  const rl = new Set<string>(rlKeys({ loop }));
  const keep = (k: string, v: string) =>
    PAGE_PARAMS.includes(k) || k === 'loop' || k === 'policy' ||
    (k === 'setup' && Object.hasOwn(spec.presets, v)) ||
    (k === 'preset' && (spec.rlPresets as readonly string[]).includes(v)) ||
    Object.hasOwn(spec.fields, k) || rl.has(k);
  const out = new URLSearchParams();
  for (const [k, v] of q) if (keep(k, v)) out.append(k, v);
  return out;
}

/**
 * The query a link goes to: `current` with `set`'s parameters replaced (`''` for none), or null
 * when the link would change a field the lesson locks (the page then does not offer it).
 */
export function linkQuery(current: URLSearchParams, set: Readonly<Record<string, string>>, lock: readonly string[]): string | null {
  for (const [k, v] of Object.entries(set)) if (lock.includes(k) && (current.get(k) ?? defaultOf(k)) !== v) return null;
  const loop = set.loop ?? current.get('loop') ?? DEFAULT_LOOP;
  const out = loop !== (current.get('loop') ?? DEFAULT_LOOP) ? keptForLoop(current, loop) : new URLSearchParams(current);
  for (const [k, v] of Object.entries(set)) out.set(k, v);
  // the default loop and set-up are written as nothing, as the launcher writes them
  if (out.get('loop') === DEFAULT_LOOP) out.delete('loop');
  if (out.get('setup') === 'paper') out.delete('setup');
  const s = out.toString();
  return s ? `?${s}` : '?';
}

function defaultOf(key: string): string | null {
  if (key === 'loop') return DEFAULT_LOOP;
  if (key === 'setup') return 'paper';
  return null;
}

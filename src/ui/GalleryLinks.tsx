// The intro's "See what the lab measured": the gallery's entries (public/gallery/index.json), each
// a link that keeps the page's parameters and adds `explore=gallery/<id>.json` (links.ts), opening
// the entry read-only in the explorer without a reload, then scrolling to it. A new tab gets the
// plain address, which opens the same entry on load (explorerUrl.ts). Entries a newer one replaces
// (the first measurements, before the loops were corrected) are listed after, collapsed.
import { useEffect, useState } from 'react';
import type { GalleryEntry } from '../explore/galleryIndex';
import { EXPLORE_PARAM } from '../explore/gridUrl';
import { followGalleryLink } from '../state/explorerUrl';
import { linkQuery } from '../state/links';
import { useLab, useLabStore } from './LabStore';

function EntryLink({ entry, reason = null }: { entry: GalleryEntry; reason?: string | null }) {
  const store = useLabStore();
  const lock = useLab((s) => s.lesson.lock);
  const opening = useLab((s) => s.explorer.opening === entry.file);
  const [error, setError] = useState<string | null>(null);
  // the address follows the launcher and the lesson: re-read it whenever either changes
  useLab((s) => s.launcher.state);
  useLab((s) => s.lesson);
  const query = linkQuery(new URLSearchParams(window.location.search), { [EXPLORE_PARAM]: entry.file }, lock) ?? `?${EXPLORE_PARAM}=${entry.file}`;
  const shape = entry.seeds.join(' + ');
  return (
    <li>
      <a
        href={query} data-testid="gallery-entry" data-id={entry.id} aria-busy={opening || undefined}
        onClick={(e) => {
          if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
          e.preventDefault();
          setError(null);
          void followGalleryLink(store, window.location, window.history, query, entry.file).then(setError);
        }}
      >
        {entry.title}
      </a>{' '}
      <span className="detail">
        {/* without step curves the measured sentence says so itself */}
        ({entry.arms} arms, {shape} seeds{entry.curvesRecorded ? ', with step curves' : ''})
      </span>
      <p className="gallery-claim"><strong>The claim:</strong> {entry.claim}</p>
      {entry.verdict ? (
        <>
          <p className="gallery-verdict" data-testid="gallery-verdict"><strong>Here:</strong> {entry.verdict}</p>
          {/* the answer first; its numbers a click away */}
          <details className="gallery-numbers">
            <summary>The numbers</summary>
            <p className="gallery-measured">{entry.measured}</p>
          </details>
        </>
      ) : (
        <p className="gallery-measured"><strong>Measured here:</strong> {entry.measured}</p>
      )}
      {reason && <p className="detail">Superseded: {reason}.</p>}
      {error && <p className="notice notice-warn" data-testid="gallery-error">{error}</p>}
    </li>
  );
}

/** The current entries, then those a newer entry replaces, listed apart and collapsed (kept for the record). */
function Entries({ entries }: { entries: readonly GalleryEntry[] }) {
  const current = entries.filter((e) => e.superseded === null);
  const earlier = entries.filter((e) => e.superseded !== null);
  // one reason for all is said once; differing reasons stay with their entries
  const reasons = [...new Set(earlier.map((e) => e.superseded))];
  return (
    <>
      <ul className="intro-outcomes gallery-entries">
        {current.map((e) => <EntryLink key={e.id} entry={e} />)}
      </ul>
      {earlier.length > 0 && (
        <details className="gallery-earlier" data-testid="gallery-earlier">
          <summary>Earlier measurements, kept for the record ({earlier.length}){reasons.length === 1 ? `: ${reasons[0]}` : ''}</summary>
          <ul className="intro-outcomes gallery-entries">
            {earlier.map((e) => <EntryLink key={e.id} entry={e} reason={reasons.length > 1 ? e.superseded : null} />)}
          </ul>
        </details>
      )}
    </>
  );
}

export function GalleryLinks() {
  const list = useLab((s) => s.explorer.gallery);
  const load = useLab((s) => s.loadGalleryList);
  useEffect(() => {
    void load();
  }, [load]);
  return (
    <details open className="intro-more intro-gallery" data-testid="intro-gallery" data-status={list.status}>
      <summary>See what the lab measured{list.status === 'ready' ? `: ${list.entries.filter((e) => e.superseded === null).length} ablations, drawn from their files without training` : ''}</summary>
      {list.status === 'error' && <p className="notice notice-warn" data-testid="gallery-list-error">The gallery could not be listed: {list.error}</p>}
      {(list.status === 'loading' || list.status === 'idle') && <p className="detail">Listing the gallery…</p>}
      {list.status === 'ready' && <Entries entries={list.entries} />}
    </details>
  );
}

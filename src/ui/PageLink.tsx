// A link inside the page (links.ts): it keeps the lesson's parameters and changes only its own,
// and opens in place (no reload: runs keep training); a new tab still gets a plain address. A
// link that would change a field the lesson locks is shown as text, not offered.
import type { ReactNode } from 'react';
import { linkQuery } from '../state/links';
import { followLink } from '../state/urlSync';
import { useLab, useLabStore } from './LabStore';

export function PageLink({ set, testId, children }: { set: Readonly<Record<string, string>>; testId?: string; children: ReactNode }) {
  const store = useLabStore();
  const lock = useLab((s) => s.lesson.lock);
  // the address follows the launcher and the lesson: re-read it whenever either changes
  useLab((s) => s.launcher.state);
  useLab((s) => s.lesson);
  const query = linkQuery(new URLSearchParams(window.location.search), set, lock);
  if (query === null) {
    return (
      <span className="link-locked" data-testid={testId} data-locked title="This lesson locks what the link would change">
        {children}
      </span>
    );
  }
  return (
    <a
      href={query} data-testid={testId}
      onClick={(e) => {
        // a new tab or window gets the plain address
        if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
        e.preventDefault();
        followLink(store, window.location, window.history, query);
      }}
    >
      {children}
    </a>
  );
}

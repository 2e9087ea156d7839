// Keyboard shortcuts: one keydown listener for the page, running the commands of
// state/commands.ts, and the help overlay that lists them (a modal dialog: focus stays inside
// while it is open, Escape or the close button closes it, focus then returns where it was).
import { useEffect, useRef } from 'react';
import { COMMANDS, commandForKey } from '../state/commands';
import type { LabStore } from '../state/store';
import { useLab, useLabStore } from './LabStore';

/** Registers the shortcuts once for the life of the page. */
export function useShortcuts(): void {
  const store = useLabStore();
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => handleKey(store, e);
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [store]);
}

function handleKey(store: LabStore, e: KeyboardEvent): void {
  if (e.defaultPrevented) return;
  const el = e.target instanceof HTMLElement ? e.target : null;
  const target = el && { tagName: el.tagName, isContentEditable: el.isContentEditable, role: el.getAttribute('role') };
  const c = commandForKey(e, target);
  if (!c) return;
  const s = store.getState();
  // inside the help dialog only the help key itself (and Escape, handled there) acts
  if (s.view.helpOpen && c.id !== 'help') return;
  // a disabled command leaves the key alone (Space still scrolls the page)
  if (!c.enabled(s)) return;
  e.preventDefault();
  c.run(s);
}

const FOCUSABLE = 'button:not([disabled]), [href], input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

function trapTab(dialog: HTMLElement, e: React.KeyboardEvent): void {
  const items = [...dialog.querySelectorAll<HTMLElement>(FOCUSABLE)];
  if (items.length === 0) return;
  const first = items[0];
  const last = items[items.length - 1];
  if (e.shiftKey && document.activeElement === first) {
    e.preventDefault();
    last.focus();
  } else if (!e.shiftKey && document.activeElement === last) {
    e.preventDefault();
    first.focus();
  }
}

export function HelpOverlay() {
  const open = useLab((s) => s.view.helpOpen);
  const setOpen = useLab((s) => s.setHelpOpen);
  const dialog = useRef<HTMLDivElement>(null);
  const closeButton = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (!open) return;
    const before = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    closeButton.current?.focus();
    return () => before?.focus();
  }, [open]);
  if (!open) return null;
  const onKeyDown = (e: React.KeyboardEvent) => {
    if (e.key === 'Escape') {
      e.preventDefault();
      setOpen(false);
    } else if (e.key === 'Tab' && dialog.current) trapTab(dialog.current, e);
  };
  return (
    <div className="overlay" onMouseDown={(e) => e.target === e.currentTarget && setOpen(false)}>
      <div ref={dialog} className="dialog" role="dialog" aria-modal="true" aria-labelledby="shortcuts-title" data-testid="shortcuts-help" onKeyDown={onKeyDown}>
        <h2 id="shortcuts-title">Keyboard shortcuts</h2>
        <p className="detail">They act on the selected run, and do nothing while you type in a form field.</p>
        <dl className="shortcut-list">
          {COMMANDS.filter((c) => c.keyLabel).map((c) => (
            <div key={c.id} data-testid="shortcut">
              <dt>
                <kbd>{c.keyLabel}</kbd>
              </dt>
              <dd>{c.title}</dd>
            </div>
          ))}
          <div>
            <dt>
              <kbd>Esc</kbd>
            </dt>
            <dd>Close this list</dd>
          </div>
        </dl>
        <div className="actions">
          <button ref={closeButton} type="button" data-testid="shortcuts-close" onClick={() => setOpen(false)}>
            Close
          </button>
        </div>
      </div>
    </div>
  );
}

// Keyboard shortcuts: one keydown listener for the page, running the commands of
// state/commands.ts, and the help that lists them in the browser's own modal <dialog>
// (showModal makes the page behind it inert and closes on Escape; focus then returns where it was).
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

export function HelpOverlay() {
  const open = useLab((s) => s.view.helpOpen);
  const setOpen = useLab((s) => s.setHelpOpen);
  const dialog = useRef<HTMLDialogElement>(null);
  const closeButton = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    const d = dialog.current;
    if (!d || !open) return;
    const before = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    if (!d.open) d.showModal();
    closeButton.current?.focus();
    return () => {
      if (d.open) d.close();
      before?.focus();
    };
  }, [open]);
  return (
    // Escape closes the dialog itself (its `close` event tells the store); a click on the
    // backdrop lands on the <dialog> element, outside its content
    <dialog
      ref={dialog}
      className="dialog"
      aria-labelledby="shortcuts-title"
      data-testid="shortcuts-help"
      onClose={() => setOpen(false)}
      onMouseDown={(e) => e.target === e.currentTarget && setOpen(false)}
    >
      <div className="dialog-body">
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
    </dialog>
  );
}

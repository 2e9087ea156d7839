// TTSP's target field: the base policy's shipped targets (public/models/<base>/ttsp_targets.json:
// MidHard and VeryHard with the base's mean@512) to pick from, or a problem typed by hand. A pick
// sets the target and the base rate the charts draw as a reference line; a typed problem sets the
// rate the list measured for it, or −1 (not measured).
import { useEffect, useState } from 'react';
import { parseTargetList, resolveTarget, TARGET_LIST_FILE, type TargetList } from '../loops/registry';
import { useLab } from './LabStore';

type ListState = { status: 'loading' } | { status: 'none'; why: string } | { status: 'ready'; list: TargetList };

const TYPED = '';

export function TargetInput({ id, value, disabled, invalid }: { id: string; value: unknown; disabled: boolean; invalid: boolean }) {
  const policy = useLab((s) => s.launcher.state.policy ?? (s.catalog.status === 'ready' ? s.catalog.catalog.defaultPolicy : null));
  const setField = useLab((s) => s.setField);
  const [state, setState] = useState<ListState>({ status: 'loading' });
  const [text, setText] = useState(String(value ?? ''));
  useEffect(() => setText(String(value ?? '')), [value]);
  useEffect(() => {
    if (!policy) return setState({ status: 'none', why: 'no base policy chosen' });
    let live = true;
    const url = new URL(`models/${policy}/${TARGET_LIST_FILE}`, new URL(import.meta.env.BASE_URL, window.location.origin));
    fetch(url, { cache: 'no-cache' })
      .then(async (res) => {
        if (!res.ok || !(res.headers.get('content-type') ?? '').includes('json')) throw new Error(`${policy} ships no target list`);
        return parseTargetList(await res.json(), url.pathname);
      })
      .then((list) => live && setState({ status: 'ready', list }))
      .catch((e: Error) => live && setState({ status: 'none', why: e.message }));
    return () => {
      live = false;
    };
  }, [policy]);
  const list = state.status === 'ready' ? state.list : null;
  const set = (arg: string) => {
    let r: { target: string; targetBaseRate: number };
    try {
      r = resolveTarget(arg, list);
    } catch {
      // "midhard:99" being typed: the field's own check says what is wrong with it
      r = { target: arg, targetBaseRate: -1 };
    }
    setField('loop', 'target', r.target);
    setField('loop', 'targetBaseRate', r.targetBaseRate);
  };
  const all = list ? [...list.midHard, ...list.veryHard] : [];
  const picked = all.find((t) => t.text === value)?.id ?? TYPED;
  return (
    <div className="target-input" data-testid="target-input">
      <select aria-label="shipped target" data-testid="target-pick" value={picked} disabled={disabled || !list} onChange={(e) => e.target.value !== TYPED && set(e.target.value)}>
        <option value={TYPED}>{state.status === 'loading' ? 'loading the shipped targets…' : state.status === 'none' ? `typed (${state.why})` : 'typed below'}</option>
        {list && (
          <>
            <optgroup label={`MidHard (base mean@${list.n} in 0.1–0.7)`}>
              {list.midHard.map((t) => (
                <option key={t.id} value={t.id}>{`${t.id}  ${t.text}  (base ${t.passRate.toFixed(3)})`}</option>
              ))}
            </optgroup>
            <optgroup label={`VeryHard (base mean@${list.n} ≤ 0.1)`}>
              {list.veryHard.map((t) => (
                <option key={t.id} value={t.id}>{`${t.id}  ${t.text}  (base ${t.passRate.toFixed(3)})`}</option>
              ))}
            </optgroup>
          </>
        )}
      </select>
      <input
        id={id} type="text" spellCheck={false} autoComplete="off" value={text} disabled={disabled} aria-invalid={invalid} data-testid="target-text"
        onChange={(e) => {
          setText(e.target.value);
          set(e.target.value);
        }}
      />
    </div>
  );
}

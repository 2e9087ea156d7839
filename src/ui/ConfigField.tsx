// One knob of the launcher, generated from its FieldSpec: the input suits the field's type,
// the paper's value sits beside it, the help is one line (all of it on hover), and the field's
// own validation message shows under it. Fields the user changed can be reset to the layer below.
import { corpusRefusal, corpusSizeProblem, corpusTextProblem } from '../config/corpusFile';
import { corpusRef } from '../state/persist/corpusArchive';
import { MAX_PARAM_CHARS } from '../state/url';
import { useEffect, useId, useMemo, useState } from 'react';
import { showText } from '../util/show';
// the `corpus` value that names the lab's own corpus (a file's text otherwise)
import { GENERATED_CORPUS as GENERATED, type Field } from '../config/fields';
import { baseValue, effectiveValue, fieldError, fieldSpec, formatValue, parseInput, type Section } from '../state/launcher';
import { useLab } from './LabStore';
import { loopNamed } from '../loops/registry';
import { TargetInput } from './TargetInput';
import { widgetOf } from './fieldWidget';

function inputText(v: unknown, f: Field): string {
  return v === null && f.kind === 'number' ? '' : formatValue(v);
}

function TextInput({ id, value, field, disabled, invalid, onValue }: { id: string; value: unknown; field: Field; disabled: boolean; invalid: boolean; onValue: (v: unknown) => void }) {
  const [text, setText] = useState(inputText(value, field));
  // follow changes made elsewhere (URL, preset, reset) without fighting the user's typing
  useEffect(() => {
    if (!Object.is(parseInput(field, text), value)) setText(inputText(value, field));
  }, [value, field, text]);
  return (
    <input
      id={id}
      type="text"
      inputMode={field.kind === 'number' ? 'decimal' : undefined}
      spellCheck={false}
      autoComplete="off"
      value={text}
      placeholder={field.kind === 'number' && field.nullable ? 'off' : undefined}
      disabled={disabled}
      aria-invalid={invalid}
      onChange={(e) => {
        setText(e.target.value);
        onValue(parseInput(field, e.target.value));
      }}
    />
  );
}

/**
 * A corpus field: the lab's generated corpus or a file of the user's, one document a line. A file
 * is checked by the loop's own validator before it is taken: a bad one is refused with its bad
 * lines named and the corpus in use stays as it was.
 */
function CorpusInput({ id, value, disabled, onValue }: { id: string; value: unknown; disabled: boolean; onValue: (v: unknown) => void }) {
  const loop = useLab((s) => s.launcher.state.loop);
  const keepCorpus = useLab((s) => s.keepCorpus);
  const known = useLab((s) => s.corpora.byRef);
  const saveError = useLab((s) => s.corpora.saveError);
  const [error, setError] = useState<string | null>(null);
  const text = typeof value === 'string' ? value : GENERATED;
  const lines = useMemo(() => (text === GENERATED ? [] : text.split('\n').map((l) => l.trim()).filter(Boolean)), [text]);
  // the file's name as uploaded here or before a reload (the link names the corpus by its hash)
  const name = text === GENERATED ? null : (known[corpusRef(text)]?.fileName ?? null);
  const choose = async (file: File) => {
    setError(null);
    // the size before the read: a 300 MB file read as text crashed the tab
    const tooBig = corpusSizeProblem(showText(file.name), file.size);
    if (tooBig) return setError(`${tooBig}; the corpus in use is unchanged`);
    const body = await file.text();
    // a file is a file: its text "generated" would silently name the built-in corpus
    const notCorpus = corpusTextProblem(showText(file.name), body);
    if (notCorpus) return setError(notCorpus);
    try {
      loopNamed(loop).spec.validate({ corpus: body }, 'corpus');
    } catch (e) {
      return setError(corpusRefusal(file.name, (e as Error).message, 'the corpus in use is unchanged'));
    }
    // known under its name at once, so the link written next names it; the browser's copy is
    // written meanwhile (a failed write is said beside the field)
    void keepCorpus(file.name, body);
    onValue(body);
  };
  return (
    <div className="corpus-input" data-testid="corpus-input" data-corpus={text === GENERATED ? GENERATED : 'file'} data-documents={lines.length || undefined}>
      <span id={id} className="corpus-what" data-testid="corpus-what">
        {text === GENERATED ? 'the generated corpus' : `${name === null ? 'a corpus file' : showText(name)}: ${lines.length} document${lines.length === 1 ? '' : 's'} (first: ${showText(lines[0] ?? '')})`}
      </span>
      <label htmlFor={`${id}-file`} className={`file-button${disabled ? ' disabled' : ''}`}>
        Upload corpus…
      </label>
      <input
        id={`${id}-file`} type="file" accept=".txt,text/plain" className="visually-hidden" data-testid="corpus-upload" disabled={disabled}
        onChange={(e) => {
          const f = e.target.files?.[0];
          e.target.value = '';
          if (f) void choose(f);
        }}
      />
      {text !== GENERATED && (
        <button type="button" className="link" disabled={disabled} onClick={() => (setError(null), onValue(GENERATED))}>
          use the generated corpus
        </button>
      )}
      {error && (
        <p className="cfg-error" role="alert" data-testid="corpus-error">
          {error}
        </p>
      )}
      {text !== GENERATED && text.length > MAX_PARAM_CHARS && saveError && (
        <p className="cfg-help" data-testid="corpus-unsaved">
          {saveError}
        </p>
      )}
    </div>
  );
}

function FieldInput({ id, value, field, disabled, invalid, onValue }: { id: string; value: unknown; field: Field; disabled: boolean; invalid: boolean; onValue: (v: unknown) => void }) {
  const widget = widgetOf(field);
  if (widget.kind === 'corpus') return <CorpusInput id={id} value={value} disabled={disabled} onValue={onValue} />;
  if (widget.kind === 'target') return <TargetInput id={id} value={value} disabled={disabled} invalid={invalid} />;
  if (widget.kind === 'checkbox') {
    return <input id={id} type="checkbox" checked={value === true} disabled={disabled} aria-invalid={invalid} onChange={(e) => onValue(e.target.checked)} />;
  }
  const choices = widget.kind === 'select' ? widget.choices : null;
  if (choices) {
    const current = String(value);
    return (
      <select id={id} value={current} disabled={disabled} aria-invalid={invalid} onChange={(e) => onValue(e.target.value)}>
        {!choices.includes(current) && <option value={current}>{current} (unknown)</option>}
        {choices.map((c) => (
          <option key={c} value={c}>
            {c}
          </option>
        ))}
      </select>
    );
  }
  return <TextInput id={id} value={value} field={field} disabled={disabled} invalid={invalid} onValue={onValue} />;
}

export function ConfigField({ section, name, highlighted, disabled: off = false }: { section: Section; name: string; highlighted: boolean; disabled?: boolean }) {
  const id = useId();
  const [helpOpen, setHelpOpen] = useState(false);
  // a lesson link can fix a field at the link's value (url.ts)
  const locked = useLab((s) => s.lesson.lock.includes(name));
  const disabled = off || locked;
  const launcher = useLab((s) => s.launcher.state);
  const spec = fieldSpec(launcher, section, name);
  const setField = useLab((s) => s.setField);
  const value = effectiveValue(launcher, section, name);
  const edited = Object.hasOwn(section === 'loop' ? launcher.fields : launcher.rl, name);
  // a value the RL preset or the loop's set-up gives, not the field's own default
  const fromPreset = !edited && !Object.is(value, spec.default);
  const error = fieldError(launcher, section, name);
  const origin = edited ? 'edited' : fromPreset ? 'preset' : 'default';
  return (
    <div className={`cfg-field cfg-${origin}${highlighted || error ? ' cfg-invalid' : ''}`} data-testid={`field-${name}`} data-origin={origin} data-locked={locked || undefined}>
      <div className="cfg-head">
        <label htmlFor={id}>{name}</label>
        <span className="cfg-paper" title="the value in the papers">
          paper: {spec.paper}
        </span>
      </div>
      <div className="cfg-input">
        <FieldInput id={id} value={value} field={spec.type} disabled={disabled} invalid={Boolean(error) || highlighted} onValue={(v) => setField(section, name, v)} />
        {edited && (
          <button type="button" className="link" disabled={disabled} title={`back to ${formatValue(baseValue(launcher, section, name))}`} onClick={() => setField(section, name, baseValue(launcher, section, name))}>
            reset
          </button>
        )}
        {fromPreset && <span className="cfg-tag">preset</span>}
        {locked && (
          <span className="cfg-tag" title="fixed by the link this page was opened with">
            locked
          </span>
        )}
      </div>
      {/* one line; a click or a tap opens all of it (hover shows it too) */}
      <p className={`cfg-help${helpOpen ? ' open' : ''}`} title={spec.help}>
        <button type="button" className="help-toggle" data-testid="help-toggle" aria-expanded={helpOpen} onClick={() => setHelpOpen(!helpOpen)}>
          {spec.help}
        </button>
      </p>
      {error && <p className="cfg-error">{error}</p>}
    </div>
  );
}

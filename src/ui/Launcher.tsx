// The run launcher: loop, base policy, the loop's set-up, RL preset and seed on top, then every
// knob of the loop and of the RL core, generated from the registry's field specs. The set-up
// lives in the URL.
import { useId } from 'react';
import { RL_CORE_PRESETS, type RlCorePresetName } from '../rl/config';
import type { Section } from '../state/launcher';
import { LOOP_CHOICES, loopKeys, loopLabel, loopSpec, presetNames, rlKeys, setupNames } from '../state/launcher';
import { selectExclusiveJob, selectRunsReady, type LabState } from '../state/store';
import { selectCpuModeOffered } from '../state/cpuModeSlice';
import { CPU_MODE } from '../lab/protocol/cpuMode';
import { ConfigField } from './ConfigField';
import { AdapterStart } from './AdapterStart';
import { useLab } from './LabStore';
import { Panel } from './Panel';
import { PolicyUpload } from './PolicyUpload';

/** Fields of the "Data and evaluation" group; a loop's other fields (but the seed) are its "Run" group. */
const DATA_FIELDS = ['trainSet', 'trainProblems', 'evalSet', 'evalEvery', 'evalProblems', 'evalN', 'samplesPerStep', 'checkpointEvery'];

function presetSummary(name: RlCorePresetName): string {
  const p = RL_CORE_PRESETS[name] as Record<string, unknown>;
  const keys = Object.keys(p);
  return keys.length === 0 ? 'the defaults' : keys.map((k) => `${k} ${String(p[k])}`).join(', ');
}

function PolicyOption({ name, params }: { name: string; params: number | null }) {
  return (
    <option value={name}>
      {name}
      {params ? ` (${(params / 1000).toFixed(0)}k parameters)` : ''}
    </option>
  );
}

function TopRow({ highlighted }: { highlighted: string | null }) {
  const loopId = useId();
  const policyId = useId();
  const presetId = useId();
  const state = useLab((s) => s.launcher.state);
  const catalog = useLab((s) => s.catalog);
  const setLoop = useLab((s) => s.setLoop);
  const setPolicy = useLab((s) => s.setPolicy);
  const setPreset = useLab((s) => s.setRlPreset);
  const setSetup = useLab((s) => s.setSetup);
  const setupId = useId();
  const spec = loopSpec(state);
  const cpu = useLab((s) => s.cpuMode.status === 'on');
  const allUploads = useLab((s) => s.uploads.list);
  // CPU mode trains only the policy it is sized for
  const uploads = cpu ? [] : allUploads;
  const lock = useLab((s) => s.lesson.lock);
  const uploadHidden = useLab((s) => s.lesson.hide.includes('upload'));
  const shipped = (catalog.status === 'ready' ? catalog.catalog.policies : []).filter((p) => !cpu || p.name === CPU_MODE.policy);
  const policies = [...shipped, ...uploads];
  const policy = state.policy ?? (catalog.status === 'ready' ? catalog.catalog.defaultPolicy : null) ?? '';
  const info = policies.find((p) => p.name === policy);
  return (
    <div className="launcher-top">
      <div className={`field${highlighted === 'loop' ? ' cfg-invalid' : ''}`}>
        <label htmlFor={loopId}>Loop</label>
        <select id={loopId} data-testid="launcher-loop" value={state.loop} disabled={lock.includes('loop')} onChange={(e) => setLoop(e.target.value)}>
          {LOOP_CHOICES.map((c) => (
            <option key={c.name} value={c.name} disabled={!c.available}>
              {c.title}
              {c.available ? '' : ' (coming)'}
            </option>
          ))}
        </select>
        <p className="field-note" data-testid="launcher-loop-summary">
          {spec.summary}
          {spec.paper && (
            <>
              {' '}
              {spec.paper.url ? (
                <a href={spec.paper.url} target="_blank" rel="noreferrer">
                  {spec.paper.title}
                </a>
              ) : (
                <cite>{spec.paper.title}</cite>
              )}
            </>
          )}
        </p>
      </div>
      <div className={`field${highlighted === 'setup' ? ' cfg-invalid' : ''}`}>
        <label htmlFor={setupId}>Set-up</label>
        <select id={setupId} data-testid="launcher-setup" value={state.setup} disabled={lock.includes('setup')} onChange={(e) => setSetup(e.target.value)}>
          {setupNames(state).map((n) => (
            <option key={n} value={n}>
              {spec.presets[n].title}
            </option>
          ))}
        </select>
        <p className="field-note">{spec.presets[state.setup]?.note}</p>
      </div>
      <div className={`field${highlighted === 'policy' ? ' cfg-invalid' : ''}`}>
        <label htmlFor={policyId}>Base policy</label>
        <select id={policyId} data-testid="launcher-policy" value={policy} disabled={policies.length === 0 || lock.includes('policy')} onChange={(e) => setPolicy(e.target.value)}>
          {policy !== '' && !info && <option value={policy}>{policy} (not available)</option>}
          {catalog.status === 'loading' && <option value="">loading…</option>}
          {shipped.map((p) => (
            <PolicyOption key={p.name} name={p.name} params={p.params} />
          ))}
          {uploads.length > 0 && (
            <optgroup label="Uploaded (this browser only)">
              {uploads.map((p) => (
                <PolicyOption key={p.name} name={p.name} params={p.params} />
              ))}
            </optgroup>
          )}
        </select>
        {info && <p className="field-note">{info.description}</p>}
        {!uploadHidden && !cpu && <PolicyUpload disabled={lock.includes('policy')} />}
      </div>
      <div className={`field${highlighted === 'preset' ? ' cfg-invalid' : ''}`}>
        <label htmlFor={presetId}>RL preset</label>
        <select id={presetId} data-testid="launcher-preset" value={state.preset} disabled={lock.includes('preset')} onChange={(e) => setPreset(e.target.value as RlCorePresetName)}>
          {presetNames(state).map((n) => (
            <option key={n} value={n}>
              {n}
            </option>
          ))}
        </select>
        <p className="field-note">{presetSummary(state.preset)}</p>
      </div>
      <ConfigField section="loop" name="seed" highlighted={highlighted === 'seed'} />
    </div>
  );
}

function FieldGroup({ title, section, names, highlighted, open }: { title: string; section: Section; names: readonly string[]; highlighted: string | null; open: boolean }) {
  const edited = useLab((s) => names.filter((n) => Object.hasOwn(section === 'loop' ? s.launcher.state.fields : s.launcher.state.rl, n)).length);
  const key = (n: string) => (section === 'rl' ? `rl.${n}` : n);
  return (
    <details className="cfg-group" open={open || names.some((n) => key(n) === highlighted)}>
      <summary>
        {title}
        {edited > 0 && <span className="cfg-count">{edited} changed</span>}
      </summary>
      <div className="cfg-grid">
        {names.map((n) => (
          <ConfigField key={n} section={section} name={n} highlighted={key(n) === highlighted} />
        ))}
      </div>
    </details>
  );
}

/** What the page could not make of its address (shown in the launcher, or alone when a lesson link hides it). */
export function AddressWarnings() {
  const warnings = useLab((s) => s.launcher.warnings);
  if (warnings.length === 0) return null;
  return (
    <div className="notice notice-warn" data-testid="launcher-warnings">
      <h3>Parts of the address were not understood</h3>
      <ul>
        {warnings.map((w) => (
          <li key={w}>{w}</li>
        ))}
      </ul>
    </div>
  );
}

/**
 * The primary action above the fold: the loop, the set-up and the base policy (the launcher's
 * own fields, shared with the form below) and Start. After a start the page goes to the run.
 * `fixed` (a lesson's `hide=launcher`): the set-up is shown, not offered, and Start stays.
 */
export function StartBar({ fixed = false, knobsBelow = true }: { fixed?: boolean; knobsBelow?: boolean }) {
  const state = useLab((s) => s.launcher.state);
  const resolved = useLab((s) => s.launcher.resolved);
  const catalog = useLab((s) => s.catalog);
  const why = useLab(whyNoStart);
  const start = useLab((s) => s.startRun);
  const setLoop = useLab((s) => s.setLoop);
  const setSetup = useLab((s) => s.setSetup);
  const setPolicy = useLab((s) => s.setPolicy);
  const lock = useLab((s) => s.lesson.lock);
  const cpu = useLab((s) => s.cpuMode.status === 'on');
  const uploads = useLab((s) => s.uploads.list);
  const spec = loopSpec(state);
  const shipped = (catalog.status === 'ready' ? catalog.catalog.policies : []).filter((p) => !cpu || p.name === CPU_MODE.policy);
  const policies = [...shipped, ...(cpu ? [] : uploads)];
  const policy = state.policy ?? (catalog.status === 'ready' ? catalog.catalog.defaultPolicy : null) ?? '';
  const go = async () => {
    const run = start();
    // the run's status and charts, not the form, once it has started
    await Promise.resolve();
    document.querySelector('.runs')?.scrollIntoView({ behavior: 'smooth', block: 'start' });
    await run;
  };
  const why2 = !resolved.ok ? (knobsBelow ? 'Fix the set-up in New run below.' : resolved.message) : why ?? (knobsBelow ? 'Every other knob is under New run below.' : fixed ? 'The lesson fixes this set-up.' : null);
  if (fixed) {
    return (
      <form className="panel startbar" aria-label="Start the lesson's run" data-testid="startbar" data-fixed onSubmit={(e) => (e.preventDefault(), void go())}>
        <span className="startbar-fixed" data-testid="startbar-fixed">
          {loopLabel(state.loop)} · {spec.presets[state.setup]?.title ?? state.setup} · {policy || 'the default policy'}
        </span>
        <button type="submit" data-testid="startbar-start" disabled={!resolved.ok || why !== null}>
          Start run
        </button>
        {why2 && <span className="status" data-testid="startbar-why">{why2}</span>}
      </form>
    );
  }
  return (
    <form className="panel startbar" aria-label="Start a run" data-testid="startbar" onSubmit={(e) => (e.preventDefault(), void go())}>
      <label>
        Loop{' '}
        <select data-testid="startbar-loop" value={state.loop} disabled={lock.includes('loop')} onChange={(e) => setLoop(e.target.value)}>
          {LOOP_CHOICES.filter((c) => c.available).map((c) => (
            <option key={c.name} value={c.name}>
              {loopLabel(c.name)}
            </option>
          ))}
        </select>
      </label>
      <label>
        Set-up{' '}
        <select data-testid="startbar-setup" value={state.setup} disabled={lock.includes('setup')} onChange={(e) => setSetup(e.target.value)}>
          {setupNames(state).map((n) => (
            <option key={n} value={n}>
              {spec.presets[n].title}
            </option>
          ))}
        </select>
      </label>
      <label>
        Policy{' '}
        <select data-testid="startbar-policy" value={policy} disabled={policies.length === 0 || lock.includes('policy')} onChange={(e) => setPolicy(e.target.value)}>
          {policy !== '' && !policies.some((p) => p.name === policy) && <option value={policy}>{policy}</option>}
          {policies.map((p) => (
            <option key={p.name} value={p.name}>
              {p.name}
            </option>
          ))}
        </select>
      </label>
      <button type="submit" data-testid="startbar-start" disabled={!resolved.ok || why !== null}>
        Start run
      </button>
      {why2 && <span className="status" data-testid="startbar-why">{why2}</span>}
    </form>
  );
}

/** Why a run cannot start now (beside the launcher's own validation), or null. */
function whyNoStart(s: LabState): string | null {
  if (!selectRunsReady(s)) return selectCpuModeOffered(s) ? 'Needs WebGPU, or CPU mode (see the top of the page).' : 'Needs a working WebGPU device (see the adapter panel).';
  if (s.cpuMode.status === 'on' && s.launcher.resolved.ok && s.launcher.resolved.policy !== CPU_MODE.policy) return `CPU mode trains only the ${CPU_MODE.policy} policy: pick it above.`;
  if (selectExclusiveJob(s)) return 'Wait for the self-test or the demo to finish.';
  return null;
}

export function Launcher() {
  const resolved = useLab((s) => s.launcher.resolved);
  const why = useLab(whyNoStart);
  const start = useLab((s) => s.startRun);
  const reset = useLab((s) => s.resetLauncher);
  const highlighted = resolved.ok ? null : resolved.field;
  const launcherState = useLab((s) => s.launcher.state);
  const keys = loopKeys(launcherState);
  const runFields = keys.filter((k) => k !== 'seed' && !DATA_FIELDS.includes(k));
  const dataFields = keys.filter((k) => DATA_FIELDS.includes(k));
  return (
    <Panel title="New run" className="launcher" intro="Pick a loop, a base policy and a preset; every knob below is documented, with the papers' value beside it. The set-up is kept in the page address, so a link reproduces it.">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void start();
        }}
      >
        <TopRow highlighted={highlighted} />
        <FieldGroup title="Run" section="loop" names={runFields} highlighted={highlighted} open />
        <AdapterStart />
        <FieldGroup title="Data and evaluation" section="loop" names={dataFields} highlighted={highlighted} open={false} />
        <FieldGroup title="RL core (loss, advantages, filtering)" section="rl" names={rlKeys(launcherState)} highlighted={highlighted} open={false} />
        <AddressWarnings />
        {!resolved.ok && (
          <p className="cfg-error launcher-error" role="status" data-testid="launcher-error">
            {resolved.message}
          </p>
        )}
        <div className="actions">
          <button type="submit" data-testid="run-start" disabled={!resolved.ok || why !== null}>
            Start run
          </button>
          <button type="button" className="secondary" onClick={reset}>
            Reset to defaults
          </button>
          {why && <span className="status">{why}</span>}
        </div>
      </form>
    </Panel>
  );
}

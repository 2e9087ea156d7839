// Commands shared by buttons and shortcuts: keys map to commands except while typing (form
// fields, editable text) or with modifiers, Space is left to a focused button, and each command
// acts on the selected live run only when its button would be enabled. Also run ticking for
// comparison in the store, and the screen wake lock held exactly while wanted.
import { describe, expect, it, vi } from 'vitest';
import type { AdapterReport, RunBatch, RunStatus } from '../../src/lab/protocol';
import { command, commandForKey, type KeyTarget } from '../../src/state/commands';
import { createLabStore } from '../../src/state/store';
import { WakeLockKeeper, type WakeLockSentinelLike } from '../../src/state/wakeLock';
import { fakeLabClient } from '../helpers/labClient';

const READY: AdapterReport = { ok: true, adapter: { name: 'fake', vendor: 'v', architecture: 'a', description: '', features: [], limits: {} }, deviceLimits: {} };
const key = (k: string, mods: Partial<{ ctrlKey: boolean; altKey: boolean; metaKey: boolean }> = {}) => ({ key: k, ctrlKey: false, altKey: false, metaKey: false, ...mods });
const el = (tagName: string, more: Partial<KeyTarget> = {}): KeyTarget => ({ tagName, isContentEditable: false, role: null, ...more });
const settle = () => new Promise((r) => setTimeout(r, 0));

describe('commandForKey', () => {
  it('maps Space, s and ? to their commands on the page body', () => {
    expect(commandForKey(key(' '), el('BODY'))?.id).toBe('toggle-pause');
    expect(commandForKey(key('s'), el('BODY'))?.id).toBe('step');
    expect(commandForKey(key('S'), el('BODY'))?.id).toBe('step');
    expect(commandForKey(key('?'), el('DIV'))?.id).toBe('help');
    expect(commandForKey(key('x'), el('BODY'))).toBeNull();
    expect(commandForKey(key('s'), null)?.id).toBe('step');
  });

  it('ignores keys typed into form fields or editable text, and keys with modifiers', () => {
    for (const t of [el('INPUT'), el('TEXTAREA'), el('SELECT'), el('DIV', { isContentEditable: true })]) {
      expect(commandForKey(key('s'), t)).toBeNull();
      expect(commandForKey(key(' '), t)).toBeNull();
      expect(commandForKey(key('?'), t)).toBeNull();
    }
    expect(commandForKey(key('s', { ctrlKey: true }), el('BODY'))).toBeNull();
    expect(commandForKey(key('s', { metaKey: true }), el('BODY'))).toBeNull();
  });

  it('leaves Space to a focused button or link, but not the other shortcuts', () => {
    expect(commandForKey(key(' '), el('BUTTON'))).toBeNull();
    expect(commandForKey(key(' '), el('DIV', { role: 'button' }))).toBeNull();
    expect(commandForKey(key('s'), el('BUTTON'))?.id).toBe('step');
  });
});

function storeWithRun() {
  let onBatch: (b: RunBatch) => void = () => undefined;
  const frames: (() => void)[] = [];
  const client = fakeLabClient({
    init: async () => READY,
    startRun: (_spec, cb) => ((onBatch = cb), new Promise<RunStatus>(() => undefined)),
    pauseRun: vi.fn(async () => undefined), resumeRun: vi.fn(async () => undefined), stepRun: vi.fn(async () => undefined), stopRun: vi.fn(async () => undefined), setRunKnobs: vi.fn(async () => 1),
  });
  let n = 0;
  const store = createLabStore(client, {
    fetchCatalog: async () => ({ defaultPolicy: 'tiny', policies: [{ name: 'tiny', description: '', params: null }] }), archive: null, newRunId: () => `r${++n}`, now: () => n,
  }, (cb) => void frames.push(cb));
  const setState = (state: RunStatus['state'], id = 'r1') => {
    onBatch({ runId: id, step: new Float64Array(), seconds: new Float64Array(), keys: [], metrics: new Float64Array(), samples: [], records: [], evals: [], status: { state, step: 0, totalSteps: 3, stepsPerS: null, etaS: null, error: null } });
    frames.splice(0).forEach((f) => f());
  };
  return { store, client, setState };
}

describe('commands on the store', () => {
  it('toggle-pause pauses a running run and resumes a paused one; step only on a paused run', async () => {
    const { store, client, setState } = storeWithRun();
    await store.getState().initDevice();
    await store.getState().loadCatalog();
    expect(command('toggle-pause').enabled(store.getState())).toBe(false);
    void store.getState().startRun();
    await settle();
    setState('running');
    const toggle = command('toggle-pause');
    expect(command('step').enabled(store.getState())).toBe(false);
    toggle.run(store.getState());
    expect(client.pauseRun).toHaveBeenCalledWith('r1');
    setState('paused');
    expect(command('step').enabled(store.getState())).toBe(true);
    command('step').run(store.getState());
    expect(client.stepRun).toHaveBeenCalledWith('r1');
    toggle.run(store.getState());
    expect(client.resumeRun).toHaveBeenCalledWith('r1');
    setState('done');
    expect(toggle.enabled(store.getState())).toBe(false);
  });

  it('help opens and closes the overlay', () => {
    const { store } = storeWithRun();
    command('help').run(store.getState());
    expect(store.getState().view.helpOpen).toBe(true);
    command('help').run(store.getState());
    expect(store.getState().view.helpOpen).toBe(false);
  });

  it('ticks runs for comparison in ticking order and forgets deleted runs', async () => {
    const { store, setState } = storeWithRun();
    await store.getState().initDevice();
    await store.getState().loadCatalog();
    void store.getState().startRun();
    void store.getState().startRun();
    await settle();
    store.getState().toggleCompare('r2');
    store.getState().toggleCompare('r1');
    store.getState().toggleCompare('nope');
    // in ticking order: the first ticked is the comparison's base
    expect(store.getState().runs.compared).toEqual(['r2', 'r1']);
    store.getState().toggleCompare('r2');
    expect(store.getState().runs.compared).toEqual(['r1']);
    setState('done', 'r1');
    await store.getState().deleteRun('r1');
    expect(store.getState().runs.compared).toEqual([]);
  });
});

function fakeWakeLock() {
  const held: WakeLockSentinelLike[] = [];
  let refuse = false;
  const api = {
    request: vi.fn(async () => {
      if (refuse) throw new Error('NotAllowedError');
      const listeners: (() => void)[] = [];
      const s: WakeLockSentinelLike = {
        released: false,
        release: async () => {
          s.released = true;
          listeners.forEach((l) => l());
        },
        addEventListener: (_t, cb) => void listeners.push(cb),
      };
      held.push(s);
      return s;
    }),
  };
  return { api, held, refuseNext: () => (refuse = true) };
}

describe('WakeLockKeeper', () => {
  it('holds one lock while wanted, releases it when not, and takes a new one after the browser drops it', async () => {
    const { api, held } = fakeWakeLock();
    const statuses: string[] = [];
    const k = new WakeLockKeeper(api, (s) => statuses.push(s));
    await Promise.all([k.want(true), k.want(true)]);
    expect(api.request).toHaveBeenCalledTimes(1);
    expect(k.status).toBe('held');
    await k.want(false);
    expect(held[0].released).toBe(true);
    expect(k.status).toBe('off');
    await k.want(true);
    await held[1].release(); // the page was hidden
    expect(k.status).toBe('off');
    await k.want(true);
    expect(api.request).toHaveBeenCalledTimes(3);
    expect(statuses).toEqual(['held', 'off', 'held', 'off', 'held']);
  });

  it('reports no API and a refusal instead of failing', async () => {
    const none = new WakeLockKeeper(undefined);
    await none.want(true);
    expect(none.status).toBe('unsupported');
    const { api, refuseNext } = fakeWakeLock();
    refuseNext();
    const k = new WakeLockKeeper(api);
    await k.want(true);
    expect(k.status).toBe('refused');
  });
});

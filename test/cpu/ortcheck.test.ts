// The ORT check's verdict (src/selftest/ortcheck.ts): logits compared element by element under
// the stated tolerance, greedy tokens position by position with near ties allowed, and prompts
// that fit the policy's context; the store runs it on the launcher's policy. The browser run itself is test/e2e/ortcheck.test.ts.
import { describe, expect, it, vi } from 'vitest';
import { checkPrompts, compareWithOrt, ORT_TOLERANCE } from '../../src/selftest/ortcheck';
import type { OrtCheckResult } from '../../src/lab/protocol';
import { createLabStore, selectBusy, type StoreServices } from '../../src/state/store';
import { selectCurrentPolicy } from '../../src/state/selfTestSlice';
import { fakeLabClient } from '../helpers/labClient';

const B = 2, T = 5, V = 4, promptLen = 2;

/** Logits whose argmax at each position is the next token of `tokens` by a margin of 1. */
function logitsFor(tokens: number[]): Float32Array {
  const out = new Float32Array(B * T * V);
  for (let b = 0; b < B; b++) for (let t = 0; t < T - 1; t++) out[(b * T + t) * V + tokens[b * T + t + 1]] = 1;
  return out;
}

const tokens = [1, 2, 3, 0, 1, 2, 2, 1, 3, 0];

describe('compareWithOrt', () => {
  it('passes equal computations and counts every generated position', () => {
    const ours = logitsFor(tokens);
    const theirs = ours.map((x, i) => x + (i % 3) * 1e-5);
    const r = compareWithOrt(ours, theirs, tokens, { B, T, V, promptLen });
    expect(r).toMatchObject({ logitsOk: true, tokensOk: true, tokensCompared: B * (T - promptLen), tokensAgree: B * (T - promptLen), nearTies: 0 });
    expect(r.maxAbs).toBeCloseTo(2e-5, 6);
  });

  it('fails a logit off by more than the tolerance and names it', () => {
    const ours = logitsFor(tokens);
    const theirs = ours.slice();
    theirs[7] += 0.01;
    const r = compareWithOrt(ours, theirs, tokens, { B, T, V, promptLen });
    expect(r.logitsOk).toBe(false);
    expect(r.maxAbs).toBeCloseTo(0.01, 6);
    expect(r.message).toMatch(/FAILED 1 elements/);
  });

  it('fails a greedy token ORT would not choose, but allows a near tie', () => {
    const ours = logitsFor(tokens);
    // ORT prefers token 2 to the lab's 0 at row 1, position 3 (predicting position 4) by a clear margin ...
    const clear = ours.slice();
    clear[(1 * T + 3) * V + 2] = 2;
    const r = compareWithOrt(ours, clear, tokens, { B, T, V, promptLen });
    expect(r.tokensOk).toBe(false);
    expect(r.message).toMatch(/row 1 position 4: ours 0, ORT 2/);
    // ... or by less than two tolerances: then either token is a correct greedy choice
    const tie = ours.slice();
    tie[(1 * T + 3) * V + 2] = 1 + ORT_TOLERANCE.atol;
    const t = compareWithOrt(ours, tie, tokens, { B, T, V, promptLen });
    expect(t).toMatchObject({ tokensOk: true, nearTies: 1, tokensAgree: B * (T - promptLen) - 1 });
  });

  it('picks held-out prompts of one length that leave room for the new tokens', () => {
    const p = checkPrompts(64, 4, 24);
    expect(p).toHaveLength(4);
    expect(new Set(p.map((x) => x.length)).size).toBe(1);
    expect(p[0].length + 24).toBeLessThanOrEqual(64);
    expect(() => checkPrompts(10, 4, 24)).toThrow(/no held-out prompt leaves room for 24 new tokens in 10 positions/);
  });
});

describe('the store\'s ORT check', () => {
  const services: StoreServices = {
    fetchCatalog: async () => ({ defaultPolicy: 'small', policies: [{ name: 'small', description: '', params: 1 }, { name: 'tiny', description: '', params: 1 }] }),
    archive: null,
    newRunId: () => 'r',
    now: () => 0,
  };
  const result = { policy: 'tiny', ok: true } as OrtCheckResult;

  it('checks the launcher\'s policy (else the default), holds the engine while it runs, and keeps the result', async () => {
    let finish: (r: OrtCheckResult) => void = () => undefined;
    const runOrtCheck = vi.fn((_policy: string) => new Promise<OrtCheckResult>((r) => (finish = r)));
    const store = createLabStore(fakeLabClient({ runOrtCheck }), services, (cb) => cb());
    await store.getState().loadCatalog();
    expect(selectCurrentPolicy(store.getState())).toBe('small');
    store.getState().setPolicy('tiny');
    const done = store.getState().runOrtCheck();
    expect(runOrtCheck).toHaveBeenCalledWith('tiny');
    expect(store.getState().ortCheck).toMatchObject({ status: 'running', policy: 'tiny' });
    expect(selectBusy(store.getState())).toBe(true);
    finish(result);
    await done;
    expect(store.getState().ortCheck).toMatchObject({ status: 'done', result, error: null });
    expect(selectBusy(store.getState())).toBe(false);
  });

  it('shows why the check could not run', async () => {
    const store = createLabStore(fakeLabClient({ runOrtCheck: async () => Promise.reject(new Error('onnxruntime-web could not run the model: boom')) }), services, (cb) => cb());
    await store.getState().loadCatalog();
    await store.getState().runOrtCheck();
    expect(store.getState().ortCheck).toMatchObject({ status: 'failed', policy: 'small', error: 'onnxruntime-web could not run the model: boom' });
  });
});

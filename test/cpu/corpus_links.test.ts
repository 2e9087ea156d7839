// An uploaded corpus in links (issue 30 §1): kept in the browser by the name of its text and
// named in the address (`corpus=upload:<hash>`), never carried in it; a reload reads it back
// from the browser's storage; an address naming a corpus this browser does not hold warns and
// uses the generated corpus; a short corpus still travels inline.
import { describe, expect, it } from 'vitest';
import type { LabClient } from '../../src/lab/protocol';
import { checkSavedCorpus, corpusRef, memoryCorpusArchive, type CorpusArchive } from '../../src/state/persist/corpusArchive';
import { DEFAULT_LAUNCHER, setField, setLoop } from '../../src/state/launcher';
import { createLabStore } from '../../src/state/store';
import { corpusRefsIn, launcherToQuery, MAX_PARAM_CHARS, queryToLauncher } from '../../src/state/url';
import { syncLauncherWithUrl } from '../../src/state/urlSync';

const corpus = Array.from({ length: 2000 }, (_, i) => `a=${i % 900};b=a+1`).join('\n');

function page(archive: CorpusArchive | null, search: string) {
  const idle = new Proxy({}, { get: () => async () => undefined }) as LabClient;
  const store = createLabStore(idle, { fetchCatalog: async () => ({ defaultPolicy: 'tiny', policies: [{ name: 'tiny', description: '', params: null }] }), archive: null, corpora: archive, newRunId: () => 'r', now: () => 7 }, () => undefined);
  const loc = { pathname: '/', search, hash: '' } as Location;
  const history = {
    state: null,
    replaceState(_s: unknown, _t: string, url: string) {
      loc.search = url.slice(url.indexOf('?') === -1 ? url.length : url.indexOf('?'));
    },
  } as unknown as History;
  return { store, loc, history };
}

describe('a corpus in links', () => {
  it('past the link cap is named by the hash of its text, not carried', () => {
    const l = setField(setLoop({ ...DEFAULT_LAUNCHER }, 'spice'), 'loop', 'corpus', corpus);
    const q = launcherToQuery(l);
    expect(q.get('corpus')).toBe(corpusRef(corpus));
    expect(q.get('corpus')).toMatch(/^upload:[0-9a-f]{16}$/);
    expect(q.toString().length).toBeLessThan(100);
    expect(corpusRefsIn(`?${q}`)).toEqual([corpusRef(corpus)]);
  });

  it('a short one still travels inline, and reads back without any store', () => {
    const short = 'a=7;b=a+5\nx=2;y=x*3';
    expect(short.length).toBeLessThan(MAX_PARAM_CHARS);
    const q = launcherToQuery(setField(setLoop({ ...DEFAULT_LAUNCHER }, 'spice'), 'loop', 'corpus', short));
    expect(q.get('corpus')).toBe(short);
    expect(queryToLauncher(q).launcher.fields.corpus).toBe(short);
  });

  it('is read back through the page\'s corpora, or warned of when this browser holds none by that name', () => {
    const q = new URLSearchParams({ loop: 'spice', corpus: corpusRef(corpus) });
    expect(queryToLauncher(q, (ref) => (ref === corpusRef(corpus) ? corpus : undefined)).launcher.fields.corpus).toBe(corpus);
    const d = queryToLauncher(q);
    expect(d.launcher.fields).not.toHaveProperty('corpus');
    expect(d.warnings).toEqual([`corpus=${corpusRef(corpus)}: this browser holds no uploaded corpus of that name (an uploaded corpus stays in the browser it was uploaded to); using the generated corpus`]);
  });

  it('equal texts share a name; a changed line gets another', () => {
    expect(corpusRef(`${corpus}`)).toBe(corpusRef(corpus.slice(0)));
    expect(corpusRef(corpus.replace('a=1;', 'a=2;'))).not.toBe(corpusRef(corpus));
    expect(corpusRef('')).not.toBe(corpusRef('\u0000'));
  });
});

describe('an uploaded corpus across a reload', () => {
  it('is kept by the store, named in the address, and back in the launcher after a reload', async () => {
    const archive = memoryCorpusArchive();
    const first = page(archive, '?loop=spice');
    await syncLauncherWithUrl(first.store, first.loc, first.history);
    const ref = await first.store.getState().keepCorpus('mine.txt', corpus);
    first.store.getState().setField('loop', 'corpus', corpus);
    expect(first.loc.search).toBe(`?loop=spice&corpus=${encodeURIComponent(ref)}`);

    // the reload: a new page on the same browser storage, opened on the address the first wrote
    const second = page(archive, first.loc.search);
    await syncLauncherWithUrl(second.store, second.loc, second.history);
    expect(second.store.getState().launcher.state.fields.corpus).toBe(corpus);
    expect(second.store.getState().launcher.warnings).toEqual([]);
    expect(second.store.getState().corpora.byRef[ref]).toEqual({ fileName: 'mine.txt', text: corpus });
  });

  it('in another browser (no such corpus kept) warns and uses the generated corpus', async () => {
    const other = page(memoryCorpusArchive(), `?loop=spice&corpus=${corpusRef(corpus)}`);
    await syncLauncherWithUrl(other.store, other.loc, other.history);
    expect(other.store.getState().launcher.state.fields).not.toHaveProperty('corpus');
    expect(other.store.getState().launcher.warnings[0]).toMatch(/^corpus=upload:[0-9a-f]{16}: this browser holds no uploaded corpus of that name/);
  });

  it('without browser storage lasts until the page closes, and says so', async () => {
    const p = page(null, '?loop=spice');
    await p.store.getState().keepCorpus('mine.txt', corpus);
    expect(p.store.getState().corpora.byRef[corpusRef(corpus)].text).toBe(corpus);
    expect(p.store.getState().corpora.saveError).toMatch(/no IndexedDB: an uploaded corpus lasts until the page closes/);
  });

  it('a failing save is said, and the corpus still serves this page', async () => {
    const broken: CorpusArchive = { put: async () => Promise.reject(new Error('QuotaExceededError')), get: async () => undefined };
    const p = page(broken, '?loop=spice');
    const ref = await p.store.getState().keepCorpus('mine.txt', corpus);
    expect(p.store.getState().corpora.byRef[ref].text).toBe(corpus);
    expect(p.store.getState().corpora.saveError).toBe('uploaded corpora are not being kept across reloads: QuotaExceededError');
  });
});

describe('stored corpus records as read back', () => {
  it('a record whose text no longer has its name, or of another shape, is not a corpus', () => {
    const ok = { ref: corpusRef(corpus), fileName: 'mine.txt', text: corpus, savedAt: 1 };
    expect(checkSavedCorpus(ok)).toEqual(ok);
    expect(checkSavedCorpus({ ...ok, text: `${corpus}\nx=1` })).toBeNull();
    expect(checkSavedCorpus({ ...ok, ref: 'upload:nothex' })).toBeNull();
    expect(checkSavedCorpus({ ...ok, fileName: 3 })).toBeNull();
    expect(checkSavedCorpus(null)).toBeNull();
    expect(checkSavedCorpus('upload:0123456789abcdef')).toBeNull();
    expect(checkSavedCorpus({ ...ok, savedAt: 'x' })).toEqual({ ...ok, savedAt: 0 });
  });
});

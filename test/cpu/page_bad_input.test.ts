// The page's readers of bad input (issue 30 §1), without a browser: a checkpoint the loops cannot
// use is refused on upload as the CLI refuses it; adapter-start files say what is wrong, naming
// the file once; corpus files are sized before they are read and a file of the word "generated"
// is a file; an uploaded corpus stays out of the address; repeated or oversized parameters warn.
import { describe, expect, it } from 'vitest';
import { GPT_PRESETS } from '../../src/model/config';
import { serializeCheckpoint } from '../../src/model/checkpoint';
import { buildTensorTable } from '../../src/model/params';
import { initParams } from '../../src/model/init';
import { encodeSafetensors } from '../../src/model/safetensors';
import { checkCheckpoint } from '../../src/state/files/policyUpload';
import { adapterStartSet } from '../../src/state/files/adapterStartFile';
import { corpusRefusal, corpusSizeProblem, corpusTextProblem } from '../../src/config/corpusFile';
import { loopNamed } from '../../src/loops/registry';
import { ConfigError } from '../../src/util/errors';
import { DEFAULT_LAUNCHER, setField, setLoop } from '../../src/state/launcher';
import { launcherToQuery, queryToLauncher, queryToLesson } from '../../src/state/url';
import { syncExplorerWithUrl } from '../../src/state/explorerUrl';
import { createLabStore } from '../../src/state/store';
import type { LabClient } from '../../src/lab/protocol';

describe('checkpoint upload', () => {
  it('n_positions 8 is refused up front, as the CLI refuses it', () => {
    const cfg = { ...GPT_PRESETS.tiny, nPositions: 8 };
    const table = buildTensorTable(cfg);
    const { safetensors, configJson } = serializeCheckpoint(cfg, initParams(cfg, table, 1), table);
    const r = checkCheckpoint('model.safetensors', safetensors, 'config.json', configJson);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.message).toContain('config.json: n_positions = 8');
  });
});

describe('adapter-start files', () => {
  const file = (config: string | null) => encodeSafetensors([{ name: 'x', shape: [1], data: new Float32Array([0]) }], config === null ? {} : { adapter_config: config });
  const sets = ['solver', 'proposer'];
  it('say what is wrong, naming the file once', () => {
    const said = (config: string | null) => {
      const r = adapterStartSet('image.png', file(config), 'ttsp', sets);
      return 'error' in r ? r.error : `set ${r.name}`;
    };
    expect(said('null')).toBe("image.png: its adapter_config is null, not PEFT's LoraConfig object");
    expect(said('[1,2,3]')).toBe("image.png: its adapter_config is [1,2,3], not PEFT's LoraConfig object");
    expect(said('{}')).toBe('image.png: its adapter_config names no set (adapter_name = undefined); ttsp trains solver and proposer');
    expect(said('{"adapter_name":"critic"}')).toBe('image.png: its set is "critic"; ttsp trains solver and proposer');
    expect(said(null)).toMatch(/^image\.png: no adapter_config/);
    expect(said('{"adapter_name":"solver"}')).toBe('set solver');
    const r = adapterStartSet('image.png', new Uint8Array(4), 'ttsp', sets);
    expect('error' in r && r.error).toMatch(/^image\.png: file is 4 bytes/);
    expect('error' in r && r.error.match(/image\.png/g)).toHaveLength(1);
  });
});

describe('corpus files', () => {
  it('are sized before they are read; a file of the word generated is refused', () => {
    expect(corpusSizeProblem('big.txt', 300e6)).toBe('big.txt is 300 MB; a corpus file is at most 16 MB');
    expect(corpusSizeProblem('ok.txt', 33e3)).toBeNull();
    expect(corpusTextProblem('g.txt', ' generated\n')).toContain('holds only the word "generated"');
    expect(corpusTextProblem('c.txt', 'a=7;b=a+5\n')).toBeNull();
  });
  it('a corpus of long bad lines is refused in one escaped line under 300 characters, in the config and on the page', () => {
    const bad = Array.from({ length: 20 }, (_, i) => `a=${'9'.repeat(200)}\u001b[2J;b=a+${i}=q`).join('\n');
    let message = '';
    try {
      loopNamed('spice').spec.validate({ corpus: bad }, 'spice');
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      message = (e as Error).message;
    }
    expect(message).toMatch(/^spice\.corpus: corpus has no valid document \(20 bad lines\)/);
    expect(message.length).toBeLessThan(300);
    // eslint-disable-next-line no-control-regex
    expect(message).not.toMatch(/[\u0000-\u001f]/);
    const shown = corpusRefusal(`${'n'.repeat(400)}.txt`, message, 'the corpus in use is unchanged');
    expect(shown.length).toBeLessThan(300);
    expect(shown).toMatch(/^n+… \(404 characters\): /);
    expect(shown.endsWith('; the corpus in use is unchanged')).toBe(true);
  });
  it('an uploaded corpus stays out of the address, which names it (corpus_links.test.ts)', () => {
    const corpus = Array.from({ length: 2000 }, (_, i) => `a=${i};b=a+1`).join('\n');
    const l = setField(setLoop({ ...DEFAULT_LAUNCHER }, 'spice'), 'loop', 'corpus', corpus);
    const q = launcherToQuery(l);
    expect(q.get('corpus')).toMatch(/^upload:[0-9a-f]{16}$/);
    expect(q.get('loop')).toBe('spice');
  });
});

describe('page addresses', () => {
  it('a repeated parameter warns which value it uses', () => {
    expect(queryToLauncher(new URLSearchParams('loop=svs&loop=datpo')).warnings).toContain('loop is given 2 times; using the first (svs)');
    const d = queryToLauncher(new URLSearchParams('lr=0.1&lr=0.2'));
    expect(d.warnings).toContain('lr is given 2 times; using the last (0.2)');
    expect(queryToLauncher(new URLSearchParams('hide=knobs&hide=demo')).warnings).toEqual([]);
  });
  it('a long lesson= or explore= (or a grid= of the wrong shape) is warned of in one short line', () => {
    const lesson = queryToLesson(new URLSearchParams([['lesson', `x${'\u001b'.repeat(10)}${'y'.repeat(10_000)}`]])).warnings;
    expect(lesson).toHaveLength(1);
    expect(lesson[0].length).toBeLessThan(300);
    // eslint-disable-next-line no-control-regex
    expect(lesson[0]).not.toMatch(/[\u0000-\u001f]/);
    const idle = new Proxy({}, { get: () => async () => undefined }) as LabClient;
    const store = createLabStore(idle, { fetchCatalog: async () => ({ defaultPolicy: null, policies: [] }), archive: null, newRunId: () => 'r', now: () => 0 }, () => undefined);
    const search = `?${new URLSearchParams([['explore', `gallery/${'z'.repeat(10_000)}\u001b.txt`], ['grid', JSON.stringify({ knobs: [], seeds: 'q'.repeat(10_000), control: null, concurrency: null })]])}`;
    syncExplorerWithUrl(store, { pathname: '/', search, hash: '' } as Location, { state: null, replaceState: () => undefined } as unknown as History);
    const warnings = store.getState().explorer.warnings;
    expect(warnings.length).toBe(2);
    for (const w of warnings) {
      expect(w.length).toBeLessThan(300);
      // eslint-disable-next-line no-control-regex
      expect(w).not.toMatch(/[\u0000-\u001f]/);
    }
  });
  it('a parameter over 2,000 characters is ignored with a warning; an unknown loop is said', () => {
    const d = queryToLauncher(new URLSearchParams([['loop', 'ttsp'], ['target', '1+'.repeat(9000)]]));
    expect(d.warnings).toContain("target: its value is 18000 characters, more than a link's 2000; ignored");
    expect(queryToLauncher(new URLSearchParams('loop=nope')).warnings[0]).toMatch(/^loop=nope: no such loop/);
  });
});

// Uploading a checkpoint as a base policy: the two files are paired (or what is missing is
// named), checked with the worker's own parser and against the lab's tokenizer, named
// `upload:<file>`, registered with the worker, selected in the launcher, kept out of the URL and
// restored from the saved uploads after a reload; the worker's loader serves uploads first.
import { readFileSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import type { LabClient } from '../../src/lab/protocol';
import { PolicyLoader } from '../../src/lab/worker/policies';
import { serializeCheckpoint } from '../../src/model/checkpoint';
import { GPT_PRESETS } from '../../src/model/config';
import { buildTensorTable } from '../../src/model/params';
import { memoryPolicyArchive } from '../../src/state/persist/policyArchive';
import { pairFiles, readCheckpointFiles, uploadName, type BinaryFile } from '../../src/state/files/policyUpload';
import { createLabStore } from '../../src/state/store';
import { launcherToQuery, queryToLauncher } from '../../src/state/url';
import { fakeLabClient } from '../helpers/labClient';

const TINY = new Uint8Array(readFileSync(new URL('../../public/models/tiny/model.safetensors', import.meta.url)));
const TINY_CONFIG = readFileSync(new URL('../../public/models/tiny/config.json', import.meta.url), 'utf8');

function file(name: string, content: Uint8Array | string): BinaryFile {
  const bytes = typeof content === 'string' ? new TextEncoder().encode(content) : content;
  return { name, size: bytes.length, arrayBuffer: async () => bytes.slice().buffer, text: async () => new TextDecoder().decode(bytes) };
}

const weights = (bytes: Uint8Array = TINY, name = 'model.safetensors') => file(name, bytes);
const config = (text = TINY_CONFIG) => file('config.json', text);

async function refusal(files: BinaryFile[]): Promise<string> {
  const r = await readCheckpointFiles(files);
  return r.ok ? 'accepted' : r.message;
}

describe('checkpoint upload: the files', () => {
  it('accepts the shipped tiny policy and reads its architecture', async () => {
    const r = await readCheckpointFiles([config(), weights()]);
    if (!r.ok) throw new Error(r.message);
    expect(r.checkpoint).toMatchObject({ fileName: 'model.safetensors', params: 29568, cfg: { vocabSize: 64, nLayer: 2, nEmbd: 32 } });
  });

  it('names what is missing or extra among the chosen files', () => {
    // one .safetensors file is a pair with its config to be read from its own metadata
    expect(pairFiles([weights()])).toMatchObject({ config: null });
    expect(pairFiles([config()])).toMatch(/^config\.json: also choose the \.safetensors file/);
    expect(pairFiles([weights(), config(), file('notes.txt', 'x')])).toMatch(/^notes\.txt: not a checkpoint file/);
    expect(pairFiles([weights(), weights(TINY, 'b.safetensors'), config()])).toMatch(/choose one \.safetensors file and one config\.json, not more/);
  });

  it('takes a .safetensors file the lab exported alone (its config rides in its metadata); asks for the config of one that carries none', async () => {
    const { parseCheckpoint } = await import('../../src/model/checkpoint');
    const tiny = parseCheckpoint(TINY, TINY_CONFIG);
    const { checkpointFile } = await import('../../src/lab/worker/checkpointExport');
    const exported = checkpointFile({ runId: 'r1', loop: 'grpo', policy: 'tiny', cfg: tiny.cfg, step: 3, params: tiny.params, config: {} } as never, 'safetensors');
    const r = await readCheckpointFiles([weights(exported.bytes, exported.filename)]);
    if (!r.ok) throw new Error(r.message);
    expect(r.checkpoint.cfg).toEqual(tiny.cfg);
    expect(JSON.parse(r.checkpoint.configJson)).toMatchObject({ n_embd: 32, vocab_size: 64 });
    // the shipped files (written by npm run pretrain) carry no config: the message says to add it
    expect(await refusal([weights()])).toMatch(/^model\.safetensors: carries no config .*also choose its config\.json/);
    // a chosen config.json still wins over the embedded one
    const wider = JSON.stringify({ ...JSON.parse(TINY_CONFIG), n_embd: 64 });
    expect(await refusal([weights(exported.bytes, 'x.safetensors'), config(wider)])).toMatch(/^x\.safetensors: .*wte\.weight/);
    // a broken file alone is refused with the parser's message
    expect(await refusal([weights(exported.bytes.slice(0, 6), 'x.safetensors')])).toMatch(/^x\.safetensors: /);
  });

  it('refuses broken weights and configs with the parser\'s message, under the user\'s file names', async () => {
    expect(await refusal([weights(TINY.slice(0, 4), 'mine.safetensors'), config()])).toMatch(/^mine\.safetensors: /);
    expect(await refusal([weights(TINY.slice(0, TINY.length - 100), 'mine.safetensors'), config()])).toMatch(/^mine\.safetensors: .*(bytes|size|end)/i);
    expect(await refusal([weights(), config('{"vocab_size": ')])).toMatch(/^config\.json: not JSON/);
    const wider = JSON.stringify({ ...JSON.parse(TINY_CONFIG), n_embd: 64 });
    expect(await refusal([weights(), config(wider)])).toMatch(/^model\.safetensors: .*wte\.weight/);
  });

  it('refuses a whole checkpoint made for another vocabulary', async () => {
    const cfg = { ...GPT_PRESETS.tiny, vocabSize: 80 };
    const table = buildTensorTable(cfg);
    const { safetensors, configJson } = serializeCheckpoint(cfg, new Float32Array(table.totalFloats), table);
    expect(await refusal([weights(safetensors), config(configJson)])).toMatch(/^config\.json: vocab_size = 80, but this lab's tokenizer has 64 tokens/);
    const loader = new PolicyLoader(new URL('http://127.0.0.1:1/'));
    expect(() => loader.register('upload:x', safetensors, configJson)).toThrow(/vocab_size = 80/);
  });

  it('refuses weights holding NaN or Inf, in the page and in the worker, naming the tensor', async () => {
    const cfg = GPT_PRESETS.tiny;
    const table = buildTensorTable(cfg);
    const params = new Float32Array(table.totalFloats);
    const wpe = table.tensors.find((t) => t.name === 'wpe.weight')!;
    params[wpe.offset + 5] = NaN;
    const { safetensors, configJson } = serializeCheckpoint(cfg, params, table);
    expect(await refusal([weights(safetensors, 'mine.safetensors'), config(configJson)])).toBe('mine.safetensors: tensor wpe.weight holds NaN at index 5; a base policy\'s weights must all be finite numbers');
    expect(() => new PolicyLoader(new URL('http://127.0.0.1:1/')).register('upload:x', safetensors, configJson)).toThrow(/tensor wpe\.weight holds NaN at index 5/);
  });

  it('names uploads after the file, never twice the same', () => {
    expect(uploadName('model.safetensors', [])).toBe('upload:model');
    expect(uploadName('model.safetensors', ['upload:model', 'upload:model-2'])).toBe('upload:model-3');
    expect(uploadName('my run (3).safetensors', [])).toBe('upload:my_run_3_');
  });
});

describe('checkpoint upload: the worker loader', () => {
  it('serves a registered upload before the shipped policies, a fresh copy each time', async () => {
    const loader = new PolicyLoader(new URL('http://127.0.0.1:1/'));
    loader.register('upload:model', TINY, TINY_CONFIG);
    const a = await loader.load('upload:model');
    const b = await loader.load('upload:model');
    expect(a.params.length).toBe(30080); // 29,568 parameters, padded for alignment
    expect(a.params).not.toBe(b.params);
    await expect(loader.load('upload:other')).rejects.toThrow(/not in this worker: upload the checkpoint again/);
    expect(() => loader.register('tiny', TINY, TINY_CONFIG)).toThrow(/names are upload: followed by/);
    expect(() => loader.register('upload:x', TINY.slice(0, 10), TINY_CONFIG)).toThrow(/model\.safetensors/);
  });
});

function fakeClient(registerPolicy: LabClient['registerPolicy']): LabClient {
  return fakeLabClient({ registerPolicy });
}

async function newStore(client: LabClient, policies = memoryPolicyArchive()) {
  const store = createLabStore(client, {
    fetchCatalog: async () => ({ defaultPolicy: 'tiny', policies: [{ name: 'tiny', description: '', params: null }] }),
    archive: null, policies, newRunId: () => 'r', now: () => 5,
  }, () => undefined);
  await store.getState().loadCatalog();
  return store;
}

describe('checkpoint upload: the store', () => {
  it('registers a good upload, selects it, keeps it out of the URL, and restores it after a reload', async () => {
    const register = vi.fn(async () => undefined);
    const policies = memoryPolicyArchive();
    const store = await newStore(fakeClient(register), policies);
    expect(await store.getState().uploadPolicy([weights(), config()])).toBeNull();
    expect(register).toHaveBeenCalledWith('upload:model', expect.any(Uint8Array), TINY_CONFIG);
    const s = store.getState();
    expect(s.uploads.list).toEqual([{ name: 'upload:model', description: expect.stringMatching(/^uploaded from model\.safetensors: 2 layers, 32 wide/) as unknown, params: 29568 }]);
    expect(s.launcher.state.policy).toBe('upload:model');
    expect(s.launcher.resolved).toMatchObject({ ok: true, policy: 'upload:model' });
    expect(launcherToQuery(s.launcher.state).has('policy')).toBe(false);
    expect(queryToLauncher(new URLSearchParams('policy=upload:model')).warnings).toEqual([expect.stringMatching(/^policy=upload:model: an uploaded checkpoint .* cannot be opened from a link/)]);

    const register2 = vi.fn(async () => undefined);
    const reloaded = await newStore(fakeClient(register2), policies);
    await reloaded.getState().loadUploadedPolicies();
    expect(register2).toHaveBeenCalledWith('upload:model', expect.any(Uint8Array), TINY_CONFIG);
    expect(reloaded.getState().uploads.list.map((p) => p.name)).toEqual(['upload:model']);
    expect(reloaded.getState().launcher.state.policy).toBeNull();
  });

  it('removes an upload: no longer offered or saved; the launcher falls back to the default', async () => {
    const policies = memoryPolicyArchive();
    const store = await newStore(fakeClient(async () => undefined), policies);
    expect(await store.getState().uploadPolicy([weights(), config()])).toBeNull();
    expect(store.getState().launcher.state.policy).toBe('upload:model');
    await store.getState().removeUploadedPolicy('upload:model');
    expect(store.getState().uploads.list).toEqual([]);
    expect(store.getState().launcher.state.policy).toBeNull();
    expect(store.getState().launcher.resolved).toMatchObject({ ok: true, policy: 'tiny' });
    expect(await policies.loadAll()).toEqual([]);
    // removing what is not there changes nothing
    await store.getState().removeUploadedPolicy('upload:other');
    expect(store.getState().uploads.error).toBeNull();
  });

  it('changes nothing for a bad upload, or one the worker refuses, and says why', async () => {
    const store = await newStore(fakeClient(async () => {
      throw new Error('uploaded policy "upload:model": no');
    }));
    const before = store.getState().launcher;
    expect(await store.getState().uploadPolicy([weights()])).toMatch(/also choose its config\.json/);
    expect(store.getState().uploads.error).toMatch(/also choose its config\.json/);
    expect(await store.getState().uploadPolicy([weights(), config()])).toMatch(/^model\.safetensors: the engine refused it: uploaded policy/);
    expect(store.getState().uploads.list).toEqual([]);
    expect(store.getState().launcher).toBe(before);
  });
});

// The fuzz tier (issue 30 §6): every reader of the user's input, fed seeded generated inputs
// (fast-check, a fixed number of runs each; over 10,000 cases in all). The property: it returns
// a value, or throws the project's own typed error (ConfigError, CheckpointError, CliError) or
// answers {ok: false, message}, with a message under 300 characters; nothing else escapes. A
// failure prints its seed and shrunk counter-example: copy it into a regular test.
import fc from 'fast-check';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { cli } from '../helpers/cli';
import { GPT_PRESETS } from '../../src/model/config';
import { ConfigError } from '../../src/util/errors';
import { CheckpointError, decodeSafetensors, encodeSafetensors } from '../../src/model/safetensors';
import { parseConfigJson } from '../../src/model/checkpoint';
import { buildLoraTable, initLora, parseAdapter, parseAdapterFile, serializeAdapter, validateLoraSpec } from '../../src/model/lora';
import { LOOP_NAMES, loopNamed } from '../../src/loops/registry';
import { CliError, parseArgs } from '../../src/cli/args';
import { importRunText } from '../../src/state/files/importRun';
import { corpusRefsIn, queryToLauncher, queryToLesson } from '../../src/state/url';
import { checkSavedCorpus, corpusRef } from '../../src/state/persist/corpusArchive';
import { parseTargetList } from '../../src/loops/ttsp/targets';
import { checkStoredHistory, checkStoredState } from '../../src/lab/worker/checkpointSchema';
import { fileCheckpointStore, memoryFs } from '../../src/lab/worker/checkpoints';
import { readCorpusFlag } from '../../src/cli/corpus';
import { checkSavedAblation } from '../../src/cli/ablate_json';
import { recipeProblem } from '../../src/cli/pretrain_recipe';
import { readSweepText, SweepFileError } from '../../src/explore/format';

vi.mock('webgpu', () => ({ create: () => ({ requestAdapter: async () => null }), globals: {} }));

const SEED = 30_2026;
const MAX_MESSAGE = 300;
const OWN_ERRORS = [ConfigError, CheckpointError, CliError, SweepFileError];
const tiny = GPT_PRESETS.tiny;

/** Runs `read`; a value or one of the project's errors with a short message passes. */
function holds(read: () => unknown): void {
  let v: unknown;
  try {
    v = read();
  } catch (e) {
    if (!OWN_ERRORS.some((k) => e instanceof k)) throw new Error(`escaped: ${String(e)}\n${(e as Error).stack}`);
    const m = (e as Error).message;
    if (m.length >= MAX_MESSAGE) throw new Error(`message of ${m.length} characters: ${m.slice(0, 400)}`);
    return;
  }
  const r = v as { ok?: unknown; message?: unknown };
  if (r && r.ok === false && typeof r.message === 'string' && r.message.length >= MAX_MESSAGE) throw new Error(`message of ${r.message.length} characters: ${r.message.slice(0, 400)}`);
}

const options = (numRuns: number) => ({ seed: SEED, numRuns });

/** JSON-ish values biased toward the shapes the readers look for. */
const anyJson = fc.jsonValue({ maxDepth: 4 });
const edgeNumber = fc.oneof(fc.double(), fc.integer(), fc.constantFrom(0, -0, 1, -1, 1e400, -1e400, 1e30, 1e39, 1e-50, 2 ** 32, 2 ** 53, 0.5, NaN));
const edgeValue = fc.oneof(edgeNumber, fc.string({ maxLength: 30 }), fc.boolean(), fc.constant(null), fc.constant(undefined), anyJson, fc.constantFrom('x'.repeat(5000), '\u001b[2J', '__proto__'));

describe('config JSON of every loop, through the registry\'s validators', () => {
  for (const loop of LOOP_NAMES) {
    const spec = loopNamed(loop).spec;
    const keys = [...Object.keys(spec.fields), 'rl', 'bogus', '__proto__', 'constructor'];
    const rlKeys = ['epochs', 'miniBatches', 'temperature', 'beta', 'clipLow', 'advantage', 'entCoef', 'klClamp'];
    const config = fc.oneof(
      fc.dictionary(fc.constantFrom(...keys), edgeValue, { maxKeys: 4 }),
      fc.dictionary(fc.constantFrom(...keys), edgeValue, { maxKeys: 2 }).chain((o) => fc.dictionary(fc.constantFrom(...rlKeys), edgeValue, { maxKeys: 3 }).map((rl) => ({ ...o, rl }))),
      anyJson,
    );
    it(`${loop}: 500 configs`, () => {
      fc.assert(fc.property(config, (c) => holds(() => spec.validate(c, 'config'))), options(500));
    });
  }
});

describe('safetensors headers, adapter files and config.json', () => {
  const header = fc.oneof(
    anyJson.map((j) => JSON.stringify(j)),
    fc.dictionary(fc.string({ maxLength: 8 }), fc.record({ dtype: fc.constantFrom('F32', 'F16', 'BF16', 'I8', 'X', 5), shape: fc.array(edgeNumber, { maxLength: 3 }), data_offsets: fc.array(edgeNumber, { maxLength: 3 }) }, { requiredKeys: [] }), { maxKeys: 3 }).map((h) => JSON.stringify(h)),
    fc.string({ maxLength: 60 }),
  );
  const file = fc.tuple(header, fc.uint8Array({ maxLength: 64 }), fc.option(fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }))).map(([h, tail, len]) => {
    const json = new TextEncoder().encode(h);
    const out = new Uint8Array(8 + json.length + tail.length);
    new DataView(out.buffer).setBigUint64(0, len ?? BigInt(json.length), true);
    out.set(json, 8);
    out.set(tail, 8 + json.length);
    return out;
  });
  it('2,000 safetensors files', () => {
    fc.assert(fc.property(fc.oneof(file, fc.uint8Array({ maxLength: 40 })), (b) => holds(() => decodeSafetensors(b, 'f.safetensors'))), options(2000));
  });

  const spec = validateLoraSpec({ name: 'solver', rank: 2, alpha: 4 }, tiny, 'lora');
  const table = buildLoraTable(tiny, spec);
  const good = serializeAdapter(spec, initLora(table, 1), table);
  const jsonField = fc.dictionary(fc.constantFrom('adapter_name', 'r', 'lora_alpha', 'target_modules', 'peft_type', 'task_type', 'fan_in_fan_out', 'bias', 'lora_dropout', 'x'), edgeValue, { maxKeys: 5 });
  it('1,000 adapter JSON files over a valid adapter, and 500 single files with a fuzzed adapter_config', () => {
    const base = JSON.parse(good.configJson) as object;
    fc.assert(fc.property(fc.oneof(jsonField.map((o) => JSON.stringify({ ...base, ...o })), anyJson.map((j) => JSON.stringify(j)), fc.string({ maxLength: 40 })), (text) => holds(() => parseAdapter(good.safetensors, text, tiny, 'solver'))), options(1000));
    fc.assert(fc.property(fc.oneof(jsonField.map((o) => JSON.stringify({ ...base, ...o })), fc.string({ maxLength: 40 })), (cfg) => {
      const bytes = serializeAdapter(spec, initLora(table, 1), table, { adapter_config: cfg }).safetensors;
      holds(() => parseAdapterFile(bytes, tiny, 'image.png'));
    }), options(500));
  });
  it('500 adapter weights files with values poked in', () => {
    fc.assert(fc.property(fc.nat(table.totalFloats - 1), edgeNumber, (i, v) => {
      const p = initLora(table, 1);
      p[i] = v;
      holds(() => parseAdapter(serializeAdapter(spec, p, table).safetensors, good.configJson, tiny, 'solver'));
    }), options(500));
  });
  it('1,000 config.json texts', () => {
    const hf = fc.dictionary(fc.constantFrom('model_type', 'vocab_size', 'n_positions', 'n_embd', 'n_layer', 'n_head', 'layer_norm_epsilon', 'x'), edgeValue, { maxKeys: 6 });
    fc.assert(fc.property(fc.oneof(hf.map((o) => JSON.stringify(o)), anyJson.map((j) => JSON.stringify(j)), fc.string({ maxLength: 30 })), (t) => holds(() => parseConfigJson(t))), options(1000));
  });
  it('unused: encodeSafetensors round trip stays a value', () => {
    expect(decodeSafetensors(encodeSafetensors([{ name: 'a', shape: [1], data: new Float32Array([1]) }])).tensors.size).toBe(1);
  });
});

describe('files of runs and the lab', () => {
  it('1,000 run JSON imports', () => {
    const run = fc.record({ format: fc.oneof(fc.constant('rlvr-lab run 1'), fc.string({ maxLength: 10 })), run: edgeValue, config: edgeValue, metrics: edgeValue, evals: edgeValue, samples: edgeValue, records: edgeValue }, { requiredKeys: [] });
    fc.assert(fc.property(fc.oneof(run.map((r) => JSON.stringify(r)), anyJson.map((j) => JSON.stringify(j)), fc.string({ maxLength: 50 })), (body) => holds(() => importRunText('run.json', body))), options(1000));
  });
  it('1,000 stored states and histories, and 200 stores read back', async () => {
    const state = fc.record({ format: fc.constant('rlvr-lab checkpoint 1'), runId: edgeValue, loop: edgeValue, policy: edgeValue, step: edgeNumber, config: edgeValue, savedAt: edgeValue, adapters: edgeValue }, { requiredKeys: [] });
    const history = fc.record({ steps: fc.oneof(fc.array(edgeValue, { maxLength: 3 }), edgeValue), evals: fc.oneof(fc.array(edgeValue, { maxLength: 3 }), edgeValue), records: edgeValue }, { requiredKeys: [] });
    fc.assert(fc.property(state, history, edgeNumber, (s, h, at) => {
      holds(() => checkStoredState(s, 'w'));
      holds(() => checkStoredHistory(h, typeof at === 'number' ? at : 0, 'w'));
    }), options(1000));
    await fc.assert(fc.asyncProperty(fc.oneof(anyJson, state).map((x) => JSON.stringify(x)), fc.oneof(anyJson, fc.record({ format: fc.constant('rlvr-lab checkpoint 1'), slot: fc.constantFrom('a', 'b', 'c'), step: edgeNumber })).map((x) => JSON.stringify(x)), async (stateText, manifestText) => {
      const fs = memoryFs();
      const enc = new TextEncoder();
      await fs.write(['checkpoints', 'r', 'manifest.json'], enc.encode(manifestText));
      await fs.write(['checkpoints', 'r', 'a', 'state.json'], enc.encode(stateText));
      try {
        await fileCheckpointStore(fs).load('r');
      } catch (e) {
        holds(() => {
          throw e;
        });
      }
    }), options(200));
  });
  it('1,000 corpus records as read back from the browser\'s storage', () => {
    const text = fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom('a=7;b=a+5', 'x'.repeat(5000)));
    const record = fc.oneof(
      text.chain((t) => fc.record({ ref: fc.oneof(fc.constant(corpusRef(t)), edgeValue), fileName: fc.oneof(fc.string({ maxLength: 300 }), edgeValue), text: fc.oneof(fc.constant(t), edgeValue), savedAt: edgeValue }, { requiredKeys: [] })),
      edgeValue,
    );
    fc.assert(fc.property(record, (r) => {
      const c = checkSavedCorpus(r);
      if (c === null) return;
      // a corpus read back is one whose text still has its name, with a short file name
      expect(corpusRef(c.text)).toBe(c.ref);
      expect(c.fileName.length).toBeLessThanOrEqual(200);
      expect(Number.isFinite(c.savedAt)).toBe(true);
    }), options(1000));
  });

  it('1,000 ttsp_targets.json documents', () => {
    const target = fc.record({ text: edgeValue, passRate: edgeValue }, { requiredKeys: [] });
    const doc = fc.record({ n: edgeValue, midHard: fc.oneof(fc.array(target, { maxLength: 3 }), edgeValue), veryHard: fc.oneof(fc.array(target, { maxLength: 3 }), edgeValue) }, { requiredKeys: [] });
    fc.assert(fc.property(fc.oneof(doc, anyJson), (d) => holds(() => parseTargetList(d, 'ttsp_targets.json'))), options(1000));
  });
  it('500 ablation --json documents and 500 pretraining recipes', () => {
    const result = fc.record({ seed: edgeValue, start: edgeValue, end: edgeValue, steps: edgeValue, generatedTokens: edgeValue, seconds: edgeValue, report: edgeValue, halted: edgeValue }, { requiredKeys: [] });
    fc.assert(fc.property(fc.record({ loop: edgeValue, base: edgeValue, results: fc.oneof(fc.array(result, { maxLength: 2 }), edgeValue) }, { requiredKeys: [] }), (d) => holds(() => checkSavedAblation(d as Record<string, unknown>, 'a.json'))), options(500));
    const keys = ['seed', 'steps', 'batchSize', 'seqLen', 'lr', 'warmup', 'weightDecay', 'evalEvery', 'patience', 'evalBatches', 'mix', 'curriculum', 'pack', 'promptWeight', 'x'];
    fc.assert(fc.property(fc.dictionary(fc.constantFrom(...keys), edgeValue), (r) => {
      const why = recipeProblem(r, 64);
      if (why !== null && why.length >= MAX_MESSAGE) throw new Error(why);
    }), options(500));
  });
  it('1,000 sweep and ablation files, as the explorer imports them', () => {
    const evalDoc = fc.record({ type: fc.oneof(fc.constant('eval'), edgeValue), step: edgeValue, set: edgeValue, passAtK: fc.oneof(fc.dictionary(fc.oneof(fc.constantFrom('1', '2', '0', 'x'), fc.string({ maxLength: 300 })), edgeValue), edgeValue), meanEntropy: edgeValue, n: edgeValue, correct: edgeValue }, { requiredKeys: [] });
    const series = fc.record({ step: edgeValue, seconds: edgeValue, tokens: edgeValue, metrics: fc.oneof(fc.dictionary(fc.string({ maxLength: 300 }), edgeValue), edgeValue) }, { requiredKeys: [] });
    const result = fc.record({ seed: edgeValue, start: fc.oneof(evalDoc, edgeValue), end: fc.oneof(evalDoc, edgeValue), steps: edgeValue, generatedTokens: edgeValue, seconds: edgeValue, report: edgeValue, series: fc.oneof(series, edgeValue), evals: edgeValue }, { requiredKeys: [] });
    const ablation = fc.record({ format: fc.oneof(fc.constant('rlvr-lab.ablation'), edgeValue), version: edgeValue, loop: edgeValue, base: edgeValue, config: edgeValue, partial: edgeValue, results: fc.oneof(fc.array(result, { maxLength: 2 }), edgeValue) }, { requiredKeys: [] });
    const sweep = fc.record({ format: fc.constant('rlvr-lab.sweep'), version: edgeValue, title: edgeValue, curvesRecorded: edgeValue, arms: fc.oneof(fc.array(fc.record({ id: edgeValue, label: edgeValue, knobs: edgeValue, ablation: fc.oneof(ablation, edgeValue) }, { requiredKeys: [] }), { maxLength: 2 }), edgeValue) }, { requiredKeys: [] });
    const text = fc.oneof(fc.oneof(ablation, sweep).map((d) => JSON.stringify(d) ?? 'null'), fc.string({ maxLength: 200 }));
    fc.assert(fc.property(text, (body) => holds(() => readSweepText('f.json', body))), options(1000));
  });
  it('1,000 page addresses, uploaded corpora named in them included', () => {
    const names = ['loop', 'policy', 'setup', 'preset', 'lr', 'steps', 'seed', 'rl.epochs', 'hide', 'lock', 'lesson', 'target', 'corpus', 'debug', 'x'];
    const known = 'a=7;b=a+5\n'.repeat(300);
    const ref = fc.oneof(fc.constant(corpusRef(known)), fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), maxLength: 20 }).map((h) => `upload:${h}`), fc.string({ maxLength: 30 }).map((t) => `upload:${t}`));
    const query = fc.array(fc.tuple(fc.constantFrom(...names), fc.oneof(fc.string({ maxLength: 20 }), edgeNumber.map(String), fc.constant('x'.repeat(20000)), ref)), { maxLength: 6 });
    fc.assert(fc.property(fc.boolean(), query, (spice, pairs) => {
      const q = new URLSearchParams(spice ? [['loop', 'spice'], ...pairs] : pairs);
      for (const r of corpusRefsIn(`?${q}`)) expect(r.length).toBeLessThanOrEqual(2000);
      const d = queryToLauncher(q, (r) => (r === corpusRef(known) ? known : undefined)) as { warnings?: string[] };
      for (const w of d.warnings ?? []) if (w.length >= MAX_MESSAGE) throw new Error(`warning of ${w.length} characters: ${w.slice(0, 200)}`);
      const l = queryToLesson(q);
      for (const w of l.warnings) if (w.length >= MAX_MESSAGE) throw new Error(`warning of ${w.length} characters: ${w.slice(0, 200)}`);
    }), options(1000));
  });
});

describe('the command line', () => {
  let dir: string;
  let cwd: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'rlvr-fuzz-cli-'));
    vi.stubEnv('VK_ICD_FILENAMES', join(dir, 'no-icd.json'));
    // relative paths a fuzzed argv names land here, not in the repository
    cwd = process.cwd();
    process.chdir(dir);
  });
  afterAll(async () => {
    process.chdir(cwd);
    vi.unstubAllEnvs();
    await rm(dir, { recursive: true, force: true });
  });

  it('1,000 corpus files read as --corpus (spice)', async () => {
    const def = loopNamed('spice');
    const line = fc.oneof(fc.constantFrom('a=7;b=a+5', 'x=2;y=x*3;z=y-1', 'generated', '', 'a=1;b=a+1=3', '\u0000\u001b', 'x'.repeat(500)), fc.string({ maxLength: 30 }));
    const file = join(dir, 'corpus.txt');
    await fc.assert(fc.asyncProperty(fc.array(line, { maxLength: 6 }).map((ls) => ls.join('\n')), async (text) => {
      await writeFile(file, text);
      try {
        await readCorpusFlag(file, def);
      } catch (e) {
        holds(() => {
          throw e;
        });
        // eslint-disable-next-line no-control-regex -- the check looks for control characters
        expect((e as Error).message).not.toMatch(/[\u0000-\u001f]/);
      }
    }), options(1000));
  });

  it('a flag parser answers every argv with flags or a CliError', () => {
    const spec = { a: { type: 'string' }, n: { type: 'number', default: 1 }, b: { type: 'boolean', default: false } } as const;
    const arg = fc.oneof(fc.constantFrom('--a', '--n', '--b', '--b=true', '--b=x', '--n=0x1', '--a=', '--', '-h', '--c', '--__proto__', '--toString'), fc.string({ maxLength: 12 }));
    fc.assert(fc.property(fc.array(arg, { maxLength: 6 }), (argv) => {
      try {
        parseArgs(argv.filter((a) => a !== '-h'), spec);
      } catch (e) {
        if (!(e instanceof CliError)) throw e;
        expect(e.message.length).toBeLessThan(MAX_MESSAGE);
      }
    }), options(1000));
  });

  // commands that would write (init) or run long are given argv that stops before the work
  const FLAGS: Record<string, string[]> = {
    init: ['--preset', '--seed', '--out'],
    inspect: ['--ckpt', '--tokens', '--json'],
    pretrain: ['--preset', '--seed', '--steps', '--batch', '--lr', '--eval-every', '--patience', '--out', '--resume', '--card-only', '--prompt-weight'],
    run: ['--loop', '--preset', '--ckpt', '--steps', '--seed', '--out', '--config', '--corpus', '--target', '--adapters', '--resume', '--force'],
    ablate: ['--loop', '--seeds', '--steps', '--config', '--match-tokens', '--token-budget', '--report', '--from-json', '--json', '--markdown', '--work', '--resume', '--eval-every', '--checkpoint-every', '--cross-play'],
    eval: ['--ckpt', '--set', '--n', '--k', '--seed', '--limit', '--temperature', '--top-p'],
    'ttsp-targets': ['--ckpt', '--n', '--limit', '--out'],
    sets: ['--json'],
    'export-onnx': ['--ckpt', '--out', '--with-past'],
  };
  const value = fc.oneof(fc.constantFrom('', '0', '-1', '1e12', '0x10', 'tiny', 'grpo', '/proc/x', '.', '..', 'nope', '__proto__', '1,2', 'x'.repeat(3000), '\u001b[2J'), fc.string({ maxLength: 12 }));
  for (const [command, flags] of Object.entries(FLAGS)) {
    it(`${command}: 60 argv`, async () => {
      const argv = fc.array(fc.oneof(fc.constantFrom(...flags), value), { maxLength: 5 });
      await fc.assert(fc.asyncProperty(argv, async (a) => {
        // init with a --out it can write would write a checkpoint: only its refusals are fuzzed
        if (command === 'init' && !a.includes('--out')) a = [...a, '--out', '/proc/rlvr-fuzz'];
        const r = await cli(command, ...a);
        expect([0, 2], r.stderr).toContain(r.code);
        expect(r.stderr.length, r.stderr.slice(0, 400)).toBeLessThan(MAX_MESSAGE + 40);
      }), options(60));
    }, 120_000);
  }
});

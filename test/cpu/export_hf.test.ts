// `rlvr-lab export-hf`: the folder a real Hugging Face client loads. @huggingface/transformers
// (transformers.js, onnxruntime-node on the CPU) reads it with local files only: its tokenizer
// gives the lab's ids and text for 1,000 of the world's prompts and responses, and its greedy
// generation from 20 prompts equals the lab's CPU reference decoder (float64) token for token.
// The pretrained `small` policy is used for generation: a random one's near-equal logits would
// make the argmax a coin toss between float32 and float64.
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AutoModelForCausalLM, AutoTokenizer, env, Tensor, type PreTrainedTokenizer } from '@huggingface/transformers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli';
import { CpuPolicy } from '../../src/engines/cpu/policy';
import { loadCheckpointDir } from '../../src/model/checkpoint_node';
import { parseCheckpoint, parseConfigJson } from '../../src/model/checkpoint';
import { CONCEPT_TAGS, EOS, ROLES, VOCABULARY, decode, loadSet, makeRng, ROLE_LIMITS, sampleExample, solvePrompt } from '../../src/world/index';

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rlvr-hf-'));
  const r = await cli('export-hf', '--ckpt', 'public/models/small', '--out', join(dir, 'small'), '--temperature', '0.7', '--top-p', '0.95');
  expect(r.code, r.stderr).toBe(0);
  env.localModelPath = dir + '/';
  env.allowRemoteModels = false;
  env.allowLocalModels = true;
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const ids = (t: { input_ids: { tolist(): unknown } }) => (t.input_ids.tolist() as bigint[][])[0].map(Number);

describe('rlvr-lab export-hf', () => {
  it('writes the folder: GPT-2 config with the lab\'s ids, the run\'s sampling, the weights, tokenizer files, the ONNX decoder, a README', async () => {
    const folder = join(dir, 'small');
    expect((await readdir(folder)).sort()).toEqual(['README.md', 'config.json', 'generation_config.json', 'model.safetensors', 'onnx', 'special_tokens_map.json', 'tokenizer.json', 'tokenizer_config.json']);
    expect(await readdir(join(folder, 'onnx'))).toEqual(['model.onnx']);
    const configText = await readFile(join(folder, 'config.json'), 'utf8');
    const config: unknown = JSON.parse(configText);
    expect(config).toMatchObject({ model_type: 'gpt2', architectures: ['GPT2LMHeadModel'], bos_token_id: 1, eos_token_id: 2, pad_token_id: 0, 'transformers.js_config': { dtype: 'fp32' } });
    const src = await loadCheckpointDir('public/models/small');
    expect(parseConfigJson(configText)).toEqual(src.cfg);
    const back = parseCheckpoint(new Uint8Array(await readFile(join(folder, 'model.safetensors'))), configText);
    expect(back.params).toEqual(src.params);
    const gen: unknown = JSON.parse(await readFile(join(folder, 'generation_config.json'), 'utf8'));
    expect(gen).toMatchObject({ bos_token_id: 1, eos_token_id: EOS, pad_token_id: 0, do_sample: true, temperature: 0.7, top_p: 0.95, max_length: src.cfg.nPositions });
    const readme = await readFile(join(folder, 'README.md'), 'utf8');
    for (const role of ROLES) expect(readme).toContain(`<${role}>`);
    expect(readme).toContain('from_pretrained');
  });

  it('its tokenizer encodes and decodes 1,000 of the world\'s prompts and responses to the lab\'s ids and text', async () => {
    const tok: PreTrainedTokenizer = await AutoTokenizer.from_pretrained('small');
    // every token alone, the reserved ones included
    for (let id = 0; id < VOCABULARY.length; id++) {
      expect(ids(tok(VOCABULARY[id])), VOCABULARY[id]).toEqual([id]);
      expect(tok.decode([id])).toBe(VOCABULARY[id]);
    }
    const rng = makeRng(29);
    let checked = 0;
    for (let i = 0; i < 500; i++) {
      const ex = sampleExample(rng, ROLES[i % ROLES.length], 1 + (i % 4));
      for (const seq of [ex.prompt, ex.response]) {
        const text = decode(seq);
        expect(ids(tok(text)), text).toEqual(seq);
        expect(tok.decode(seq)).toBe(text);
        checked++;
      }
    }
    expect(checked).toBe(1000);
    // skip_special_tokens drops control tokens, keeps the teach role's concept tags (they are text)
    const tags = CONCEPT_TAGS.slice(0, 2).map((t) => `<c:${t}>`).join('');
    expect(tok.decode(ids(tok(`<bos><teach>1+2<sep>3+4${tags}<eos>`)), { skip_special_tokens: true })).toBe(`1+23+4${tags}`);
  });

  it('its greedy generation from 20 prompts equals the lab\'s reference decoder, token for token', async () => {
    const ckpt = await loadCheckpointDir('public/models/small');
    const policy = new CpuPolicy(ckpt.cfg, ckpt.params);
    const model = await AutoModelForCausalLM.from_pretrained('small');
    const P = ckpt.cfg.nPositions;
    const problems = loadSet('eval-mixed').slice(0, 20);
    let finished = 0;
    for (const p of problems) {
      const prompt = solvePrompt(p.text);
      const maxNew = Math.min(ROLE_LIMITS.solve.response, P - prompt.length);
      const lab = await policy.decoder({ B: 1, Tmax: P }).generate([prompt], { temperature: 0, topK: 0, topP: 1, seed: 0, eosToken: EOS, maxNew });
      const labTokens = Array.from(lab.tokens.subarray(0, prompt.length + lab.responseLen[0]));
      if (lab.finished[0]) finished++;
      const input_ids = new Tensor('int64', BigInt64Array.from(prompt, BigInt), [1, prompt.length]);
      const out = await model.generate({ input_ids, do_sample: false, max_new_tokens: maxNew });
      const theirs = ((out as { tolist(): bigint[][] }).tolist())[0].map(Number);
      expect(decode(theirs), p.text).toBe(decode(labTokens));
      expect(theirs).toEqual(labTokens);
    }
    // the comparison covers responses that end with <eos>, not only ones cut at the limit
    expect(finished).toBeGreaterThan(10);
    await model.dispose();
  }, 120_000);
});

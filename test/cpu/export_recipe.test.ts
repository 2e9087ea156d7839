// `rlvr-lab export-recipe`: the TRL and veRL folders. Every key written is one its framework
// defines at the pinned version (test/fixtures/recipe_keys/, taken from the frameworks' source),
// each RL preset lands on the keys it must (Dr. GRPO on both the loss and the std switch), the
// YAML parses to the values meant, train.py and run.sh pass the syntax checks, and reward.py, run
// by Debian's python3, gives the lab verifier's reward on 2,000 completions.
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli';
import { CpuPolicy } from '../../src/engines/cpu/policy';
import { loadCheckpointDir } from '../../src/model/checkpoint_node';
import { LOOPS, loopNamed } from '../../src/loops/registry';
import { DEFAULT_RL_CORE, RL_CORE_PRESETS, type RlCorePresetName } from '../../src/rl/config';
import { knobRows, solveCore, type Framework } from '../../src/export/recipe_map';
import { recipeReadme } from '../../src/export/recipe_readme';
import { recipeConfig, type RecipeSource } from '../../src/export/recipe';
import { answerOf } from '../../src/eval/score';
import { decode, encode, EOS, extractAnswer, loadSet, makeRng, randInt, solvePrompt, VOCABULARY } from '../../src/world/index';
import type { BaseLoopConfig } from '../../src/loops/base_config';
import trlKeys from '../fixtures/recipe_keys/trl-1.9.0.json';
import verlKeys from '../fixtures/recipe_keys/verl-0.7.0.json';

const PY = '/usr/bin/python3';
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rlvr-recipe-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const grpoConfig = (preset: RlCorePresetName): BaseLoopConfig =>
  loopNamed('grpo').spec.validate({ rl: { ...DEFAULT_RL_CORE, ...RL_CORE_PRESETS[preset] } }, 'grpo');

/** Dotted paths of every leaf of a nested object (veRL's Hydra keys). */
function leafPaths(o: Record<string, unknown>, pre = ''): string[] {
  return Object.entries(o).flatMap(([k, v]) => (typeof v === 'object' && v !== null && !Array.isArray(v) ? leafPaths(v as Record<string, unknown>, `${pre}${k}.`) : [`${pre}${k}`]));
}

function definedKeys(fw: Framework, dapo: boolean): Set<string> {
  if (fw === 'trl') return new Set([...trlKeys.grpo_config, ...trlKeys.training_arguments]);
  return new Set([...verlKeys.ppo_trainer, ...(dapo ? verlKeys.dapo_trainer_adds : [])]);
}

const PRESETS = loopNamed('grpo').spec.rlPresets;

const trl = (p: RlCorePresetName) => recipeConfig('trl', knobRows('trl', 'grpo', grpoConfig(p) as BaseLoopConfig & Record<string, unknown>), false) as Record<string, unknown>;
const verl = (p: RlCorePresetName) => {
  const c = grpoConfig(p);
  return recipeConfig('verl', knobRows('verl', 'grpo', c as BaseLoopConfig & Record<string, unknown>), c.rl.dynamicSampling) as Record<string, Record<string, Record<string, unknown>>>;
};


describe('the mapping of the RL presets, key by key against the pinned frameworks', () => {
  for (const preset of PRESETS) {
    for (const fw of ['trl', 'verl'] as const) {
      it(`${preset} → ${fw}: every key is one ${fw} defines`, () => {
        const c = grpoConfig(preset);
        const cfg = recipeConfig(fw, knobRows(fw, 'grpo', c as BaseLoopConfig & Record<string, unknown>), fw === 'verl' && c.rl.dynamicSampling);
        const { hydra, defaults, ...body } = cfg as Record<string, unknown>;
        const keys = fw === 'trl' ? Object.keys(body) : leafPaths(body);
        const known = definedKeys(fw, c.rl.dynamicSampling);
        expect(keys.filter((k) => !known.has(k))).toEqual([]);
        if (fw === 'verl') {
          expect(defaults).toEqual([c.rl.dynamicSampling ? 'dapo_trainer' : 'ppo_trainer', '_self_']);
          expect(hydra).toBeDefined();
        }
      });
    }
  }

  it('each preset sets the keys its algorithm is', () => {
    expect(trl('grpo')).toMatchObject({ loss_type: 'dapo', scale_rewards: 'group', epsilon: 0.2, epsilon_high: 0.28, beta: 0, num_generations: 8, num_iterations: 1 });
    expect(trl('grpo_original')).toMatchObject({ loss_type: 'grpo', scale_rewards: 'group', epsilon_high: 0.2, beta: 0.04 });
    // Dr. GRPO is both its loss and no std normalisation
    expect(trl('dr_grpo')).toMatchObject({ loss_type: 'dr_grpo', scale_rewards: 'none' });
    expect(verl('dr_grpo').algorithm).toMatchObject({ adv_estimator: 'grpo', norm_adv_by_std_in_grpo: false });
    expect(verl('dr_grpo').actor_rollout_ref.actor).toMatchObject({ loss_agg_mode: 'seq-mean-token-sum-norm', loss_scale_factor: 84 });
    expect(verl('dapo').algorithm).toMatchObject({ filter_groups: { enable: true, metric: 'acc', max_num_gen_batches: 10 } });
    expect(verl('grpo').algorithm.filter_groups).toBeUndefined();
    expect(trl('gspo')).toMatchObject({ importance_sampling_level: 'sequence', epsilon: 3e-4, epsilon_high: 4e-4, loss_type: 'grpo' });
    expect(verl('gspo').actor_rollout_ref.actor).toMatchObject({ policy_loss: { loss_mode: 'gspo' }, clip_ratio_low: 3e-4, clip_ratio_high: 4e-4, loss_agg_mode: 'seq-mean-token-mean' });
    expect(verl('grpo_original').actor_rollout_ref.actor).toMatchObject({ use_kl_loss: true, kl_loss_coef: 0.04, kl_loss_type: 'low_var_kl' });
    expect(verl('grpo').actor_rollout_ref.rollout).toMatchObject({ n: 8 });
  });
});

describe('what a recipe takes from the loop\'s definition (spec.recipe)', () => {
  it('each loop names count fields of its own config as its solving core; the core reads them from the run', () => {
    for (const def of LOOPS) {
      expect(def.spec.recipe, def.spec.name).toBeDefined();
      const { groupSize, problems } = def.spec.recipe!;
      const fields = def.spec.fields as Record<string, { type: { kind: string; integer?: boolean } }>;
      for (const k of [groupSize, ...problems]) expect(fields[k]?.type, `${def.spec.name}.${k}`).toMatchObject({ kind: 'number', integer: true });
      const c = def.spec.validate(def.spec.presets.lab.config) as unknown as BaseLoopConfig & Record<string, unknown>;
      const core = solveCore(def.spec.name, c);
      expect(core.groupSize, def.spec.name).toBe(c[groupSize]);
      expect(core.problemsPerStep, def.spec.name).toBe(problems.reduce((p, k) => p * (c[k] as number), 1));
    }
    const spice = loopNamed('spice').spec;
    expect(solveCore('spice', spice.validate(spice.presets.lab.config) as unknown as BaseLoopConfig & Record<string, unknown>)).toMatchObject({
      groupSize: 8, problemsPerStep: 16, from: { groupSize: 'answersPerQuestion', problemsPerStep: 'documentsPerStep × questionsPerDocument' },
    });
  });

  it('the README says where the paper\'s own code is: on the recipe\'s framework, elsewhere, or (the control) nothing', () => {
    const readme = (loop: string) => {
      const spec = loopNamed(loop).spec;
      const config = spec.validate({});
      const c = config as unknown as BaseLoopConfig & Record<string, unknown>;
      return recipeReadme('trl', { loop, config, origin: 'test' } as unknown as RecipeSource, knobRows('trl', loop, c), solveCore(loop, c));
    };
    expect(readme('opensir')).toContain('The loop\'s own machinery is not in this file set. OpenSIR is built on TRL');
    expect(readme('spice')).toContain('The loop\'s own machinery is not in either framework. SPICE\'s challenger');
    expect(readme('grpo')).not.toContain('shared core');
    expect(readme('grpo')).toContain('The lab\'s grpo run (test)');
    expect(readme('datpo')).toContain('The lab\'s datpo loop (test)');
  });
});

describe('rlvr-lab export-recipe', () => {
  it('a set-up: the TRL folder (YAML that parses to the config, train.py compiles, knobs that do not translate named)', async () => {
    const out = join(dir, 'dapo-trl');
    const r = await cli('export-recipe', '--to', 'trl', '--loop', 'grpo', '--preset', 'dapo', '--out', out);
    expect(r.code, r.stderr).toBe(0);
    const yamlText = await readFile(join(out, 'grpo_config.yaml'), 'utf8');
    const parsed: unknown = JSON.parse(execFileSync(PY, ['-c', 'import sys, json, yaml; print(json.dumps(yaml.safe_load(open(sys.argv[1]))))', join(out, 'grpo_config.yaml')], { encoding: 'utf8' }));
    expect(parsed).toEqual(trl('dapo'));
    expect(yamlText).toContain('adam_epsilon: 1.0e-8');
    execFileSync(PY, ['-m', 'py_compile', join(out, 'train.py'), join(out, 'reward.py')]);
    const readme = await readFile(join(out, 'README.md'), 'utf8');
    expect(readme).toContain('TRL has no dynamic sampling');
    expect(readme).toContain('TRL\'s KL is k3 only');
    expect(readme).toContain('`num_generations`');
    const train = (await readFile(join(out, 'data/train.jsonl'), 'utf8')).trim().split('\n').map((l): unknown => JSON.parse(l));
    const first = loadSet('train')[0];
    expect(train).toHaveLength(256);
    expect(train[0]).toEqual({ prompt: decode(solvePrompt(first.text)), answer: first.answer, problem: first.text });
    expect((JSON.parse(await readFile(join(out, 'model/config.json'), 'utf8')) as { model_type?: unknown }).model_type).toBe('gpt2');
  });

  it('a run: the veRL folder on its config (Hydra YAML parses, run.sh passes bash -n, veRL\'s columns)', async () => {
    const log = join(dir, 'run.jsonl');
    const config = loopNamed('grpo').spec.validate({ steps: 7, groupSize: 4, rl: { ...DEFAULT_RL_CORE, ...RL_CORE_PRESETS.dr_grpo } }, 'grpo');
    await writeFile(log, JSON.stringify({ type: 'config', loop: 'grpo', base: 'public/models/small', adapter: 'x', config }) + '\n' + JSON.stringify({ type: 'step', step: 1, metrics: {} }) + '\n');
    const out = join(dir, 'run-verl');
    const r = await cli('export-recipe', '--to', 'verl', '--run', log, '--out', out);
    expect(r.code, r.stderr).toBe(0);
    const parsed = JSON.parse(execFileSync(PY, ['-c', 'import sys, json, yaml; print(json.dumps(yaml.safe_load(open(sys.argv[1]))))', join(out, 'verl_config.yaml')], { encoding: 'utf8' })) as {
      trainer: { total_training_steps: number }; actor_rollout_ref: { rollout: { n: number } }; algorithm: { norm_adv_by_std_in_grpo: boolean };
    };
    expect(parsed.trainer.total_training_steps).toBe(7);
    expect(parsed.actor_rollout_ref.rollout.n).toBe(4);
    expect(parsed.algorithm.norm_adv_by_std_in_grpo).toBe(false);
    execFileSync('bash', ['-n', join(out, 'run.sh')]);
    const row = JSON.parse((await readFile(join(out, 'data/test.jsonl'), 'utf8')).split('\n')[0]) as { reward_model: { ground_truth: string } };
    expect(Object.keys(row).sort()).toEqual(['ability', 'data_source', 'extra_info', 'prompt', 'reward_model']);
    expect(row.reward_model.ground_truth).toBe(String(loadSet('eval-mixed')[0].answer));
    expect(await readFile(join(out, 'README.md'), 'utf8')).toContain('pd.read_json');
  });

  it('a papers\' loop: the shared core, the loop\'s constants in the README and its released code', async () => {
    const out = join(dir, 'svs-verl');
    const r = await cli('export-recipe', '--to', 'verl', '--loop', 'svs', '--out', out);
    expect(r.code, r.stderr).toBe(0);
    const readme = await readFile(join(out, 'README.md'), 'utf8');
    expect(readme).toContain('https://github.com/MasterVito/SvS');
    expect(readme).toContain('| variantsPerSolution |');
    expect(readme).toContain('clip_ratio_c');
  });

  it('refuses what it cannot do, naming the flag', async () => {
    expect((await cli('export-recipe', '--to', 'openrlhf', '--loop', 'grpo', '--out', join(dir, 'x'))).stderr).toContain('--to must be one of trl, verl');
    expect((await cli('export-recipe', '--to', 'trl', '--loop', 'grpo', '--preset', 'svs', '--out', join(dir, 'x'))).stderr).toContain('does not take the RL preset');
    expect((await cli('export-recipe', '--to', 'trl', '--out', join(dir, 'x'))).stderr).toContain('give either --run');
  });
});

// ---- reward.py against the lab's verifier

interface Case { text: string; gold: number; ids: number[] | null; lab: number; verl?: { text: string; limit: number } }

function tryEncode(text: string): number[] | null {
  try {
    return encode(text);
  } catch {
    return null;
  }
}

/** The lab's reward of a response text: through its tokens when it has them, else the same rule on the text. */
function labReward(text: string, gold: number): number {
  const ids = tryEncode(text);
  if (ids) return answerOf(ids).answer === gold ? 1 : 0;
  const end = text.indexOf(VOCABULARY[EOS]);
  return end >= 0 && extractAnswer(text.slice(0, end)) === gold ? 1 : 0;
}

function syntheticCases(count: number): Case[] {
  const rng = makeRng(2029);
  const problems = loadSet('train');
  const chars = VOCABULARY.filter((t) => !t.startsWith('<reserved'));
  const out: Case[] = [];
  const odd = ['#５', '#٣', '#3\u0301', '🙂#4', '#\ud800', '#4\u200b', 'é#12', '#-0', '#01', '# 5', '#5#', '#+5', '#1000', '#-999', '#999', '##7', '#7;', '', '#', '<eos>'];
  for (let i = 0; out.length < count; i++) {
    const p = problems[i % problems.length];
    const kind = i % 8;
    let text: string;
    if (kind === 0) text = p.solution + '<eos>'; // well-formed, right
    else if (kind === 1) text = p.solution.replace(/#.*$/, `#${p.answer + randInt(rng, 1, 5)}`) + '<eos>'; // well-formed, wrong
    else if (kind === 2) text = p.solution; // cut: no <eos>
    else if (kind === 3) text = Array.from({ length: randInt(rng, 0, 30) }, () => chars[randInt(rng, 0, chars.length - 1)]).join('') + (rng() < 0.7 ? '<eos>' : ''); // malformed
    else if (kind === 4) text = odd[i % odd.length] + (rng() < 0.8 ? '<eos>' : ''); // unicode and edge forms
    else if (kind === 5) text = rng() < 0.5 ? `#${'9'.repeat(100_000)}<eos>` : `${'1'.repeat(50_000)}#${p.answer}<eos>`; // huge
    else if (kind === 6) text = `#${p.answer}<sep><eos>`; // a control token inside
    else text = `${p.solution}<eos>#${p.answer + 1}`; // text after the first <eos>
    out.push({ text, gold: p.answer, ids: tryEncode(text), lab: labReward(text, p.answer) });
  }
  return out;
}

/** Responses the small policy samples (T = 1, short limit so some are cut), in the lab's form and veRL's decoded form. */
async function sampledCases(count: number, maxNew: number): Promise<Case[]> {
  const ckpt = await loadCheckpointDir('public/models/small');
  const policy = new CpuPolicy(ckpt.cfg, ckpt.params);
  const problems = loadSet('eval-ops3');
  const B = 8;
  const out: Case[] = [];
  for (let start = 0; out.length < count; start += B) {
    const batch = Array.from({ length: B }, (_, b) => problems[(start + b) % problems.length]);
    const prompts = batch.map((p) => solvePrompt(p.text));
    const gen = await policy.decoder({ B, Tmax: ckpt.cfg.nPositions }).generate(prompts, { temperature: 1, topK: 0, topP: 1, seed: start, eosToken: EOS, maxNew });
    batch.forEach((p, b) => {
      const from = b * ckpt.cfg.nPositions + gen.promptLen[b];
      const ids = Array.from(gen.tokens.subarray(from, from + gen.responseLen[b]));
      const lab = answerOf(ids).answer === p.answer ? 1 : 0;
      // veRL decodes with skip_special_tokens=True: control tokens and reserved ids go, concept tags stay
      const verlText = decode(ids.filter((id) => !VOCABULARY[id].startsWith('<') || VOCABULARY[id].startsWith('<c:')));
      out.push({ text: decode(ids), gold: p.answer, ids, lab, verl: { text: verlText, limit: maxNew } });
    });
  }
  return out.slice(0, count);
}

const PY_CHECK = `
import json, sys
sys.path.insert(0, sys.argv[1])
import reward
cases = json.load(open(sys.argv[2]))
out = []
for c in cases:
    r = {"text": reward.score_text(c["text"], c["gold"])}
    if "<eos>" in c["text"]:
        r["verl_text"] = reward.compute_score("rlvr_lab_arith", c["text"], str(c["gold"]), {})["score"]
    if c["ids"] is not None:
        r["ids"] = reward.score_ids(c["ids"], c["gold"])
    if c.get("verl"):
        r["verl"] = reward.compute_score("rlvr_lab_arith", c["verl"]["text"], str(c["gold"]), {"max_response_length": c["verl"]["limit"]})["score"]
    out.append(r)
with_ids = [c for c in cases if c["ids"] is not None]
trl = reward.trl_reward(prompts=[""] * len(with_ids), completions=[""] * len(with_ids), completion_ids=[c["ids"] for c in with_ids], answer=[c["gold"] for c in with_ids])
print(json.dumps({"rows": out, "trl": trl}))
`;

describe('reward.py, run by Debian\'s python3', () => {
  it('gives the lab verifier\'s reward on 2,000 completions: well-formed, malformed, cut, unicode, huge, sampled', async () => {
    const out = join(dir, 'dapo-trl');
    const cases = [...syntheticCases(1_800), ...(await sampledCases(200, 20))];
    expect(cases).toHaveLength(2_000);
    // the set exercises both rewards and every path
    expect(cases.filter((c) => c.lab === 1).length).toBeGreaterThan(200);
    expect(cases.filter((c) => c.verl && !c.ids?.includes(EOS)).length).toBeGreaterThan(20);
    const file = join(dir, 'cases.json');
    await writeFile(file, JSON.stringify(cases));
    const res = JSON.parse(execFileSync(PY, ['-c', PY_CHECK, out, file], { encoding: 'utf8', maxBuffer: 64 << 20 })) as { rows: Record<string, number>[]; trl: number[] };
    const mismatches = cases.flatMap((c, i) => {
      const r = res.rows[i];
      const bad = ['text', ...(c.text.includes('<eos>') ? ['verl_text'] : []), ...(c.ids ? ['ids'] : []), ...(c.verl ? ['verl'] : [])].filter((k) => r[k] !== c.lab);
      return bad.length ? [{ i, text: c.text.slice(0, 60), gold: c.gold, lab: c.lab, bad, got: r }] : [];
    });
    expect(mismatches).toEqual([]);
    expect(res.trl).toEqual(cases.filter((c) => c.ids).map((c) => c.lab));
  }, 300_000);
});

// README.md of an exported recipe: how to run it, every lab knob and where it went, every knob
// that does not translate, and for the papers' loops their own constants and the released code
// (what the loop's definition says of it: spec.recipe.released).
import { BASE_FIELDS } from '../loops/base_config';
import { CONTROL_LOOP, loopNamed } from '../loops/registry';
import type { FieldSpec } from '../config/fields';
import { RECIPE_VERSIONS, type Framework, type KnobRow, type SolveCore } from './recipe_map';
import type { RecipeSource } from './recipe';

const cell = (v: unknown) => (v === undefined ? '' : `\`${typeof v === 'string' ? v : JSON.stringify(v)}\``);

function loopConstants(src: RecipeSource, core: SolveCore): string {
  if (src.loop === CONTROL_LOOP) return '';
  const spec = loopNamed(src.loop).spec;
  const used = new Set([...Object.keys(BASE_FIELDS), ...Object.values(core.from), 'maxNewTokens', 'topP', 'trainSet', 'trainProblems']);
  const c = src.config as unknown as Record<string, unknown>;
  const fields = Object.entries(spec.fields as Record<string, FieldSpec<unknown>>).filter(([k]) => !used.has(k));
  const released = spec.recipe?.released;
  return `
## The ${spec.title} loop: what this recipe is, and is not

This recipe is the loop's **shared core**: its solving role (solve prompts, ${core.groupSize} answers each, the verifier's reward) with the loop's RL settings. The loop's own machinery is not in ${released?.onRecipeFramework ? 'this file set' : 'either framework'}. ${released?.note ?? ''}.
${spec.paper?.code ? `Released code that runs the whole loop at scale: ${spec.paper.code} (${released?.framework ?? ''}).` : 'The paper has no released code the lab knows of.'}
${spec.paper?.url ? `Paper: ${spec.paper.url}` : ''}

Solving core taken from: ${Object.entries(core.from).map(([k, v]) => `${k} ← \`${v}\``).join(', ')}.

The loop's own constants (set them in the released code's config; none of them is in this recipe):

| knob | value | meaning | paper |
|---|---|---|---|
${fields.map(([k, f]) => `| ${k} | ${cell(c[k])} | ${f.help.replace(/\|/g, '/')} | ${(f.paper ?? '').replace(/\|/g, '/')} |`).join('\n')}
`;
}

function howToRun(fw: Framework, dynamic: boolean): string {
  if (fw === 'trl') {
    return `\`\`\`bash
pip install "trl==1.9.0" datasets
python3 train.py            # reads grpo_config.yaml, data/*.jsonl, reward.py, model/
\`\`\`

\`grpo_config.yaml\` holds GRPOConfig (and TrainingArguments) keys only; \`train.py\` parses it with \`HfArgumentParser(GRPOConfig).parse_yaml_file\`, which refuses a key GRPOConfig does not define. On P processes (\`accelerate launch train.py\`), divide \`per_device_train_batch_size\` by P to keep the lab's mini-batch.`;
  }
  return `\`\`\`bash
pip install "verl==0.7.0" pandas pyarrow
${dynamic ? 'git clone -b v0.7.0 https://github.com/volcengine/verl && export VERL_REPO=$PWD/verl   # the DAPO recipe\n' : ''}bash run.sh                 # converts data/*.jsonl to parquet, then runs ${dynamic ? 'recipe.dapo.main_dapo' : 'verl.trainer.main_ppo'} on verl_config.yaml
\`\`\`

The one command that turns the JSON lines into veRL's parquet (run.sh runs it first):

\`\`\`bash
python3 -c "import pandas as pd; [pd.read_json('data/' + s + '.jsonl', lines=True).to_parquet('data/' + s + '.parquet') for s in ('train', 'test')]"
\`\`\`

\`verl_config.yaml\` is a Hydra config on \`${dynamic ? 'dapo_trainer' : 'ppo_trainer'}\`; any key can be overridden after \`run.sh\` (\`bash run.sh trainer.n_gpus_per_node=8\`).`;
}

export function recipeReadme(fw: Framework, src: RecipeSource, rows: readonly KnobRow[], core: SolveCore): string {
  const name = fw === 'trl' ? 'TRL' : 'veRL';
  const dynamic = fw === 'verl' && src.config.rl.dynamicSampling;
  const mapped = rows.filter((r) => r.key);
  const lost = rows.filter((r) => !r.key && r.note && !/^off\b|, as set$|as in TRL$|^used only by/.test(r.note));
  return `# RLVR Lab recipe for ${name}

The lab's ${src.loop} ${src.loop === CONTROL_LOOP ? 'run' : 'loop'} (${src.origin}) as a folder that runs the same algorithm in ${RECIPE_VERSIONS[fw]}.

## Files

- \`model/\`: the policy as a Hugging Face folder (config, safetensors, tokenizer with the lab's ids, ONNX); see model/README.md.
- \`data/train.jsonl\` (${core.trainProblems} problems of \`${core.trainSet}\`) and \`data/test.jsonl\` (${src.config.evalProblems} of the held-out \`${src.config.evalSet}\`): ${fw === 'trl' ? 'a `prompt` column (the lab\'s solve prompt, `<bos><solve>PROBLEM=`), the gold `answer`, and the `problem` text' : '`data_source`, `prompt` (one user message: the lab\'s solve prompt; the tokenizer\'s chat template adds nothing), `ability`, `reward_model.ground_truth` (the gold answer) and `extra_info` (split, index, problem, max_response_length)'}.
- \`reward.py\`: the world's verifier (the integer after the last \`#\`, exact; malformed or cut responses score 0; never raises), as ${fw === 'trl' ? '`trl_reward` (TRL\'s reward-function signature, reading `completion_ids`)' : '`compute_score(data_source, solution_str, ground_truth, extra_info)` returning `{"score", "acc"}`'}.
- ${fw === 'trl' ? '`grpo_config.yaml` and `train.py`' : '`verl_config.yaml` and `run.sh`'}.

## Running it

${howToRun(fw, dynamic)}

## Every lab knob and where it went

| lab knob | lab value | ${name} key | set to | note |
|---|---|---|---|---|
${mapped.map((r) => `| ${r.knob} | ${cell(r.value)} | \`${r.key}\` | ${r.set === undefined ? '(same)' : cell(r.set)} | ${r.note ?? ''} |`).join('\n')}

## Knobs that do not translate

${lost.length === 0 ? 'None for this set-up.' : lost.map((r) => `- **${r.knob}** = ${cell(r.value)}: ${r.note}`).join('\n')}

Knobs with no ${name} key whose lab value is already ${name}'s behaviour:

${rows.filter((r) => !r.key && !lost.includes(r)).map((r) => `- ${r.knob} = ${cell(r.value)}: ${r.note ?? ''}`).join('\n')}
${loopConstants(src, core)}`;
}

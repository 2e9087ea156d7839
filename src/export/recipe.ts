// A run or a set-up as a folder that runs the same algorithm at scale in TRL or veRL: the model
// folder (src/export/hf_folder.ts) under model/, the training and held-out problems as JSON
// lines in the framework's columns, reward.py (the world's verifier), the framework's config and
// its launcher, and a README naming where every lab knob went and which did not translate.
// Browser-safe: bytes by path out; the CLI writes them, the page zips them.
import type { BaseLoopConfig } from '../loops/base_config';
import { loadSet, solvePrompt } from '../world/index';
import { decode } from '../world/tokenizer';
import { buildHfFolder, type HfFolderSource } from './hf_folder';
import { frameworkConfig, knobRows, plumbing, RECIPE_VERSIONS, solveCore, type Framework, type KnobRow } from './recipe_map';
import { recipeReadme } from './recipe_readme';
import { rewardPy } from './reward_py';
import { toYaml, type YamlValue } from './yaml';

export interface RecipeSource {
  loop: string;
  /** the validated config of the run or set-up */
  config: BaseLoopConfig;
  /** the policy the recipe starts from: the run's base or one of its checkpoints */
  model: HfFolderSource;
  /** one line: where this came from ("run run.jsonl, step 40", "set-up grpo / paper / dapo") */
  origin: string;
}

export const DATA_SOURCE = 'rlvr_lab_arith';

type Row = Record<string, unknown>;

/** The problems as the framework's dataset rows (TRL: prompt + answer; veRL: its five columns). */
export function dataRows(fw: Framework, set: string, count: number, split: 'train' | 'test', maxResponseLength: number): Row[] {
  return loadSet(set).slice(0, count).map((p, index) => {
    const prompt = decode(solvePrompt(p.text));
    if (fw === 'trl') return { prompt, answer: p.answer, problem: p.text };
    return {
      data_source: DATA_SOURCE,
      prompt: [{ role: 'user', content: prompt }],
      ability: 'arithmetic',
      reward_model: { style: 'rule', ground_truth: String(p.answer) },
      extra_info: { split, index, problem: p.text, max_response_length: maxResponseLength },
    };
  });
}

const jsonl = (rows: readonly Row[]) => rows.map((r) => JSON.stringify(r)).join('\n') + '\n';

export function trainPy(): string {
  return `"""GRPO in TRL on the exported RLVR Lab set-up (${RECIPE_VERSIONS.trl}): python3 train.py"""
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from datasets import load_dataset
from transformers import AutoTokenizer, HfArgumentParser
from trl import GRPOConfig, GRPOTrainer

from reward import trl_reward


def main():
    # parse_yaml_file refuses a key GRPOConfig does not define
    (args,) = HfArgumentParser(GRPOConfig).parse_yaml_file(str(HERE / "grpo_config.yaml"))
    data = load_dataset("json", data_files={"train": str(HERE / "data" / "train.jsonl"), "test": str(HERE / "data" / "test.jsonl")})
    tokenizer = AutoTokenizer.from_pretrained(str(HERE / "model"))
    trainer = GRPOTrainer(
        model=str(HERE / "model"),
        reward_funcs=trl_reward,
        args=args,
        train_dataset=data["train"],
        eval_dataset=data["test"],
        processing_class=tokenizer,
    )
    trainer.train()
    trainer.save_model(args.output_dir)


if __name__ == "__main__":
    main()
`;
}

export function runSh(dynamicSampling: boolean): string {
  const entry = dynamicSampling ? 'recipe.dapo.main_dapo' : 'verl.trainer.main_ppo';
  return `#!/usr/bin/env bash
# veRL on the exported RLVR Lab set-up (${RECIPE_VERSIONS.verl}): bash run.sh [more Hydra overrides]
set -euo pipefail
HERE="$(cd "$(dirname "\${BASH_SOURCE[0]}")" && pwd)"

# veRL reads parquet: the one command that turns the JSON lines into it (pandas with pyarrow)
python3 -c "import pandas as pd; [pd.read_json('$HERE/data/' + s + '.jsonl', lines=True).to_parquet('$HERE/data/' + s + '.parquet') for s in ('train', 'test')]"

${dynamicSampling
    ? `# dynamic sampling is veRL's DAPO recipe, which lives in a checkout of the repository, not in the package
: "\${VERL_REPO:?set VERL_REPO to a checkout of volcengine/verl at v0.7.0 (its recipe/dapo)}"
cd "$VERL_REPO"`
    : 'cd "$HERE"'}
python3 -m ${entry} --config-path="$HERE" --config-name=verl_config \\
  data.train_files="$HERE/data/train.parquet" data.val_files="$HERE/data/test.parquet" \\
  actor_rollout_ref.model.path="$HERE/model" custom_reward_function.path="$HERE/reward.py" \\
  "$@"
`;
}

/** The framework's config as written: the knobs' keys, then the plumbing; veRL's on ppo_trainer (DAPO: dapo_trainer). */
export function recipeConfig(fw: Framework, rows: readonly KnobRow[], dynamicSampling: boolean): Record<string, YamlValue> {
  const withPlumbing = [...rows, ...Object.entries(plumbing(fw, dynamicSampling)).map(([key, set]) => ({ knob: '(plumbing)', value: set, key, set }))];
  const body = frameworkConfig(withPlumbing, fw);
  if (fw === 'trl') return body;
  return {
    hydra: { searchpath: dynamicSampling ? ['file://recipe/dapo/config', 'pkg://verl.trainer.config'] : ['pkg://verl.trainer.config'] },
    defaults: [dynamicSampling ? 'dapo_trainer' : 'ppo_trainer', '_self_'],
    ...body,
  };
}

export function buildRecipe(src: RecipeSource, fw: Framework): Map<string, Uint8Array> {
  const c = src.config as BaseLoopConfig & Record<string, unknown>;
  const core = solveCore(src.loop, c);
  const rows = knobRows(fw, src.loop, c);
  const dynamic = fw === 'verl' && c.rl.dynamicSampling;
  const text = new TextEncoder();
  const files = new Map<string, Uint8Array>();
  files.set('README.md', text.encode(recipeReadme(fw, src, rows, core)));
  files.set('reward.py', text.encode(rewardPy()));
  files.set('data/train.jsonl', text.encode(jsonl(dataRows(fw, core.trainSet, core.trainProblems, 'train', core.maxNewTokens))));
  files.set('data/test.jsonl', text.encode(jsonl(dataRows(fw, c.evalSet, c.evalProblems, 'test', core.maxNewTokens))));
  const header = [`written by rlvr-lab export-recipe for ${RECIPE_VERSIONS[fw]}: ${src.origin}`, 'every key and the lab knob it comes from: README.md'];
  if (fw === 'trl') {
    files.set('grpo_config.yaml', text.encode(toYaml(recipeConfig(fw, rows, false), header)));
    files.set('train.py', text.encode(trainPy()));
  } else {
    files.set('verl_config.yaml', text.encode(toYaml(recipeConfig(fw, rows, dynamic), header)));
    files.set('run.sh', text.encode(runSh(dynamic)));
  }
  for (const [path, bytes] of buildHfFolder(src.model)) files.set(`model/${path}`, bytes);
  return files;
}

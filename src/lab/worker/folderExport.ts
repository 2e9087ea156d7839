// A run's checkpoint as a zipped folder to download: the Hugging Face model folder
// (src/export/hf_folder.ts) or a TRL / veRL recipe (src/export/recipe.ts) on the run's config.
// The same builders as the CLI's export-hf and export-recipe; here the files go into one zip
// (fflate, stored uncompressed for the weights: they do not compress).
import { zipSync, type Zippable } from 'fflate';
import { buildHfFolder, type HfFolderSource } from '../../export/hf_folder';
import { buildRecipe } from '../../export/recipe';
import { solveCore, type Framework } from '../../export/recipe_map';
import type { BaseLoopConfig } from '../../loops/base_config';
import { loopNamed } from '../../loops/registry';
import type { RunCheckpoint } from './checkpoints';
import type { CheckpointFile } from '../protocol';

export type FolderFormat = 'hf' | `recipe:${Framework}`;

const BINARY = /\.(safetensors|onnx)$/;

/** The files under one top folder `name/`, text deflated, weights stored. */
export function zipFolder(name: string, files: ReadonlyMap<string, Uint8Array>): Uint8Array {
  const tree: Zippable = {};
  for (const [path, bytes] of files) tree[`${name}/${path}`] = [bytes, { level: BINARY.test(path) ? 0 : 6 }];
  return zipSync(tree, { mtime: new Date('2020-01-01T00:00:00Z') });
}

export function folderFile(c: RunCheckpoint, policy: { params: Float32Array; meta: Record<string, string> }, table: HfFolderSource['table'], format: FolderFormat, base: string): CheckpointFile {
  const config = loopNamed(c.loop).spec.validate(c.config, `run ${c.runId} config`) as BaseLoopConfig;
  const core = solveCore(c.loop, config as BaseLoopConfig & Record<string, unknown>);
  const model: HfFolderSource = { cfg: c.cfg, table, params: policy.params, meta: policy.meta, sampling: { temperature: config.rl.temperature, topP: core.topP, maxNewTokens: core.maxNewTokens } };
  if (format === 'hf') return { filename: `${base}-hf.zip`, mime: 'application/zip', bytes: zipFolder(`${base}-hf`, buildHfFolder(model)) };
  const fw = format.slice('recipe:'.length) as Framework;
  if (fw !== 'trl' && fw !== 'verl') throw new Error(`checkpoint export: unknown recipe framework "${fw}" (trl or verl)`);
  const files = buildRecipe({ loop: c.loop, config, model, origin: `run ${c.runId} of the page, its checkpoint at step ${c.step} (base ${c.policy})` }, fw);
  return { filename: `${base}-${fw}.zip`, mime: 'application/zip', bytes: zipFolder(`${base}-${fw}`, files) };
}

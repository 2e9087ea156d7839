// What a loop is (DESIGN "loops"; LOOPS.md): one definition that everything else reads from the
// registry (src/loops/registry.ts): its name and paper, its typed config (fields with help text
// and the paper's value, presets as partial configs, a validator), the RL-core presets it takes,
// the metrics it reports and the charts that draw them, the curriculum records it emits and the
// views that show them, and its body. Engine-free: the page imports this to build its forms,
// charts and views; the body runs against the LoopEngine interface (engine.ts) on whichever
// engine the worker or the CLI hands it.
import type { FieldSpecs } from '../config/fields';
import type { RlCoreConfig, RlCorePresetName } from '../rl/config';
import type { LoopBody } from './body';
import type { AdapterSetInit, LoopEngine } from './engine';
import type { BaseLoopConfig } from './base_config';
import type { AdapterStart } from './adapter_start';
import type { GPTConfig } from '../model/config';
import type { LoopGuide, PaperLesson } from './lessons';

/** A metric chart: one line per run of `key` from the step events (TRL's names where they exist). */
export interface MetricChartSpec {
  /** `chart-<id>` is the chart's test id */
  id: string;
  key: string;
  title: string;
  /** one line: what the curve means for RLVR */
  note: string;
  /** shown only when the run reports the metric */
  optional?: boolean;
  /** a value in [0, 1]: the axis spans at least 0–1 */
  unit?: boolean;
  /** the y axis's title with its unit (default: "fraction" for a unit chart, else none) */
  yLabel?: string;
  /**
   * Why a run of this set-up holds the metric fixed (null: it does not); a fixed metric that has
   * indeed stayed at one value is shown as a line of text, not a flat chart.
   */
  fixedBy?: (c: BaseLoopConfig) => string | null;
}

/** Several metrics of one step stacked as bars (e.g. a data mix per step). */
export interface StackedChartSpec {
  id: string;
  title: string;
  note: string;
  /** stacked bottom to top; `label` names the band in the legend */
  series: readonly { key: string; label: string }[];
  /** the y axis's title with its unit (default "per step") */
  yLabel?: string;
}

/** Several metrics as lines on one chart (e.g. rates that share a 0–1 axis). */
export interface MultiLineChartSpec {
  id: string;
  title: string;
  note: string;
  series: readonly { key: string; label: string }[];
  unit?: boolean;
  yLabel?: string;
}

/** A column of a record browser: a field of the record, how it is shown, and whether it filters. */
export interface RecordColumn {
  key: string;
  label: string;
  format?: 'text' | 'number' | 'flag' | 'rate';
  /** a flag column offers a filter (only rows where it is true / false) */
  filter?: boolean;
}

/**
 * A browser of curriculum records: the latest step's records of `record`, grouped under their
 * `groupBy` fields (e.g. the source problem and its solution), one row per record.
 */
export interface RecordBrowserSpec {
  id: string;
  title: string;
  note: string;
  record: string;
  /** fields shown once per group, above its rows */
  groupBy: readonly RecordColumn[];
  columns: readonly RecordColumn[];
  /** 'step' (default): one step's records, chosen by its number; 'all': every step's records in one table */
  scope?: 'step' | 'all';
  /** a click on a column's head sorts the rows by it */
  sortable?: boolean;
}

/**
 * A 2-D map of records' vectors (e.g. problem embeddings): the first two principal components of
 * every record of `record` so far, one dot each, coloured by `colorBy` (a number, e.g. the step),
 * `label` shown on hover.
 */
export interface MapSpec {
  id: string;
  title: string;
  note: string;
  record: string;
  vector: string;
  colorBy: string;
  label: string;
}

/**
 * A function of the run's config drawn as a curve (e.g. the reward a shape pays against a pass
 * rate), so a reader sees what the set-up rewards; `dots` marks the values a run can reach.
 */
export interface CurveSpec {
  id: string;
  title: string;
  note: string;
  xLabel: string;
  yLabel: string;
  points(c: BaseLoopConfig): readonly { x: number; y: number }[];
  dots?(c: BaseLoopConfig): readonly { x: number; y: number }[];
  /** a line naming what is drawn for this config (e.g. the chosen shape) */
  caption?(c: BaseLoopConfig): string;
}

/** A matrix of one role's checkpoints against another's, computed on demand from a run's snapshots (SPICE's cross-play). */
export interface CrossPlaySpec {
  id: string;
  title: string;
  note: string;
  /** who the rows and the columns are */
  rows: string;
  columns: string;
  /** the ways the same answers are graded, one matrix each (the first is shown first): `key` names the result's matrix */
  gradings: readonly { key: string; label: string; note: string }[];
}

/** The matrices: cell [i][j] is row checkpoint i against column checkpoint j (null: nothing to measure). */
export interface CrossPlayResult {
  /** the checkpoints' steps, in order (0: the run's starting policy) */
  steps: number[];
  /** one matrix per grading of the spec, by its key */
  passRate: Record<string, (number | null)[][]>;
  /** valid questions each column's checkpoint wrote, of `documents` */
  valid: number[];
  documents: number;
  answers: number;
  /** the challengers were shown the documents (false: the run's no-corpus ablation, as it ran) */
  withDocuments: boolean;
}

export interface CrossPlayOptions {
  /** documents the challengers write about (one question each) */
  documents: number;
  /** reasoner answers per question */
  answers: number;
  seed: number;
}

/**
 * Rollout trees drawn from leaf records (DATPO): one record per leaf with its root (1-based), the
 * fork it branched at (null: the root's own path), its own length in tokens, its reward, its last
 * block's advantage and text; a root's record lists its forks' positions (`forkAt`, spaced) and
 * scores (`forkScores`). Records of one problem share `problem`; the viewer picks a step and a problem.
 */
export interface TreeViewSpec {
  id: string;
  title: string;
  note: string;
  record: string;
}

export interface LoopViews {
  /** line charts of step metrics, in order */
  metrics: readonly MetricChartSpec[];
  stacked?: readonly StackedChartSpec[];
  multiLine?: readonly MultiLineChartSpec[];
  browsers?: readonly RecordBrowserSpec[];
  /** drawn from the selected run's config in the curriculum panel */
  curves?: readonly CurveSpec[];
  maps?: readonly MapSpec[];
  trees?: readonly TreeViewSpec[];
  /** on demand, from the run's snapshots (the loop definition's crossPlay computes it) */
  crossPlay?: CrossPlaySpec;
}

/** A named set-up: a partial config over the defaults (the `paper` preset holds the paper's values). */
export interface LoopPreset<C> {
  title: string;
  /** what it is for and how long it takes here */
  note: string;
  config: Partial<Omit<C, 'rl'>> & { rl?: Partial<RlCoreConfig> };
}

export interface LoopPaper {
  title: string;
  /** where the paper can be read (absent: the lab has only its abstract and tables, as for TTSP) */
  url?: string;
  /** the released code, where there is some */
  code?: string;
}

/**
 * What an exported TRL / veRL recipe takes from a loop (src/export/recipe_*.ts): its solving role
 * as plain GRPO groups (the recipe trains that role only), and how the paper runs the whole loop.
 */
export interface LoopRecipe<C> {
  /** the field holding the answers each solve problem gets (the GRPO group) */
  groupSize: keyof C & string;
  /** the fields whose product is the solve problems of a step */
  problems: readonly (keyof C & string)[];
  /** the paper's released code: the framework it is built on and what of the loop a recipe leaves out (absent: the control, which the recipe is) */
  released?: {
    framework: string;
    note: string;
    /** the released code is built on TRL or veRL, so what is missing is the loop's own code, not a framework */
    onRecipeFramework: boolean;
  };
}

export interface LoopSpec<C extends BaseLoopConfig = BaseLoopConfig> {
  name: string;
  title: string;
  /** null for the control (GRPO itself is a baseline here) */
  paper: LoopPaper | null;
  /** one paragraph for the launcher */
  summary: string;
  /** the loop's own fields and the shared ones, without `rl` */
  fields: FieldSpecs<Omit<C, 'rl'>>;
  /** the RL-core presets the launcher offers for this loop; the first is its default */
  rlPresets: readonly RlCorePresetName[];
  /** RL-core fields the loop does not use: the form hides them and the validator refuses them set */
  rlUnused?: readonly (keyof RlCoreConfig)[];
  /** named set-ups; `paper` (the paper's values) and `lab` (sized to finish here in minutes) at least */
  presets: Readonly<Record<string, LoopPreset<C>>>;
  /** checks an untrusted partial config and returns a complete, frozen one (throws ConfigError saying what to change) */
  validate(obj: unknown, where?: string): C;
  /**
   * The engine's sizes for a run of `c`: trajectories per trainer forward (a larger update
   * accumulates gradients over several) and sequences per decoder batch.
   */
  shape(c: C): { trainRows: number; decodeBatch: number; adapters?: readonly AdapterSetInit[] };
  /** whether CPU mode (the float64 engine, tiny policy) runs it */
  cpuMode: boolean;
  /** the curriculum record kinds its `records` events carry */
  records: readonly string[];
  views: LoopViews;
  /** parameter snapshots the lab keeps of a run (one per checkpoint, thinned past this many) for analyses over its history; absent: none */
  snapshots?: number;
  /** a loop that trains adapter sets: the one merged into the base when a checkpoint is exported as a policy (TTSP: the solver) */
  exportAdapter?: string;
  /** what a TRL / veRL recipe of a run takes from the loop (absent: its runs are not exported as recipes) */
  recipe?: LoopRecipe<C>;
}

/** A loop: its engine-free definition and its body (also engine-free: it runs against LoopEngine). */
export interface LoopDefinition<C extends BaseLoopConfig = BaseLoopConfig> {
  spec: LoopSpec<C>;
  body: LoopBody<C>;
  /**
   * The cross-play matrix of a run from its snapshots (oldest first; step 0 the starting policy),
   * each on an engine made from its parameters; reports progress as it goes.
   */
  crossPlay?(config: C, snapshots: readonly { step: number; params: Float32Array }[], engineFor: CrossPlayEngineFor, opts: CrossPlayOptions, onProgress?: (done: number, total: number) => void): Promise<CrossPlayResult>;
  /**
   * A loop that trains adapter sets: the starting values of its sets read from adapter files the
   * page exported (safetensors with their config inside), checked against the base policy `cfg`.
   * Without it the loop refuses such files.
   */
  adapterFiles?(files: readonly { file: string; bytes: Uint8Array }[], cfg: GPTConfig): AdapterStart[];
  /** what the page's introduction says about the loop (its guide.ts); absent: the introduction does not offer it */
  guide?: LoopGuide;
  /** the paper lessons it leads (`?lesson=<id>`; a lesson may also run other loops, named by their registry names) */
  lessons?: readonly PaperLesson[];
}

/** An engine for a snapshot's parameters, decoding `decodeBatch` sequences at a time (the loop sizes its own passes). */
export type CrossPlayEngineFor = (params: Float32Array, decodeBatch: number) => Promise<LoopEngine>;

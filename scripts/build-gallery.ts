// Builds public/gallery/: the lab's measured ablations (docs/runs, docs/results.md) as sweep files
// the explorer opens with no training (issue 26 §4). Each entry names the paper's claim, what the
// lab measured (as results.md says it), the commit and base policy, and the commands; its arms are
// the ablation files of docs/runs read through the one sweep format (src/explore/format.ts).
//   npx tsx scripts/build-gallery.ts        # rewrites public/gallery/*.json and index.json
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { mergeSweeps, readSweepText, sweepText, type Ablation, type Sweep } from '../src/explore/format';
import { isEffect, meanSe, pairedDifference, seedDifference, type ProblemCountsEval } from '../src/metrics/bands';
import { atControlTokens, targetDifferences } from './ttsp-seeds';

interface ArmSpec {
  label: string;
  files: string[];
  knobs?: Record<string, unknown>;
  control?: boolean;
  matchedTo?: string;
}

interface EntrySpec {
  id: string;
  title: string;
  section: string;
  claim: string;
  /** what was measured: a sentence, or one computed from the arms' files (every number from a file) */
  measured: string | ((arms: readonly Ablation[], labels: readonly string[]) => string);
  commit: string;
  base: string;
  arms: ArmSpec[];
  /** why a newer entry replaces this one: the intro lists it apart, collapsed */
  superseded?: string;
  /**
   * the answer in a line, shown before the numbers (which the intro folds): whether the paper's
   * direction holds here, as results.md's summary says it; every current entry has one
   */
  verdict?: string | ((arms: readonly Ablation[], labels: readonly string[]) => string);
  /** the axis its comparison is made on: 'tokens' where the arms are matched in generated tokens */
  xAxis?: 'step' | 'tokens';
  /** the step metrics its question is about, drawn first (TTSP's target) */
  lead?: string[];
}

const OLD_SMALL = 'small (3,600 pretraining steps, vary prompts with the problem; shipped until 2026-12-04)';
const NEW_SMALL = 'small (4,000 pretraining steps, both vary formats; shipped 2026-12-04)';
/** The first measurements of each paper's loop: another base, and loops issue 24 has since corrected. */
const SUPERSEDED = 'measured on the first small base, before issue 24 corrected the loops; the issue 27 entries re-measure each paper on the shipped base';

const counts = (e: { n?: number; correct?: number[] }): ProblemCountsEval => ({ n: e.n as number, correct: e.correct as number[] });
const f3 = (x: number) => x.toFixed(3);
const pm = (m: number, se: number) => `${m >= 0 ? '+' : ''}${f3(m)} ± ${f3(se)}`;

/** How many seeds (or seed pairs) share the sign of their mean: the claim rule's count. */
const agreeing = (xs: readonly number[], mean: number) => xs.filter((x) => Math.sign(x) === Math.sign(mean) && x !== 0).length;

/** An arm's held-out pass@1 change from its start, paired by problem, seeds pooled. */
const pass1Change = (a: Ablation) => pairedDifference(a.results.map((r) => counts(r.end)), a.results.map((r) => counts(r.start)), 1);

/** The GRPO learning-rate entry's verdict, from its two arms' files. */
const lrVerdict = ([hi, lo]: readonly Ablation[]): string =>
  pass1Change(hi).withinTwoSe && pass1Change(lo).withinTwoSe
    ? 'Forty steps are too few here: neither learning rate moves pass@1 beyond noise; the step curves show reward and entropy moving.'
    : 'A pass@1 change beyond noise within forty steps: see the numbers.';

/** The GRPO learning-rate entry's sentence, from its two arms' files. */
function lrMeasured([hi, lo]: readonly Ablation[]): string {
  const ent = (a: Ablation, at: 'start' | 'end') => meanSe(a.results.map((r) => r[at].meanEntropy)).mean;
  const p64 = (a: Ablation, at: 'start' | 'end', k: number) => meanSe(a.results.map((r) => r[at].passAtK[String(k)])).mean;
  const between = pairedDifference(hi.results.map((r) => counts(r.end)), lo.results.map((r) => counts(r.end)), 1);
  const kMax = Math.max(...Object.keys(hi.results[0].end.passAtK).map(Number));
  const ch = pass1Change(hi), cl = pass1Change(lo);
  return `From the new small, 40 steps, 3 seeds, 50 held-out problems × 16 samples: held-out pass@1 changed by ${pm(ch.mean, ch.se)} at lr 1e-4 and ${pm(cl.mean, cl.se)} at 3e-5 (paired by problem, seeds pooled); at the end 1e-4 − 3e-5 = ${pm(between.mean, between.se)}${between.withinTwoSe ? ', within two standard errors' : ''}. Held-out entropy ${f3(ent(hi, 'start'))} → ${f3(ent(hi, 'end'))} at 1e-4, ${f3(ent(lo, 'start'))} → ${f3(ent(lo, 'end'))} at 3e-5; pass@${kMax} ${f3(p64(hi, 'start', kMax))} → ${f3(p64(hi, 'end', kMax))} and ${f3(p64(lo, 'start', kMax))} → ${f3(p64(lo, 'end', kMax))}. ${ch.withinTwoSe && cl.withinTwoSe ? 'Neither change of pass@1 is beyond two standard errors: forty steps from this base show no GRPO gain yet' : 'A change of pass@1 beyond two standard errors'}; the step curves draw how reward and entropy move.`;
}

/**
 * Issue 27's sentences: each arm's change from step 0 at its last step, paired by problem, seeds
 * pooled, with the seeds' signs and the claim rule, after `lead`; each arm named by `names`, or by
 * its label in the entry.
 */
function changesMeasured(lead: string, names?: readonly string[]) {
  return (arms: readonly Ablation[], labels: readonly string[]): string => {
    const one = (a: Ablation, name: string) => {
      const d = (k: number) => pairedDifference(a.results.map((r) => counts(r.end)), a.results.map((r) => counts(r.start)), k);
      const said = (k: number) => {
        const x = d(k);
        const signs = x.perSeed.map((v) => (v > 0 ? '+' : v < 0 ? '−' : '0')).join('');
        return `pass@${k} ${pm(x.mean, x.se)} (${signs})${isEffect(x) ? (x.mean > 0 ? ' up' : ' down') : ''}`;
      };
      const ent = (at: 'start' | 'end') => meanSe(a.results.map((r) => r[at].meanEntropy)).mean;
      const n = a.results.length;
      // a seed stopped at a token budget ends before the config's steps: its own steps are said
      const steps = a.results.every((r) => r.steps === a.config.steps) ? `${a.config.steps as number} steps` : `ended at steps ${a.results.map((r) => r.steps).join(', ')}`;
      return `${name} (${steps}, ${n} seed${n === 1 ? '' : 's'}${a.partial ? ', more to come' : ''}): ${said(1)}, ${said(8)}, ${said(64)}; entropy ${f3(ent('start'))} → ${f3(ent('end'))}`;
    };
    return `${lead} ${arms.map((a, i) => one(a, (names ?? labels)[i])).join('. ')}.`;
  };
}

/** Each arm's mean over its last `window` reported values of a step metric, each seed's mean, mean ± s.e. over seeds (as run-facts prints per seed). */
function lastWindow(key: string, window: number, what: string) {
  return (arms: readonly Ablation[], labels: readonly string[]): string => {
    const per = arms.flatMap((a, i) => {
      const seeds = a.results.map((r) => (r.series?.metrics[key] ?? []).filter((v): v is number => v !== null && Number.isFinite(v)).slice(-window));
      if (seeds.some((v) => v.length === 0)) return [];
      const m = meanSe(seeds.map((v) => v.reduce((x, y) => x + y, 0) / v.length));
      return [`${labels[i]} ${f3(m.mean)} ± ${f3(m.se)}`];
    });
    return `${what} over each seed's last ${window} steps: ${per.join('; ')}.`;
  };
}

/**
 * TTSP's sentence (results §17): each arm's target mean@n at its last step against the frozen
 * base's (the same sampling seed), and each arm against the control arm, seed for seed, mean ±
 * standard error over the seeds with their signs and the claim rule; as scripts/ttsp-arms.ts prints,
 * from the same per-seed figures (scripts/ttsp-seeds.ts).
 * `spec`: the target as the shipped list names it (midhard:4); `control`: the control arm's index.
 */
function ttspMeasured(spec: string, control: number) {
  return (arms: readonly Ablation[], labels: readonly string[]): string => {
    const c = arms[control];
    const steps = c.results.map((r) => r.steps);
    const lead = `From the new small, the target ${spec} = ${String(c.config.target)} (base mean@512 ${f3(c.config.targetBaseRate as number)}), ${arms[0].config.steps as number} steps at lr ${(c.config.lr as number).toExponential(0)} (the ${labels[control]}, RL on random training problems with their true answers, stopped at the ${labels[0]}'s mean generated tokens, ${(c.config.tokenBudget as number).toLocaleString('en-GB')}: ${Math.min(...steps)}–${Math.max(...steps)} of its steps), the target evaluated with ${String(c.config.targetEvalN)} samples every ${String(c.config.targetEvalEvery)} steps and at the last; it opens by generated tokens, the arms compared at equal generation.`;
    const said = (xs: readonly number[]) => {
      const d = seedDifference(xs);
      return `${pm(d.mean, d.se)} (${xs.map((v) => (v > 0 ? '+' : v < 0 ? '−' : '0')).join('')}${isEffect(d) ? ', an effect' : ''})`;
    };
    const vsBase = arms.map((a, i) => `${labels[i]} ${said(targetDifferences(a.results, null))}`);
    const vsControl = arms.flatMap((a, i) => (i === control ? [] : [`${labels[i]} ${said(targetDifferences(a.results, c.results, labels[control]))}`]));
    return `${lead} The target's mean@64 at the last step less the frozen base's: ${vsBase.join('; ')}. Each arm less the ${labels[control]}, seed for seed: ${vsControl.join('; ')}. (An effect: beyond two standard errors over the seeds and one sign in two seeds or more.)`;
  };
}

/** §17's six targets (the first four MidHard and two VeryHard of the shipped list), each with the full gate and its generic control. */
const TTSP_TARGETS = [
  { spec: 'midhard:4', text: '(6+7)*3', section: '§17a–b' },
  { spec: 'midhard:1', text: 'min(9,9-1+4)', section: '§17b' },
  { spec: 'veryhard:1', text: '6*(max(3,5+0)+6)', section: '§17b' },
  { spec: 'midhard:2', text: '(1+7)*0+0', section: '§17c' },
  { spec: 'midhard:3', text: 'min(mod(8,8),9*9-3)', section: '§17c' },
  { spec: 'veryhard:2', text: '8+3-(5+5)', section: '§17c' },
];

/**
 * TTSP pooled over the six targets (every seed pair of every target, the seeds as units, as
 * scripts/ttsp-arms.ts pools them): the full gate less its generic control, and the control less the
 * frozen base, read from the arms' files once (every TTSP entry's verdict says it).
 */
let pooled: string | null = null;
function ttspPooled(): string {
  return (pooled ??= pooledText());
}

function pooledText(): string {
  const read = (f: string) => readSweepText(f, readFileSync(`docs/runs/${f}`, 'utf8')).arms[0].ablation.results;
  const loopVsControl: number[] = [], controlVsBase: number[] = [];
  for (const { spec } of TTSP_TARGETS) {
    const t = spec.replace(':', '');
    const loop = read(`issue27-ttsp-exp6-${t}.json`), control = read(`issue27-ttsp-exp6-generic-${t}.json`);
    loopVsControl.push(...targetDifferences(loop, control, 'the generic control'));
    controlVsBase.push(...targetDifferences(control, null));
  }
  const said = (xs: readonly number[]) => {
    const d = seedDifference(xs);
    const agree = agreeing(xs, d.mean);
    return `${pm(d.mean, d.se)}, ${agree} of ${xs.length} seed pairs ${d.mean < 0 ? 'below' : 'above'}${isEffect(d) ? ', an effect' : ', within noise'}`;
  };
  return `Over all ${TTSP_TARGETS.length} targets: the loop less RL on random problems for the same tokens ${said(loopVsControl)}; RL on random problems less the frozen base ${said(controlVsBase)}.`;
}

/** TTSP's verdict on one target, from the files: the full gate (arm 0) less the control, seed for seed, by the claim rule. */
function ttspVerdict(control: number) {
  return (arms: readonly Ablation[], labels: readonly string[]): string => {
    const xs = targetDifferences(arms[0].results, arms[control].results, labels[control]);
    const d = seedDifference(xs);
    const agree = agreeing(xs, d.mean);
    const seeds = agree === xs.length ? 'every seed' : `${agree} seeds of ${xs.length}`;
    const here = !isEffect(d)
      ? `Not reproduced on this target: RL on random problems for the same tokens does as well (the loop ends ${d.mean < 0 ? 'below' : 'above'} it in ${seeds}, within noise).`
      : d.mean < 0
        ? `The opposite on this target: the loop ends below RL on random problems for the same tokens (${seeds}).`
        : `Reproduced on this target: the loop ends above RL on random problems for the same tokens (${seeds}).`;
    // the end compares the loop's own tokens with the control's (stopped at the loop's mean); where the
    // loop's evaluation nearest each control seed's tokens judges otherwise, that is said too
    const dn = seedDifference(atControlTokens(arms[0].results, arms[control].results, labels[control]).map((n) => n.d));
    const differs = isEffect(dn) !== isEffect(d) || (isEffect(dn) && Math.sign(dn.mean) !== Math.sign(d.mean));
    const nearText = `at equal tokens (the loop's evaluation nearest each control seed's tokens) ${pm(dn.mean, dn.se)}, ${isEffect(dn) ? `an effect, the loop ${dn.mean > 0 ? 'above' : 'below'}` : 'within noise'}`;
    const endText = `at the loop's end ${pm(d.mean, d.se)}, ${isEffect(d) ? `an effect, the loop ${d.mean > 0 ? 'above' : 'below'}` : 'within noise'}`;
    return `${differs ? `Mixed on this target, against RL on random problems for the same tokens: ${endText}; ${nearText}.` : here} ${ttspPooled()}`;
  };
}

/** TTSP's question: the target's mean@n, the frozen base's and the majority vote. */
const TTSP_LEAD = ['target/mean', 'target/base_mean', 'target/maj'];

const TTSP_CLAIM = 'TTSP: test-time self-play with a proposer and a solver adapter raises accuracy on a hard target without a verifier on it, beyond RL on any problems.';

/** §17's first two arms on a target (its file key, midhard4): the full gate and its generic control, matched in tokens. */
const ttspArms = (t: string): ArmSpec[] => [
  { label: 'full gate', files: [`issue27-ttsp-exp6-${t}.json`], knobs: { gate: 'full' } },
  { label: 'generic control', files: [`issue27-ttsp-exp6-generic-${t}.json`], knobs: { solverProblems: 'training' }, control: true, matchedTo: 'arm1' },
];

const HELDOUT_LEAD = 'From the new small, all 200 eval-mixed problems × 64 samples; change from step 0 to the last step paired by problem, seeds pooled (seeds\' signs; up/down: the claim rule, beyond two standard errors and one sign in two seeds or more).';

const SEARCH_ARMS: ArmSpec[] = [
  { label: 'GRPO lr 1e-4 (§11)', files: ['issue27-grpo-lr1e-4.json'], knobs: { lr: 1e-4 } },
  { label: 'GRPO lr 3e-5 (§11)', files: ['issue27-grpo-lr3e-5.json'], knobs: { lr: 3e-5 } },
  { label: 'P1 lr 5e-5', files: ['issue27-grpo-lr5e-5.json'], knobs: { lr: 5e-5 } },
  { label: 'P2 lr 1e-4, 1,000 training problems', files: ['issue27-grpo-pool1000.json'], knobs: { trainProblems: 1000 } },
  { label: 'P3 lr 3e-5, 900 steps', files: ['issue27-grpo-lr3e-5-900.json'], knobs: { steps: 900 } },
];

export const ENTRIES: readonly EntrySpec[] = [
  {
    id: 'grpo-failure', title: 'GRPO for 300 steps: looking for the failure the papers start from (results §11)', section: 'docs/results.md §11',
    claim: 'The papers\' starting point (SvS, DATPO): GRPO raises pass@1 while entropy falls and large-k coverage (pass@32, pass@64) drops below the base.',
    measured: changesMeasured(HELDOUT_LEAD, ['lr 1e-4', 'lr 3e-5']),
    verdict: 'Each half holds at one learning rate: lr 1e-4 loses large-k coverage with no pass@1 gain, lr 3e-5 gains pass@1 and keeps coverage.',
    commit: 'ec11f29', base: NEW_SMALL,
    arms: [
      { label: 'GRPO lr 1e-4 (the default)', files: ['issue27-grpo-lr1e-4.json'], knobs: { lr: 1e-4 } },
      { label: 'GRPO lr 3e-5', files: ['issue27-grpo-lr3e-5.json'], knobs: { lr: 3e-5 } },
    ],
  },
  {
    id: 'grpo-search', title: 'GRPO: looking for pass@1 up and coverage down together (results §12)', section: 'docs/results.md §12',
    claim: 'The papers\' starting point (SvS, DATPO): GRPO raises pass@1 while entropy falls and large-k coverage (pass@32, pass@64) drops below the base.',
    measured: changesMeasured(`${HELDOUT_LEAD} The pilots ran seed 1 only, evaluated every 100 steps (P3 every 150).`),
    verdict: 'Pass@1 up and coverage down together: not shown beyond noise in any of the pilots.',
    commit: '25d55d3', base: NEW_SMALL,
    arms: SEARCH_ARMS,
  },
  {
    id: 'svs-exp2', title: 'SvS against GRPO at lr 1e-4, the corrected loop (results §13)', section: 'docs/results.md §13',
    claim: 'SvS (Liang et al.): self-play with variational problem synthesis keeps policy entropy and raises pass@k at large k where GRPO\'s stalls.',
    measured: changesMeasured(`${HELDOUT_LEAD} SvS evaluated every 25 steps; an SvS step generates ~4 times a GRPO step's tokens (SvS step 75 ≈ GRPO step 300; it opens by generated tokens).`),
    verdict: 'Entropy: falls less than GRPO\'s at equal tokens (it still falls). Large-k coverage: not reproduced (it falls as GRPO\'s does).',
    xAxis: 'tokens' as const, commit: '76f7313', base: NEW_SMALL,
    arms: [
      { label: 'GRPO lr 1e-4 (§11)', files: ['issue27-grpo-lr1e-4.json'], knobs: { loop: 'grpo' } },
      { label: 'SvS lr 1e-4 (shaped reward)', files: ['issue27-svs.json'], knobs: { loop: 'svs', variantReward: 'shaped' } },
      { label: 'SvS lr 1e-4 (naive reward)', files: ['issue27-svs-naive.json'], knobs: { loop: 'svs', variantReward: 'naive' } },
    ],
  },
  {
    id: 'datpo-exp3', title: 'DATPO against GRPO at lr 1e-4 and equal generated tokens (results §14)', section: 'docs/results.md §14',
    claim: 'DATPO: difficulty-adaptive rollout trees forked at high-entropy steps, with a sibling-diversity bonus, improve pass@k over GRPO at an equal generated-token budget.',
    measured: changesMeasured(`${HELDOUT_LEAD} DATPO with n-gram sibling embeddings (the bonus on), each seed run to the tokens the control's seed generated in its 300 steps (it opens by generated tokens; by step, DATPO's end ≈ GRPO's step 300).`),
    verdict: 'Entropy: falls less than GRPO\'s at equal tokens (it still falls). pass@k: not reproduced (behind GRPO at small k, level at large k).',
    xAxis: 'tokens' as const, commit: '93e5c4a', base: NEW_SMALL,
    arms: [
      { label: 'GRPO lr 1e-4 (§11)', files: ['issue27-grpo-lr1e-4.json'], knobs: { loop: 'grpo' } },
      { label: 'DATPO lr 1e-4 (n-gram siblings, α 0.2 → 0)', files: ['issue27-datpo.json'], knobs: { loop: 'datpo' } },
    ],
  },
  {
    id: 'opensir-exp4', title: 'OpenSIR from 1+1 against GRPO at lr 1e-4 and equal generated tokens (results §15)', section: 'docs/results.md §15',
    claim: 'OpenSIR (Kwan et al.): a teacher–student loop grows its own problems from a pool holding only 1+1 and the student improves without data; without the diversity reward, concept coverage nearly halves.',
    measured: (arms, labels) => `${changesMeasured(`${HELDOUT_LEAD} OpenSIR at the paper's constants (4 teacher groups × 8 problems, 8 student answers, window [0.5, 0.9]; the s_min 0.1 arm [0.1, 0.9]), each seed run to the tokens the control's seed generated in its 300 steps (it opens by generated tokens; by step, OpenSIR's end ≈ GRPO's step 300).`)(arms, labels)} ${lastWindow('oracle/label_agreement', 20, 'The majority-vote labels\' agreement with the true value')(arms, labels)}`,
    verdict: 'Not reproduced: the student gets worse, trained on majority-vote labels mostly wrong at this scale; the diversity reward\'s coverage effect not shown; s_min 0.1\'s late validity collapse reproduced.',
    xAxis: 'tokens' as const, commit: 'd14cb9d', base: NEW_SMALL,
    arms: [
      { label: 'GRPO lr 1e-4 (§11)', files: ['issue27-grpo-lr1e-4.json'], knobs: { loop: 'grpo' } },
      { label: 'OpenSIR lr 1e-4 (full loop)', files: ['issue27-opensir.json'], knobs: { loop: 'opensir', divWeight: 1 } },
      { label: 'OpenSIR lr 1e-4 (no diversity, γ = 0)', files: ['issue27-opensir-nodiv.json'], knobs: { loop: 'opensir', divWeight: 0 } },
      { label: 'OpenSIR lr 1e-4 (s_min 0.1)', files: ['issue27-opensir-smin01.json'], knobs: { loop: 'opensir', divWeight: 1, sMin: 0.1 } },
    ],
  },
  {
    id: 'spice-exp5', title: 'SPICE against GRPO at lr 1e-4 and equal generated tokens (results §16)', section: 'docs/results.md §16',
    claim: 'SPICE (Liu et al.): a challenger grounded in corpus documents and a reasoner in self-play improve reasoning beyond training on fixed data.',
    measured: changesMeasured(`${HELDOUT_LEAD} SPICE at the paper's constants (8 documents × 8 questions, 8 answers a question, the gaussian challenger reward), each seed run to the tokens the control's seed generated in its 300 steps (it opens by generated tokens; by step, SPICE's end ≈ GRPO's step 300).`),
    verdict: 'Not reproduced: the reasoner gets worse, trained on challenger golds mostly wrong at this scale, and learns to agree with them rather than to compute.',
    xAxis: 'tokens' as const, commit: 'a693cd7', base: NEW_SMALL,
    arms: [
      { label: 'GRPO lr 1e-4 (§11)', files: ['issue27-grpo-lr1e-4.json'], knobs: { loop: 'grpo' } },
      { label: 'SPICE lr 1e-4 (full loop)', files: ['issue27-spice.json'], knobs: { loop: 'spice' } },
    ],
  },
  {
    id: 'ttsp-exp6', title: 'TTSP on (6+7)*3: the full gate, its arms and RL on random problems for the same tokens (results §17)', section: 'docs/results.md §17a–b',
    claim: TTSP_CLAIM,
    measured: ttspMeasured('midhard:4', 1),
    verdict: ttspVerdict(1),
    lead: TTSP_LEAD, xAxis: 'tokens' as const, commit: '34c3b89', base: NEW_SMALL,
    arms: [
      ...ttspArms('midhard4'),
      { label: 'answer-only gate', files: ['issue27-ttsp-exp6-answer-only-midhard4.json'], knobs: { gate: 'answer-only' } },
      { label: 'threshold proposer reward', files: ['issue27-ttsp-exp6-threshold-midhard4.json'], knobs: { proposerReward: 'threshold' } },
    ],
  },
  ...TTSP_TARGETS.filter((t) => t.spec !== 'midhard:4').map(({ spec, text, section }) => ({
    id: `ttsp-exp6-${spec.replace(':', '')}`, title: `TTSP on ${text}: the full gate against RL on random problems for the same tokens (results ${section})`, section: `docs/results.md ${section}`,
    claim: TTSP_CLAIM,
    measured: ttspMeasured(spec, 1),
    verdict: ttspVerdict(1),
    lead: TTSP_LEAD, xAxis: 'tokens' as const, commit: '34c3b89', base: NEW_SMALL,
    arms: ttspArms(spec.replace(':', '')),
  })),
  {
    id: 'grpo-lr', title: 'GRPO at two learning rates, with step curves (new small)', section: 'measured for the gallery (issue 26 §4)',
    claim: 'GRPO (DeepSeekMath; the control every paper compares against): RL on verifiable rewards raises pass@1 while policy entropy falls.',
    measured: lrMeasured,
    verdict: lrVerdict,
    commit: '5f1df37', base: NEW_SMALL,
    arms: [
      { label: 'GRPO lr 1e-4 (the default)', files: ['gallery-grpo-lr1e-4.json'], knobs: { lr: 1e-4 } },
      { label: 'GRPO lr 3e-5', files: ['gallery-grpo-lr3e-5.json'], knobs: { lr: 3e-5 } },
    ],
  },
  {
    id: 'svs-vs-grpo', title: 'SvS against GRPO at the same generated tokens', section: 'docs/results.md §5',
    claim: 'SvS (Liang et al.): self-play with variational problem synthesis keeps policy entropy and raises pass@k at large k where GRPO\'s stalls.',
    measured: 'Held-out pass@1 rose slightly (+0.018) and entropy fell less than GRPO\'s (0.231 → 0.206 against 0.174), but large-k coverage did not rise; GRPO at the same tokens gained more at small k (pass@1 +0.054). Measured before issue 24: variants were written from the problem and its solution.',
    commit: '38187d5', base: OLD_SMALL, superseded: SUPERSEDED,
    arms: [
      { label: 'SvS (lab set-up, lr 3e-5)', files: ['svs-seed1.json', 'svs-seeds23.json'], knobs: { variantReward: 'shaped' } },
      { label: 'GRPO (lr 3e-5, SvS\'s tokens)', files: ['grpo-vs-svs.json'], control: true, matchedTo: 'arm1' },
    ],
  },
  {
    id: 'svs-naive-reward', title: 'SvS: the shaped variant reward against the naive one', section: 'docs/results.md §5',
    claim: 'SvS: with the naive reward R_v = 1[p̂ > 0] the policy hacks variant writing by leaking the answer; the shaped band prevents it.',
    measured: 'Leak rates of 0.19–0.27 under both rewards; these sat at the old leak flag\'s base rate (about a third), so nothing was shown either way. Measured before issue 24 redefined the flag (now ~2 % on gold variants, with vps/leak_base beside it). The naive arm ran 50 steps, the shaped 100.',
    commit: 'a82daa8', base: OLD_SMALL, superseded: SUPERSEDED,
    arms: [
      { label: 'SvS shaped (100 steps)', files: ['svs-seed1.json', 'svs-seeds23.json'], knobs: { variantReward: 'shaped' } },
      { label: 'SvS naive (50 steps)', files: ['svs-naive.json'], knobs: { variantReward: 'naive' } },
    ],
  },
  {
    id: 'spice-vs-grpo', title: 'SPICE against GRPO at the same generated tokens', section: 'docs/results.md §6',
    claim: 'SPICE (Liu et al.): a challenger grounded in corpus documents and a reasoner in self-play improve reasoning beyond training on fixed data.',
    measured: 'SPICE moved held-out pass@1 by +0.003, +0.004 and −0.022 (seeds 1–3); GRPO at the same tokens gained +0.036 to +0.042 on every seed. The challenger\'s gold was right about a quarter of the time.',
    commit: '0e63449', base: OLD_SMALL, superseded: SUPERSEDED,
    arms: [
      { label: 'SPICE (lab set-up)', files: ['spice.json'] },
      { label: 'GRPO (lr 3e-5, SPICE\'s tokens)', files: ['grpo-vs-spice.json', 'grpo-vs-spice-23.json'], control: true, matchedTo: 'arm1' },
    ],
  },
  {
    id: 'opensir', title: 'OpenSIR, its ablations, and GRPO at the same tokens', section: 'docs/results.md §7',
    claim: 'OpenSIR (Kwan et al.): a teacher growing a problem pool from 1+1, paid for solvability and diversity, improves the student without any data.',
    measured: 'The pool grew to ~1,390 problems and ~390 concept signatures, but the students\' majority was right half the time and held-out pass@1 did not rise (−0.014 ± 0.007), where GRPO at the same tokens gained about 0.05. The no-diversity arm was measured before issue 24: it still selected by diversity.',
    commit: '54d1dde', base: OLD_SMALL, superseded: SUPERSEDED,
    arms: [
      { label: 'OpenSIR (lab set-up)', files: ['opensir.json', 'opensir-s3.json'] },
      { label: 'OpenSIR, no diversity reward', files: ['opensir-nodiv.json', 'opensir-nodiv-2.json', 'opensir-nodiv-3.json'], knobs: { divWeight: 0 } },
      { label: 'OpenSIR, student only', files: ['opensir-student.json', 'opensir-student-3.json'], knobs: { frozenTeacher: true } },
      { label: 'GRPO (lr 3e-5, OpenSIR\'s tokens)', files: ['grpo-vs-opensir.json', 'grpo-vs-opensir-3.json'], control: true, matchedTo: 'arm1' },
    ],
  },
  {
    id: 'datpo-vs-grpo', title: 'DATPO against GRPO at the same generated tokens', section: 'docs/results.md §8',
    claim: 'DATPO: difficulty-adaptive rollout trees forked at high-entropy steps improve pass@k over GRPO at equal generation budget.',
    measured: 'GRPO\'s pass@1 gained more (+0.052 against +0.021); DATPO kept more entropy and the base\'s pass@64 (0.870 against 0.828; +0.042 ± 0.023 paired), crossing between k = 16 and 32. Measured before issue 24: the sibling-diversity bonus was about 1 % of the advantages, so effectively off.',
    commit: '998afb9', base: OLD_SMALL, superseded: SUPERSEDED,
    arms: [
      { label: 'DATPO (lab set-up)', files: ['datpo-s1.json', 'datpo-s2.json', 'datpo-s3.json'] },
      { label: 'GRPO (lr 3e-5, DATPO\'s tokens)', files: ['grpo-vs-datpo-s1.json', 'grpo-vs-datpo-s2.json', 'grpo-vs-datpo-s3.json'], control: true, matchedTo: 'arm1' },
    ],
  },
  {
    id: 'ttsp-targets', title: 'TTSP on six hard targets (one seed each)', section: 'docs/results.md §9',
    claim: 'TTSP: test-time self-play with a proposer and a solver adapter raises accuracy on a hard target without a verifier on it.',
    measured: 'The proposer wrote problems about each target and a sixth to a third passed the gate; relatedness had no baseline then (random training problems score 0.65–0.80) and target-equivalent proposals were not measured. One seed a target: each arm is a target, not a knob.',
    commit: 'd0d8a8f', base: OLD_SMALL, superseded: SUPERSEDED,
    arms: ['midhard1', 'midhard2', 'midhard3', 'veryhard1', 'veryhard2', 'veryhard3'].map((t) => ({ label: `target ${t}`, files: [`ttsp-${t}.json`], knobs: { target: t } })),
  },
];

const parts0 = (arms: readonly { ablation: Ablation }[]) => arms.every((a) => a.ablation.results.every((r) => r.series !== undefined));

function entry(spec: EntrySpec): Sweep {
  const arms = spec.arms.map((a) => {
    const parts = a.files.map((f) => readSweepText(f, readFileSync(`docs/runs/${f}`, 'utf8')).arms[0].ablation);
    const ablation = { ...parts[0], partial: parts.some((p) => p.partial), results: parts.flatMap((p) => p.results).sort((x, y) => x.seed - y.seed) };
    return { label: a.label, knobs: a.knobs ?? {}, control: a.control, matchedTo: a.matchedTo, files: a.files, ablation };
  });
  const merged = mergeSweeps(spec.title, [{
    format: 'rlvr-lab.sweep', version: 1, title: spec.title, curvesRecorded: parts0(arms),
    arms: arms.map((a, i) => ({ id: `arm${i + 1}`, label: a.label, knobs: a.knobs, ...(a.control ? { control: true, matchedTo: a.matchedTo } : {}), ablation: a.ablation })),
  }]);
  const measured = typeof spec.measured === 'string' ? spec.measured : spec.measured(arms.map((a) => a.ablation), arms.map((a) => a.label));
  if (!spec.verdict && !spec.superseded) throw new Error(`${spec.id}: a current entry needs its verdict`);
  const verdict = typeof spec.verdict === 'function' ? spec.verdict(arms.map((a) => a.ablation), arms.map((a) => a.label)) : spec.verdict;
  const curves = merged.curvesRecorded ? 'step curves recorded' : 'step curves were not recorded for these runs: the pass@k curves and the table draw from their start and end evaluations';
  return {
    ...merged, claim: spec.claim, measured: `${measured} (${spec.section}; ${curves}.)`, ...(verdict ? { verdict } : {}), ...(spec.xAxis ? { xAxis: spec.xAxis } : {}), ...(spec.lead ? { lead: spec.lead } : {}),
    commit: spec.commit, base: spec.base,
    commands: [...new Set(arms.flatMap((a) => a.ablation.command ? [a.ablation.command] : a.files.map((f) => `see ${spec.section} for the command that wrote docs/runs/${f}`)))],
  };
}

mkdirSync('public/gallery', { recursive: true });
const index = ENTRIES.map((e) => {
  const s = entry(e);
  const text = sweepText(s);
  readSweepText(`${e.id}.json`, text); // what is shipped reads back
  writeFileSync(`public/gallery/${e.id}.json`, text);
  return { id: e.id, title: e.title, claim: e.claim, measured: s.measured, file: `gallery/${e.id}.json`, curvesRecorded: s.curvesRecorded, arms: s.arms.length, seeds: s.arms.map((a) => a.ablation.results.length), ...(s.verdict ? { verdict: s.verdict } : {}), ...(e.superseded ? { superseded: e.superseded } : {}) };
});
writeFileSync('public/gallery/index.json', JSON.stringify({ entries: index }, null, 1) + '\n');
process.stdout.write(`wrote ${index.length} gallery entries to public/gallery/\n`);

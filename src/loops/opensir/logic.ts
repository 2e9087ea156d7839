// OpenSIR's rules (LOOPS.md §4), pure and engine-free so they are tested by hand: the solvability
// triangle, cosine diversity (top-k mean or nearest, on src/metrics/diversity.ts's cosine), majority
// vote with its tie rule, the selection score and the two selection rules, the concept-token
// mask, and what the oracle says of a teacher's problem (displayed, never rewarded).
import { conceptKey, conceptsOf, conceptTags, parseTeach, TAG_TOKEN, type Concepts, type ConceptTag } from '../../world/index';
import { topKMeanCosine } from '../../metrics/diversity';

/** Pass rates are k/n: the window's edges must count as inside whatever the rounding. */
const EDGE = 1e-9;

/**
 * sol(s): a triangle on [s_min, s_max] peaking at 1 at the midpoint, y₂ at the edges, 0 outside;
 * y₂ = 1 / (the number of solve rates i/n, i = 1..n, inside the window): 0.25 for n = 8 and
 * [0.5, 0.9] (4/8, 5/8, 6/8, 7/8).
 */
export function solvability(s: number, sMin: number, sMax: number, n: number): number {
  if (s < sMin - EDGE || s > sMax + EDGE) return 0;
  let inside = 0;
  // the reachable solve rates i/n, i = 1..n, as the released code counts them (a rate of 0 never has a majority)
  for (let i = 1; i <= n; i++) if (i / n >= sMin - EDGE && i / n <= sMax + EDGE) inside++;
  const y2 = inside > 0 ? 1 / inside : 1;
  const half = (sMax - sMin) / 2;
  if (half <= EDGE) return 1;
  const mid = (sMin + sMax) / 2;
  return y2 + (1 - y2) * Math.max(0, 1 - Math.abs(s - mid) / half);
}


/**
 * div of `v` against `others` (this step's other legal problems and the pool before the step):
 * top-k: (1 − mean of the k largest cosine similarities)/2; min: (1 − the largest)/2, half the
 * cosine distance to the nearest. With nothing to compare against, 1/2 (cosine 0).
 */
export function diversity(v: ArrayLike<number>, others: readonly ArrayLike<number>[], mode: 'top5' | 'min', k: number): number {
  // topKMeanCosine is 0 for no others: div = 1/2
  return (1 - topKMeanCosine(v, others, mode === 'min' ? 1 : k)) / 2;
}

/**
 * The majority answer of the parsable ones and how many gave it; ties go to the answer given
 * first (Python's Counter.most_common order). null when no answer parses.
 */
export function majority(answers: readonly (number | null)[]): { label: number | null; count: number; parsable: number } {
  const counts = new Map<number, number>();
  for (const a of answers) if (a !== null) counts.set(a, (counts.get(a) ?? 0) + 1);
  let label: number | null = null, count = 0;
  for (const [a, n] of counts) if (n > count) (label = a), (count = n);
  return { label, count, parsable: [...counts.values()].reduce((x, n) => x + n, 0) };
}

/** Population variance. */
export function variance(xs: readonly number[]): number {
  if (xs.length === 0) return 0;
  const m = xs.reduce((a, x) => a + x, 0) / xs.length;
  return xs.reduce((a, x) => a + (x - m) ** 2, 0) / xs.length;
}

/**
 * The score both selections read: the reward's own weighted components, α·sol + γ·div (the
 * released code's combined_scores = difficulty_weight·diff + diversity_weight·div, the diversity
 * term only when diversity is among the teacher's rewards). With γ = 0 (the no-diversity
 * ablation) div plays no part in which group or problem trains.
 */
export function selectionScore(sol: number, div: number, c: { solWeight: number; divWeight: number }): number {
  return c.solWeight * sol + (c.divWeight > 0 ? c.divWeight * div : 0);
}

/**
 * The teacher group to train on: the highest variance of the selection score over its scored problems
 * (legal, with an answer that parses; an output without a score takes no part), a group with
 * none scoring −1, as the released code does; the first on a tie.
 */
export function selectTeacherGroup(groups: readonly (readonly number[])[]): number {
  let best = 0, bestVar = -Infinity;
  groups.forEach((g, i) => {
    const v = g.length ? variance(g) : -1;
    if (v > bestVar) (best = i), (bestVar = v);
  });
  return best;
}

/** The problem the student trains on: the highest selection score of the scored ones (null: no score); the first on a tie; −1 when none has a score. */
export function selectStudentProblem(scores: readonly (number | null)[]): number {
  let best = -1, bestScore = -Infinity;
  scores.forEach((s, i) => {
    if (s !== null && s > bestScore) (best = i), (bestScore = s);
  });
  return best;
}

const TAG_IDS = new Set<number>(Object.values(TAG_TOKEN));

/** The loss mask of a teacher response: concept tag tokens out (0), everything else in (1). */
export function conceptMask(response: ArrayLike<number>): Float32Array {
  return Float32Array.from(response, (t) => (TAG_IDS.has(t) ? 0 : 1));
}

/** The teacher's claim is right: every claimed tag is one the syntax tree shows, and it names as many as it may (all of them, at most three). */
export function conceptsRight(claimed: readonly ConceptTag[], actual: readonly ConceptTag[], most: number): boolean {
  return claimed.every((t) => actual.includes(t)) && claimed.length === Math.min(most, actual.length);
}

export interface TeachDiagnostics {
  legal: boolean;
  problem: string | null;
  /** concepts the teacher claimed (its tags) and those the syntax tree shows */
  claimed: ConceptTag[];
  actual: ConceptTag[];
  /** the interpreter's value (the oracle) */
  value: number | null;
  /** the problem's primary topic: its rarest concept (a function, nesting, large values, then operators) */
  topic: ConceptTag | null;
  /** its concept signature and concept-tag set ({@link signatureOf}); null when illegal */
  key: string | null;
  tagSet: string | null;
}

/** What coverage counts of a problem's concepts: its concept signature (conceptKey) and its concept tags, sorted and space-separated. */
export function signatureOf(c: Concepts): { key: string; tagSet: string } {
  return { key: conceptKey(c), tagSet: [...conceptTags(c)].sort().join(' ') };
}

/** Reads a teacher output (the response text before its end token; `ended` false: cut at the limit). */
export function diagnoseTeach(text: string, ended: boolean): TeachDiagnostics {
  const r = ended ? parseTeach(text) : null;
  if (!r?.ok) return { legal: false, problem: null, claimed: [], actual: [], value: null, topic: null, key: null, tagSet: null };
  const concepts = conceptsOf(r.value.problem.expr);
  const actual = conceptTags(concepts);
  return { legal: true, problem: r.value.problem.text, claimed: r.value.tags, actual, value: r.value.problem.oracleValue, topic: actual[0] ?? null, ...signatureOf(concepts) };
}

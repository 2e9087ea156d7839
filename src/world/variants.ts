// Gold responses for the roles that write new problems.
//
// vary (SvS): a new problem with the same answer. A small model cannot build a new value from
// scratch (NOTES: 1-12 % right), so the gold variants are meaning-preserving rewrites that the
// shown trace makes easy to copy: commute, re-associate, substitute a sub-result the trace
// computed, split a small constant, distribute.
// propose (TTSP): a problem related to the target (a changed number or operator, a part of
// it, a same-answer rewrite, or one operation more). teach (OpenSIR): a different problem of
// nearby difficulty.
import { countOps, isFunction, nodesWithPaths, num, opNode, replaceAt, type Expr, type Op } from './expr';
import { evaluate } from './interpreter';
import { followsConventions, generateProblem, MAX_OPS, toProblem, type DifficultySpec, type Problem } from './generator';
import { pick, pickWeighted, randInt, type Rng } from './rng';
import { STEP_END } from './trace';

type Spec = Required<DifficultySpec>;

export const REWRITES = ['commute', 'reassociate', 'substitute', 'split', 'distribute'] as const;
export type Rewrite = (typeof REWRITES)[number];

const COMMUTATIVE: readonly Op[] = ['+', '*', 'min', 'max'];

/** Every tree one rewrite of the given kind away from `e` (a split draws its constant at random). */
export function rewritesOf(rng: Rng, e: Expr, kind: Rewrite): Expr[] {
  const out: Expr[] = [];
  for (const { node, path } of nodesWithPaths(e)) {
    for (const replacement of rewriteNode(rng, node, kind, path.length === 0)) out.push(replaceAt(e, path, replacement));
  }
  return out;
}

function rewriteNode(rng: Rng, n: Expr, kind: Rewrite, isRoot: boolean): Expr[] {
  switch (kind) {
    case 'commute':
      return n.kind === 'op' && COMMUTATIVE.includes(n.op) ? [opNode(n.op, n.right, n.left)] : [];
    case 'reassociate':
      return n.kind === 'op' ? reassociations(n) : [];
    case 'substitute': {
      // The root's value is the answer itself: that variant is the trivial one SvS punishes.
      if (n.kind !== 'op' || isRoot) return [];
      const r = evaluate(n);
      return r.ok ? [num(r.value)] : [];
    }
    case 'split': {
      if (n.kind !== 'num' || n.value < 2) return [];
      const k = randInt(rng, 1, n.value - 1);
      return [opNode('+', num(k), num(n.value - k))];
    }
    case 'distribute':
      return n.kind === 'op' && n.op === '*' ? distributions(n.left, n.right) : [];
  }
}

/** (a+b)+c ↔ a+(b+c), the same for *, and the +/- mixes (a+b)-c ↔ a+(b-c), (a-b)-c ↔ a-(b+c). */
function reassociations(n: Extract<Expr, { kind: 'op' }>): Expr[] {
  const out: Expr[] = [];
  const { op, left: l, right: r } = n;
  if (l.kind === 'op') {
    if ((op === '+' || op === '*') && l.op === op) out.push(opNode(op, l.left, opNode(op, l.right, r)));
    if (op === '-' && l.op === '+') out.push(opNode('+', l.left, opNode('-', l.right, r)));
    if (op === '-' && l.op === '-') out.push(opNode('-', l.left, opNode('+', l.right, r)));
  }
  if (r.kind === 'op') {
    if ((op === '+' || op === '*') && r.op === op) out.push(opNode(op, opNode(op, l, r.left), r.right));
    if (op === '+' && r.op === '-') out.push(opNode('-', opNode('+', l, r.left), r.right));
    if (op === '-' && r.op === '+') out.push(opNode('-', opNode('-', l, r.left), r.right));
  }
  return out;
}

/** a*(b±c) → a*b±a*c and (b±c)*a → b*a±c*a, for a number a (so the copy stays short). */
function distributions(l: Expr, r: Expr): Expr[] {
  const out: Expr[] = [];
  const isSum = (e: Expr) => e.kind === 'op' && (e.op === '+' || e.op === '-');
  if (l.kind === 'num' && isSum(r) && r.kind === 'op') out.push(opNode(r.op, opNode('*', l, r.left), opNode('*', l, r.right)));
  if (r.kind === 'num' && isSum(l) && l.kind === 'op') out.push(opNode(l.op, opNode('*', l.left, r), opNode('*', l.right, r)));
  return out;
}

const REWRITE_WEIGHTS: Readonly<Record<Rewrite, number>> = { commute: 1, reassociate: 1, substitute: 1, split: 1, distribute: 1 };

/** One random rewrite of a random applicable kind, or null when none applies. */
function rewriteOnce(rng: Rng, e: Expr): Expr | null {
  const options = REWRITES.map((kind) => ({ kind, trees: rewritesOf(rng, e, kind) })).filter((o) => o.trees.length > 0);
  if (options.length === 0) return null;
  const chosen = pickWeighted(rng, options, options.map((o) => REWRITE_WEIGHTS[o.kind]));
  return pick(rng, chosen.trees);
}

/** Whether `candidate` is a usable new problem: valid, in convention, new, not a bare number. */
function usable(candidate: Expr, spec: Spec, avoid: ReadonlySet<string>): Problem | null {
  if (candidate.kind !== 'op' || !followsConventions(candidate, spec)) return null;
  const p = toProblem(candidate);
  return p && !avoid.has(p.text) ? p : null;
}

/**
 * A gold vary response: one rewrite (sometimes two) of the problem, same answer, new text.
 * Never the trace's last step (`36-4` for `(7+5)*3-4`): that trivial variant is what SvS's
 * shaped reward punishes, so the base should not be taught it.
 */
export function goldVariant(rng: Rng, problem: Problem, spec: Spec): Problem | null {
  const steps = problem.solution.split(STEP_END);
  const lastStep = steps.length > 1 ? steps[steps.length - 2].split('=')[0] : null;
  for (let attempt = 0; attempt < 20; attempt++) {
    let e = rewriteOnce(rng, problem.expr);
    if (e && rng() < 0.3) e = rewriteOnce(rng, e) ?? e;
    const variant = e && usable(e, spec, new Set([problem.text]));
    if (!variant || variant.text === lastStep) continue;
    if (variant.answer !== problem.answer) throw new Error(`goldVariant: ${problem.text} → ${variant.text} changed the answer`);
    return variant;
  }
  return null;
}

/** A gold propose response: a problem related to the target, not seen before. */
export function relatedProblem(rng: Rng, target: Problem, spec: Spec, earlier: readonly string[]): Problem | null {
  const avoid = new Set([target.text, ...earlier]);
  const mutations: ((e: Expr) => Expr | null)[] = [
    (e) => changeLiteral(rng, e, spec.maxOperand),
    (e) => changeOperator(rng, e),
    (e) => subproblem(rng, e),
    (e) => rewriteOnce(rng, e),
    (e) => extend(rng, e, spec.maxOperand),
  ];
  for (let attempt = 0; attempt < 30; attempt++) {
    const e = pick(rng, mutations)(target.expr);
    const p = e && usable(e, spec, avoid);
    if (p) return p;
  }
  return null;
}

function changeLiteral(rng: Rng, e: Expr, maxOperand: number): Expr | null {
  const literals = nodesWithPaths(e).filter((x) => x.node.kind === 'num');
  const { path } = pick(rng, literals);
  return replaceAt(e, path, num(randInt(rng, 0, maxOperand)));
}

function changeOperator(rng: Rng, e: Expr): Expr | null {
  const ops = nodesWithPaths(e).filter((x) => x.node.kind === 'op' && !isFunction(x.node.op));
  if (ops.length === 0) return null;
  const { node, path } = pick(rng, ops);
  if (node.kind !== 'op') return null;
  const others = (['+', '-', '*'] as const).filter((op) => op !== node.op);
  return replaceAt(e, path, opNode(pick(rng, others), node.left, node.right));
}

function subproblem(rng: Rng, e: Expr): Expr | null {
  const inner = nodesWithPaths(e).filter((x) => x.path.length > 0 && x.node.kind === 'op');
  return inner.length > 0 ? pick(rng, inner).node : null;
}

function extend(rng: Rng, e: Expr, maxOperand: number): Expr | null {
  if (countOps(e) >= MAX_OPS) return null;
  const op = pick(rng, ['+', '-', '*', 'min', 'max', 'mod'] as const);
  const n = num(randInt(rng, 1, maxOperand));
  return rng() < 0.5 || isFunction(op) ? opNode(op, e, n) : opNode(op, n, e);
}

/** A gold teach response: a different problem with one operation more or less, or as many. */
export function teachProblem(rng: Rng, pool: Problem, spec: Spec): Problem {
  for (let attempt = 0; attempt < 100; attempt++) {
    const ops = Math.min(MAX_OPS, Math.max(1, pool.concepts.ops + randInt(rng, -1, 1)));
    const p = generateProblem(rng, { ...spec, ops, maxDepth: ops });
    if (p.text !== pool.text) return p;
  }
  throw new Error(`teachProblem: no problem different from ${pool.text} for ${JSON.stringify(spec)}`);
}


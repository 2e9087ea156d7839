// Whether a problem hands over an answer: the oracle's "leak" (SvS's variants, SPICE's questions),
// a diagnostic that is shown and never rewarded.
//
// "One of its numbers equals the answer" is not a leak: a third of the training problems contain
// their own answer as a literal (3*3-6, 4*2-4), and so do a quarter of gold, meaning-preserving
// rewrites. A problem hands the answer over when the answer can be read off one of its literals,
// the rest of the problem cancelling out: 36+0, 36*1, 36-0, max(36,2), min(36,99), (36+5)-5, the
// bare 36. Tested the interpreter's way, with no list of identities: the problem evaluates to the
// answer, a literal equals the answer, and moving that literal by one moves the value by one (both
// ways, where the world's bounds allow), so near the answer the problem is the identity of that
// literal. Some problems are born that way (max(7,3), 5*1: a quarter of the training set); a loop
// that compares with an original asks whether the rewrite handed over what the original did not
// (svs/logic.ts).
import { nodesWithPaths, num, replaceAt, VALUE_LIMIT, type Expr } from './expr';
import { evaluate } from './interpreter';

/** The problem's value is `answer` and one of its literals equal to `answer` passes straight through to it. */
export function handsOverAnswer(e: Expr, answer: number): boolean {
  const v = evaluate(e);
  if (!v.ok || v.value !== answer) return false;
  const probes = [answer - 1, answer + 1].filter((x) => Math.abs(x) <= VALUE_LIMIT);
  return nodesWithPaths(e).some(({ node, path }) => node.kind === 'num' && node.value === answer && probes.every((x) => {
    const r = evaluate(replaceAt(e, path, num(x)));
    return r.ok && r.value === x;
  }));
}

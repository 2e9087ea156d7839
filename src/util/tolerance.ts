// The one tolerance helper (tests and the in-app self-test): |a - e| <= atol + rtol * |e| element-wise, loud on failure.
export interface Tolerance {
  atol: number;
  rtol: number;
}

export interface CloseReport {
  ok: boolean;
  maxAbs: number;
  maxRel: number;
  firstBad: number;
  message: string;
}

type Num = ArrayLike<number>;

export function compareClose(label: string, actual: Num, expected: Num, tol: Tolerance): CloseReport {
  if (actual.length !== expected.length) {
    return { ok: false, maxAbs: Infinity, maxRel: Infinity, firstBad: 0, message: `${label}: length ${actual.length} != expected ${expected.length}` };
  }
  let maxAbs = 0;
  let maxRel = 0;
  let firstBad = -1;
  let bad = 0;
  for (let i = 0; i < expected.length; i++) {
    const a = actual[i];
    const e = expected[i];
    const d = Math.abs(a - e);
    const finiteMismatch = Number.isFinite(a) !== Number.isFinite(e) || Number.isNaN(a);
    if (d > maxAbs || Number.isNaN(d)) maxAbs = Number.isNaN(d) ? Infinity : d;
    const rel = d / Math.max(Math.abs(e), 1e-30);
    if (rel > maxRel) maxRel = rel;
    if (finiteMismatch || !(d <= tol.atol + tol.rtol * Math.abs(e))) {
      bad++;
      if (firstBad < 0) firstBad = i;
    }
  }
  const ok = bad === 0;
  let message = `${label}: n=${expected.length} maxAbs=${maxAbs.toExponential(3)} maxRel=${maxRel.toExponential(3)}`;
  if (!ok) {
    const pairs: string[] = [];
    for (let i = firstBad; i < Math.min(expected.length, firstBad + 5); i++) pairs.push(`[${i}] got ${actual[i]} want ${expected[i]}`);
    message += ` FAILED ${bad} elements (atol=${tol.atol}, rtol=${tol.rtol}); first at ${firstBad}: ${pairs.join('; ')}`;
  }
  return { ok, maxAbs, maxRel, firstBad, message };
}

/** Throws with the report when any element is out of tolerance. */
export function expectClose(label: string, actual: Num, expected: Num, tol: Tolerance): CloseReport {
  const r = compareClose(label, actual, expected, tol);
  if (!r.ok) throw new Error(r.message);
  return r;
}

// The TTSP targets shipped with the `small` base (public/models/small/ttsp_targets.json, written by
// `rlvr-lab ttsp-targets`) still describe today's world and today's split: every measured problem
// is the candidate set's problem of that id with its gold answer, rates are c / n at n = 512, and
// MidHard / VeryHard are exactly what splitTargets makes of them. A change to the world's
// generator or to the candidate set makes this fail until the targets are measured again.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadSet, splitTargets } from '../../src/world/index';
import { TTSP_CANDIDATE_SET, type TtspTargets } from '../../src/cli/ttsp_targets';

const PATH = new URL('../../public/models/small/ttsp_targets.json', import.meta.url);

describe('shipped TTSP targets of the small base', () => {
  const doc = JSON.parse(readFileSync(PATH, 'utf8')) as TtspTargets;

  it('measure the current candidate set at mean@512', () => {
    expect(doc.set).toBe(TTSP_CANDIDATE_SET);
    expect(doc.n).toBe(512);
    const candidates = loadSet(TTSP_CANDIDATE_SET);
    expect(doc.problems.length).toBeGreaterThanOrEqual(32);
    doc.problems.forEach((p, i) => {
      expect(p.id).toBe(i);
      expect(p.text).toBe(candidates[i].text);
      expect(p.answer).toBe(candidates[i].answer);
      expect(p.n).toBe(512);
      expect(Number.isInteger(p.c) && p.c >= 0 && p.c <= p.n).toBe(true);
      expect(p.passRate).toBe(p.c / p.n);
    });
  });

  it('split into MidHard and VeryHard exactly as splitTargets does', () => {
    const { midHard, veryHard } = splitTargets(doc.problems, doc.problems.map((p) => p.passRate));
    expect(doc.midHard.map((p) => p.id)).toEqual(midHard.map((p) => p.id));
    expect(doc.veryHard.map((p) => p.id)).toEqual(veryHard.map((p) => p.id));
    expect(doc.unsolved).toBe(doc.problems.filter((p) => p.c === 0).length);
    expect(doc.solved).toBe(doc.problems.filter((p) => p.c === p.n).length);
    // a target set TTSP can use: some of each kind
    expect(doc.midHard.length).toBeGreaterThan(0);
    expect(doc.veryHard.length).toBeGreaterThan(0);
  });
});

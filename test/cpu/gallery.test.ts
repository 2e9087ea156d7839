// The shipped gallery (public/gallery, built by scripts/build-gallery.ts) reads through the one
// sweep format, and every entry says what the explorer needs to show it honestly.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readSweepText } from '../../src/explore/format';
import { armPassAtK } from '../../src/metrics/bands';

const dir = new URL('../../public/gallery/', import.meta.url);
const index = JSON.parse(readFileSync(new URL('index.json', dir), 'utf8')) as { entries: { id: string; file: string; title: string; claim: string; measured: string; arms: number }[] };

describe('gallery: the lab\'s measured ablations, shipped', () => {
  it('lists entries', () => expect(index.entries.length).toBeGreaterThanOrEqual(6));
  for (const e of index.entries) {
    it(`${e.id}: reads, names its claim, measurement, commit and base, and every arm's seeds evaluated the same problems`, () => {
      const s = readSweepText(e.file, readFileSync(new URL(`${e.id}.json`, dir), 'utf8'));
      expect(s.title).toBe(e.title);
      expect(s.claim?.length).toBeGreaterThan(20);
      expect(s.measured?.length).toBeGreaterThan(20);
      expect(s.commit).toMatch(/^[0-9a-f]{7,40}$/);
      expect(s.base).toBeTruthy();
      expect(s.commands?.length).toBeGreaterThan(0);
      expect(s.arms).toHaveLength(e.arms);
      for (const arm of s.arms) {
        const ends = arm.ablation.results.map((r) => r.end).filter((x) => x.correct && x.n).map((x) => ({ n: x.n as number, correct: x.correct as number[] }));
        expect(ends.length, `${arm.label}: per-problem counts`).toBe(arm.ablation.results.length);
        const p = armPassAtK(ends, 1);
        expect(p.mean).toBeGreaterThan(0);
        expect(p.mean).toBeLessThan(1);
      }
      if (!s.curvesRecorded) expect(s.measured).toMatch(/curves were not recorded/);
    });
  }
});

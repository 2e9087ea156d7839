// The ablation tables' arithmetic: standard errors across problems and across seeds, and the
// table's mean row.
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { ablateCommand, crossPlayChange, crossPlaySeeds, crossPlayTables, pairedChange, passWithError, standardError, summarise, table, type SeedResult } from '../../src/cli/ablate';
import { priorSeeds } from '../../src/cli/ablate_resume';
import { passAtK } from '../../src/metrics/passk';

const ev = (correct: number[], n = 4) => ({
  type: 'eval' as const, step: 0, set: 's', passAtK: { '1': correct.reduce((a, c) => a + c / n, 0) / correct.length }, avgAtK: {}, majAtK: {},
  meanEntropy: 0.5, meanLength: 3, histogram: [], n, correct,
});

describe('ablation statistics', () => {
  it('standard error: sample std over √n; 0 for a single value', () => {
    expect(standardError([1, 2, 3, 4])).toBeCloseTo(Math.sqrt(5 / 3) / 2, 12);
    expect(standardError([7])).toBe(0);
  });

  it('pass@k with its standard error across problems, from the per-problem counts', () => {
    const e = ev([0, 2, 4, 1]);
    const per = [0, 2, 4, 1].map((c) => passAtK(4, c, 2));
    const r = passWithError(e, 2);
    expect(r.mean).toBeCloseTo(per.reduce((a, x) => a + x, 0) / 4, 12);
    expect(r.se).toBeCloseTo(standardError(per), 12);
    // an evaluation recorded without counts has a mean and no error
    expect(passWithError({ ...e, correct: undefined }, 1)).toEqual({ mean: e.passAtK['1'], se: NaN });
  });

  it('the table: per seed, then the mean and its standard error over seeds', () => {
    const r = (seed: number, end: number[]): SeedResult => ({ seed, start: ev([1, 1]), end: ev(end), steps: 10, generatedTokens: 1000 * seed, seconds: 1, report: { 'vps/leak': seed / 10 } });
    const md = table([r(1, [2, 2]), r(2, [4, 4])], [1], ['vps/leak']).split('\n');
    expect(md[0]).toBe('| seed | steps | generated tokens | entropy start | entropy end | pass@1 start | pass@1 end | pass@1 change (paired by problem) | vps/leak (run mean) |');
    expect(md[2]).toBe('| 1 | 10 | 1000 | 0.500 | 0.500 | 0.250 ± 0.000 | 0.500 ± 0.000 | 0.250 ± 0.000 | 0.100 |');
    expect(md[4]).toBe('| mean ± s.e. over 2 seeds | 10.000 ± 0.000 | 1500.000 ± 500.000 | 0.500 ± 0.000 | 0.500 ± 0.000 | 0.250 ± 0.000 | 0.750 ± 0.250 | 0.500 ± 0.250 | 0.150 ± 0.050 |');
    // a seed that halted itself says so in its row
    expect(table([{ ...r(1, [2, 2]), halted: 'the run halted at step 10: …' }], [1], []).split('\n')[2]).toMatch(/^\| 1 \(halted at step 10\) \|/);
  });
});

describe('pass@1 change paired by problem', () => {
  it('is the mean of the per-problem differences with their standard error; none without counts', () => {
    // problems 0..3 at n = 4: 0/4 → 2/4, 1/4 → 1/4, 4/4 → 3/4, 2/4 → 4/4: differences .5, 0, −.25, .5
    const r = pairedChange(ev([0, 1, 4, 2]), ev([2, 1, 3, 4]));
    expect(r.mean).toBeCloseTo(0.1875, 12);
    expect(r.se).toBeCloseTo(standardError([0.5, 0, -0.25, 0.5]), 12);
    // smaller than the unpaired errors when problems differ much more than the change
    expect(r.se).toBeLessThan(Math.hypot(passWithError(ev([0, 1, 4, 2]), 1).se, passWithError(ev([2, 1, 3, 4]), 1).se));
    expect(Number.isNaN(pairedChange({ ...ev([1]), correct: undefined }, ev([2])).mean)).toBe(true);
    expect(Number.isNaN(pairedChange(ev([1, 2]), ev([2])).se)).toBe(true);
  });
});

describe('--report entries', () => {
  it('the run mean, the mean of the last N steps (@-N), the last step (@last); NaN with no value', () => {
    const v = [1, 2, 3, 4, 10];
    expect(summarise('x', v)).toBe(4);
    expect(summarise('x@-2', v)).toBe(7);
    expect(summarise('x@last', v)).toBe(10);
    // @N's values are cut to steps ≤ N as they arrive: what reaches summarise is already cut
    expect(summarise('x@3', [1, 2, 3])).toBe(2);
    expect(summarise('x@-9', v)).toBe(4);
    expect(Number.isNaN(summarise('x@last', []))).toBe(true);
    const md = table([{ seed: 1, start: ev([1]), end: ev([2]), steps: 5, generatedTokens: 9, seconds: 1, report: { 'x@-2': 7, 'x@last': 10, 'x@3': 2 } }], [1], ['x@-2', 'x@last', 'x@3']).split('\n');
    expect(md[0]).toContain('| x (mean, last 2 steps) | x (last step) | x (mean, steps ≤ 3) |');
  });
});

describe('ablate --from-json', () => {
  it('tables the seeds of several earlier ablations together, and refuses a seed twice', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rlvr-ablate-'));
    const r = (seed: number): SeedResult => ({ seed, start: ev([1, 1]), end: ev([2, 2]), steps: 5, generatedTokens: 100 * seed, seconds: 1, report: { 'vps/leak': seed / 10 } });
    await writeFile(join(dir, 'a.json'), JSON.stringify({ loop: 'svs', base: 'b', config: {}, partial: true, results: [r(1)] }));
    await writeFile(join(dir, 'b.json'), JSON.stringify({ loop: 'svs', base: 'b', config: {}, partial: false, results: [r(3), r(2)] }));
    let out = '';
    const spy = vi.spyOn(process.stdout, 'write').mockImplementation((c) => ((out += String(c)), true));
    try {
      await ablateCommand(['--from-json', `${join(dir, 'a.json')},${join(dir, 'b.json')}`]);
    } finally {
      spy.mockRestore();
    }
    const rows = out.trim().split('\n');
    expect(rows.slice(2, 5).map((l) => l.split(' | ')[0])).toEqual(['| 1', '| 2', '| 3']);
    expect(rows[5]).toMatch(/^\| mean ± s\.e\. over 3 seeds \| 5\.000 ± 0\.000 \| 200\.000 ± 57\.735 /);
    await expect(ablateCommand(['--from-json', `${join(dir, 'a.json')},${join(dir, 'a.json')}`])).rejects.toThrow(/seed 1 appears twice/);
  });

  it('with --json, writes seeds of one set-up run apart as one ablation that --resume and the tables read; two arms refused', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rlvr-ablate-merge-'));
    const r = (seed: number) => ({ seed, start: ev([1, 1]), end: ev([2, 2]), steps: 5, generatedTokens: 100 * seed, seconds: 1, report: { 'vps/leak': seed / 10 } });
    const doc = (seed: number, config: object) => ({ format: 'rlvr-lab.ablation', version: 1, command: `npm run ablate -- --loop grpo --seeds ${seed} --steps 5 --preset tiny`, loop: 'grpo', base: 'public/models/tiny', config: { seed, ...config }, partial: false, results: [r(seed)] });
    const [a, b, c, out] = ['a', 'b', 'c', 'out'].map((x) => join(dir, `${x}.json`));
    await writeFile(a, JSON.stringify(doc(2, { steps: 5, checkpointEvery: 0 })));
    await writeFile(b, JSON.stringify(doc(1, { checkpointEvery: 10, steps: 5 })));
    await writeFile(c, JSON.stringify(doc(3, { steps: 6 })));
    const spy = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    try {
      await ablateCommand(['--from-json', `${a},${b}`, '--json', out]);
      await expect(ablateCommand(['--from-json', `${a},${b}`, '--json', dir])).rejects.toThrow(/--json .* is a directory/);
      await expect(ablateCommand(['--from-json', `${a},${c}`, '--json', join(dir, 'no.json')])).rejects.toThrow(/c\.json was run with another config than .*a\.json .*two arms, not one/);
    } finally {
      spy.mockRestore();
    }
    const merged = JSON.parse(await readFile(out, 'utf8')) as { command: string; results: { seed: number }[] };
    expect(merged.results.map((x) => x.seed)).toEqual([1, 2]);
    expect(merged.command).toBe('npm run ablate -- --loop grpo --seeds 1,2 --steps 5 --preset tiny');
    expect(merged.results[1]).toEqual(r(2));
    expect(existsSync(join(dir, 'no.json'))).toBe(false);
    // --resume takes the merged file as the ablation of seeds 1 and 2 (it refuses files of another set-up)
    expect((await priorSeeds(out, { loop: 'grpo', base: 'public/models/tiny', config: { seed: 3, steps: 5, checkpointEvery: 0 } })).map((x) => x.seed)).toEqual([1, 2]);
  });
});

describe('ablate: long-ablation flags refused with one line before any run', () => {
  it('--eval-every, --checkpoint-every, --resume without --json, and a --json of another set-up', async () => {
    await expect(ablateCommand(['--preset', 'tiny', '--eval-every', '-1'])).rejects.toThrow(/--eval-every must be a whole number of steps ≥ 0/);
    await expect(ablateCommand(['--preset', 'tiny', '--checkpoint-every', '0'])).rejects.toThrow(/--checkpoint-every must be a whole number of steps ≥ 1/);
    await expect(ablateCommand(['--preset', 'tiny', '--resume'])).rejects.toThrow(/--resume continues the ablation its --json file holds: give --json/);
    // an output that cannot be written is refused before the first seed, not when it finishes
    await expect(ablateCommand(['--preset', 'tiny', '--json', tmpdir()])).rejects.toThrow(/--json .* is a directory; give a file/);
    await expect(ablateCommand(['--preset', 'tiny', '--markdown', join(tmpdir(), 'no-such-folder-rlvr', 'x.md')])).rejects.toThrow(/--markdown .*: the folder .* does not exist/);
    const dir = await mkdtemp(join(tmpdir(), 'rlvr-ablate-resume-'));
    const file = join(dir, 'svs.json');
    const seed = { seed: 1, start: ev([1]), end: ev([2]), steps: 1, generatedTokens: 9, seconds: 1, report: {} };
    await writeFile(file, JSON.stringify({ loop: 'svs', base: 'public/models/tiny', config: {}, partial: true, results: [seed] }));
    await expect(ablateCommand(['--preset', 'tiny', '--loop', 'grpo', '--json', file, '--resume'])).rejects.toThrow(/--resume: .*svs\.json holds svs runs, not grpo/);
    await writeFile(file, JSON.stringify({ loop: 'grpo', base: 'public/models/tiny', config: { steps: 7 }, partial: true, results: [seed] }));
    await expect(ablateCommand(['--preset', 'tiny', '--loop', 'grpo', '--json', file, '--resume'])).rejects.toThrow(/was run with another config/);
    await writeFile(file, '{"loop": "grpo"}');
    await expect(ablateCommand(['--preset', 'tiny', '--loop', 'grpo', '--json', file, '--resume'])).rejects.toThrow(/--resume: .*svs\.json: base/);
  });
});

describe('ablate --cross-play tables', () => {
  it('rows are the reasoner\'s steps, columns the challenger\'s, one table per grading; no valid question is a dash', () => {
    const md = crossPlayTables(2, {
      steps: [0, 10], documents: 4, answers: 8, withDocuments: true, valid: [3, 0],
      passRate: { gold: [[0.25, null], [0.5, null]], value: [[0.125, null], [0.375, null]] },
    });
    expect(md.split('\n')).toEqual([
      'Seed 2 cross-play (4 documents, one question each, 8 answers a question; valid questions by challenger step: 0: 3, 10: 0)',
      '', 'graded by the challenger\'s gold: reasoner step ↓, challenger step →', '',
      '| reasoner \\ challenger | 0 | 10 |', '| --- | --- | --- |', '| 0 | 0.250 | – |', '| 10 | 0.500 | – |',
      '', 'read down a column (reasoner step 10 − step 0): the base challenger\'s questions (column 0) 0.250 → 0.500 (+0.250); the final challenger\'s (column 10) – → – (–); mean over the 1 column with both cells +0.250',
      '', 'graded by the true value (oracle): reasoner step ↓, challenger step →', '',
      '| reasoner \\ challenger | 0 | 10 |', '| --- | --- | --- |', '| 0 | 0.125 | – |', '| 10 | 0.375 | – |',
      '', 'read down a column (reasoner step 10 − step 0): the base challenger\'s questions (column 0) 0.125 → 0.375 (+0.250); the final challenger\'s (column 10) – → – (–); mean over the 1 column with both cells +0.250',
    ]);
  });

  it('a column read down is its last row less its first: the base challenger\'s, the final one\'s and the mean over columns with both cells', () => {
    const m = [[0.5, 0.25, null, 0.75], [0.1, 0.9, 0.4, 0.2], [0.25, 0.5, 0.3, null]];
    expect(crossPlayChange(m)).toEqual({ first: -0.25, last: null, mean: 0, columns: 2 });
    expect(crossPlayChange([[0.5, 0.25]])).toEqual({ first: null, last: null, mean: null, columns: 0 });
    expect(crossPlayChange([[0.5, 0.25], [0.75, 0.0]])).toEqual({ first: 0.25, last: -0.25, mean: 0, columns: 2 });
  });

  it('over the seeds: mean ± standard error of each seed\'s column changes, with their signs, one line per grading', () => {
    const c = (gold: number[][], value: number[][]) => ({ steps: [0, 10], documents: 4, answers: 8, withDocuments: true, valid: [4, 4], passRate: { gold, value } });
    const md = crossPlaySeeds([
      { seed: 1, c: c([[0.5, 0.5], [0.25, 0.75]], [[0.5, 0.5], [0.5, 0.5]]) },
      { seed: 3, c: c([[0.5, 0.5], [0.75, 1.0]], [[0.5, 0.5], [0.25, 0.25]]) },
    ]);
    expect(md.split('\n')).toEqual([
      'Cross-play over the 2 seeds (1, 3), last reasoner row − first, mean ± s.e. (each seed\'s sign):',
      '- graded by the challenger\'s gold: base challenger\'s column 0.000 ± 0.250 (−+); final challenger\'s column +0.375 ± 0.125 (++); mean over columns +0.188 ± 0.188 (0+)',
      '- graded by the true value (oracle): base challenger\'s column -0.125 ± 0.125 (0−); final challenger\'s column -0.125 ± 0.125 (0−); mean over columns -0.125 ± 0.125 (0−)',
    ]);
  });
});

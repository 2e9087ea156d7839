// The bench's pure helpers and its report format (no timing is asserted anywhere).
import { describe, expect, it } from 'vitest';
import { calibratedReps, fmt, formatTable, geomean, matmulGflops, round3 } from '../../src/bench/timing';
import { benchPlan, transformerMatmuls } from '../../src/bench/plan';
import { renderReport, summarize, type BenchResults, type BenchSummary } from '../../src/bench/report';

describe('bench timing helpers', () => {
  it('geomean is the geometric mean and rejects non-positive input', () => {
    expect(geomean([2, 8])).toBeCloseTo(4, 12);
    expect(geomean([0.5, 2, 1])).toBeCloseTo(1, 12);
    expect(() => geomean([])).toThrow(/empty/);
    expect(() => geomean([1, 0])).toThrow(/positive/);
    expect(() => geomean([1, NaN])).toThrow(/positive/);
  });

  it('calibratedReps fills the target time within bounds', () => {
    expect(calibratedReps(0.1, 2, 1, 100)).toBe(20);
    expect(calibratedReps(0.001, 2, 1, 100)).toBe(100);
    expect(calibratedReps(5, 2, 1, 100)).toBe(1);
    expect(calibratedReps(5, 2, 3, 100)).toBe(3);
    expect(calibratedReps(0, 2, 1, 7)).toBe(7);
    expect(() => calibratedReps(1, 1, 0, 5)).toThrow(/bounds/);
    expect(() => calibratedReps(1, 1, 5, 4)).toThrow(/bounds/);
  });

  it('matmulGflops counts 2·M·K·N per repetition', () => {
    expect(matmulGflops({ M: 1000, K: 1000, N: 1000 }, 3, 2)).toBeCloseTo(3, 12);
  });

  it('fmt and round3 keep about three significant digits', () => {
    expect(fmt(12345.6)).toBe('12346');
    expect(fmt(123.456)).toBe('123.5');
    expect(fmt(12.3456)).toBe('12.35');
    expect(fmt(0.12345)).toBe('0.123');
    expect(fmt(0.0001234)).toBe('1.23e-4');
    expect(fmt(0)).toBe('0');
    expect(round3(1234.5678)).toBe(1230);
    expect(round3(0.012345)).toBe(0.0123);
    expect(round3(78)).toBe(78);
  });

  it('formatTable pads columns and rejects ragged rows', () => {
    const t = formatTable(['name', 'x'], [['a', '1'], ['long name', '22']]);
    expect(t.split('\n')).toEqual(['name        x', '---------  --', 'a           1', 'long name  22']);
    expect(() => formatTable(['a', 'b'], [['1']])).toThrow(/cells/);
  });
});

describe('bench plan', () => {
  it('covers the GPT block matmuls of the issue, the LM head transposed', () => {
    const cases = transformerMatmuls(2048, 64, 64, 1024);
    expect(cases.map((c) => c.label)).toEqual([
      '[2048,64]x[64,192]', '[2048,64]x[64,256]', '[2048,256]x[256,64]', '[2048,64]x[64,64]^T', '[1024,1024]x[1024,1024]',
    ]);
    expect(cases[3]).toMatchObject({ M: 2048, K: 64, N: 64, transB: true });
  });

  it('quick and full plans time attention at T = 64, 128, 256', () => {
    for (const quick of [true, false]) expect(benchPlan(quick).attention.Ts).toEqual([64, 128, 256]);
    expect(benchPlan(true).mode).toBe('quick');
    expect(benchPlan(false).train).toMatchObject({ B: 16, T: 64 });
  });
});

function fakeResults(): BenchResults {
  const plan = benchPlan(true);
  const stats = { dispatches: 78, submits: 1, readbackBytes: 0, pipelinesCreated: 0 };
  const side = (tps: number) => ({ tokensPerS: tps, msPerStep: 1000, steps: 2, initialLoss: 4.17 });
  return {
    adapter: 'test-adapter',
    plan,
    matmul: plan.matmul.map((c, i) => ({
      c, ours: { perRepS: 0.01, reps: 3 }, tfjs: { perRepS: 0.02, reps: 2 }, oursGflops: 2, tfjsGflops: 1, ratio: i === 0 ? 8 : 2,
    })),
    attention: [64, 128, 256].flatMap((T) => [{ T, design: 'tiled' as const, ms: T / 10, reps: 2 }, { T, design: 'direct' as const, ms: T / 5, reps: 2 }]),
    decodeAttention: [{ s: 32, tiled: 8, slots: 0.5, scalar: 1.5 }, { s: 96, tiled: 20, slots: 1, scalar: 2.5 }],
    train: { B: 4, T: 32, params: 112384, ours: side(300), tfjs: side(100), ratio: 3, perStep: stats, pipelinesAfterWarmup: 0 },
    sample: {
      B: 64, prompt: 8, maxNew: 16, tokens: 1024, tokensPerS: 512.345, perGenerate: { ...stats, submits: 5 },
      prefill: { promptShare: 1 / 3, distinct: { off: 400, rows: 512.345 }, grouped: { group: 8, off: 400, rows: 500, shared: 600 } },
      fork: { B: 64, prompt: 48, maxNew: 24, group: 4, rows: 300, shared: 450 },
      blocks: [{ B: 8, layered: 400, fused: 800 }, { B: 64, layered: 2000, fused: 500 }], blockKernel: 'layered',
    },
    controlStep: { steps: 1, problemsPerStep: 8, groupSize: 8, rolloutS: 1.5, trainS: 0.5, stepS: 2, tokensPerStep: 1200, meanSeqLen: 30, evalProblems: 8, evalN: 8, evalS: 4 },
    page: { adapter: 'test-adapter', runSeconds: 40, longTasks: 3, longestTaskMs: 56.25, tasksOver50: 2 },
    ort: {
      adapter: 'test-adapter', wasmThreads: 1, maxNew: 16, promptTokens: 13,
      rows: [
        { B: 1, greedy: true, ours: 300, ortWebgpu: 30, ortWasm: 600, errors: [] },
        { B: 64, greedy: true, ours: 2000, ortWebgpu: 100, ortWasm: 4000, errors: [] },
        { B: 64, greedy: false, ours: 1800, ortWebgpu: null, ortWasm: 3600, errors: ['ort webgpu: lost'] },
      ],
    },
  };
}

describe('bench report', () => {
  it('ends with exactly one JSON line holding the summary fields', () => {
    const text = renderReport(fakeResults());
    const lines = text.trimEnd().split('\n');
    const json = JSON.parse(lines[lines.length - 1]) as BenchSummary;
    expect(Object.keys(json)).toEqual([
      'adapter', 'matmulVsTfjs', 'trainStepVsTfjs', 'attnFwdBwdMs', 'decodeAttnSlotsVsScalar', 'trainTokensPerS', 'sampleTokensPerS',
      'sharedPrefillVsTokenByToken', 'forkVsReprefill', 'fusedVsLayeredBlocks', 'sampleVsOrtWebgpu', 'sampleVsOrtWasm', 'grpoStepSeconds', 'dispatchesPerStep', 'submitsPerStep', 'readbackBytesPerStep', 'pipelinesAfterWarmup', 'longTaskMaxMs', 'longTasksOver50',
      'explorerFirstDrawMs', 'explorerLongTaskMaxMs',
    ]);
    expect([json.longTaskMaxMs, json.longTasksOver50]).toEqual([56.3, 2]);
    // the explorer's figure is printed when measured, and says so when not
    expect([json.explorerFirstDrawMs, json.explorerLongTaskMaxMs]).toEqual([null, null]);
    expect(text).toContain('Explorer drawing a big grid: not measured');
    const withExplorer = renderReport({ ...fakeResults(), explorer: { runs: 48, steps: 300, metrics: 20, charts: 22, firstDrawMs: 640.4, allDrawnMs: 3000, longestTaskMs: 88.2, tasksOver50: 3 } });
    expect(withExplorer).toMatch(/time to first draw \(navigation start to the first chart drawn\): 640 ms/);
    expect(JSON.parse(withExplorer.trimEnd().split('\n').pop()!)).toMatchObject({ explorerFirstDrawMs: 640, explorerLongTaskMaxMs: 88.2 });
    expect(text).toMatch(/longest task +56\.25 ms/);
    expect(json.attnFwdBwdMs).toEqual({ tiled: { '64': 6.4, '128': 12.8, '256': 25.6 }, direct: { '64': 12.8, '128': 25.6, '256': 51.2 } });
    expect(text).toMatch(/T=128 +direct +25\.60 +2/);
    expect(lines.filter((l) => l.startsWith('{')).length).toBe(1);
    expect(text).toContain('quick mode');
    expect([json.sharedPrefillVsTokenByToken, json.grpoStepSeconds]).toEqual([1.5, 2]);
    expect(text).toMatch(/8 prompts × 8 rows +400\.0 +500\.0 +600\.0 +1\.500/);
    expect(text).toMatch(/whole step +2\.000 s/);
    expect(json.forkVsReprefill).toBe(1.5);
    // decode attention's designs row by row; the JSON ratio at the most cached positions
    expect(json.decodeAttnSlotsVsScalar).toBe(2.5);
    expect(text).toMatch(/\n *33 +8\.000 +0\.500 +1\.500 +3\.000 +16\.00\n *97 +20\.00 +1\.000 +2\.500 +2\.500 +20\.00/);
    // the decode blocks' two designs, row by row; the JSON ratio at the sampling batch (B = 64)
    expect(json.fusedVsLayeredBlocks).toBe(0.25);
    expect(text).toContain('the sampling figures above ran layered');
    expect(text).toMatch(/\n *8 +400\.0 +800\.0 +2\.000\n *64 +2000 +500\.0 +0\.250/);
    // ours over onnxruntime-web at B = 64 greedy, in the table row by row (a failed side says so)
    expect([json.sampleVsOrtWebgpu, json.sampleVsOrtWasm]).toEqual([20, 0.5]);
    expect(text).toMatch(/64 +greedy +2000 +100\.0 +4000 +20\.00 +0\.500/);
    expect(text).toMatch(/64 +T = 1 +1800 +failed +3600/);
    expect(text).toContain('failures: ort webgpu: lost');
    expect(text).toMatch(/16 fork prefixes of 48 tokens × 4 branches of 24 new tokens\n[^\n]*\n[^\n]*\n? *300\.0 +450\.0 +1\.500/);
  });

  it('says when the page was not measured, with null figures', () => {
    const r = { ...fakeResults(), page: null, decodeAttention: undefined };
    expect(renderReport(r)).toContain('not measured (--skip-page)');
    expect(renderReport(r)).toContain('Decode attention: not measured');
    expect(summarize(r).decodeAttnSlotsVsScalar).toBeNull();
    expect(summarize(r)).toMatchObject({ longTaskMaxMs: null, longTasksOver50: null });
  });

  it('summarises matmul ratios by their geometric mean', () => {
    const s = summarize(fakeResults());
    expect(s.matmulVsTfjs).toBeCloseTo(round3(geomean([8, 2, 2, 2, 2])), 12);
    expect(s).toMatchObject({ trainStepVsTfjs: 3, trainTokensPerS: 300, sampleTokensPerS: 512, dispatchesPerStep: 78, submitsPerStep: 1 });
  });
});

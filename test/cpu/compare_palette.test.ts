// A comparison that never mislabels, and the small things (issue 28 §3, §4): hiding a run rescales
// the axes to the others; one category palette, as long as the longest category list of any
// loop's views, styles bars, lines and swatches alike.
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { visibleRuns } from '../../src/state/compare';
import { CATEGORY_COLOURS, categoryClass } from '../../src/ui/charts/overlay';
import { LOOPS } from '../../src/loops/registry';
import { phaseLine, showsEta } from '../../src/state/statusLine';

describe('the runs the axes scale to', () => {
  const shown = { runs: [{ run: { id: 'a' } }, { run: { id: 'b' } }, { run: { id: 'c' } }] };

  it('leave out runs hidden in the legend', () => {
    expect(visibleRuns(shown, ['b']).map((r) => r.run.id)).toEqual(['a', 'c']);
    expect(visibleRuns(shown, []).map((r) => r.run.id)).toEqual(['a', 'b', 'c']);
  });

  it('keep every run when all are hidden, and a run shown alone whatever was hidden', () => {
    expect(visibleRuns(shown, ['a', 'b', 'c']).map((r) => r.run.id)).toEqual(['a', 'b', 'c']);
    expect(visibleRuns({ runs: [{ run: { id: 'a' } }] }, ['a']).map((r) => r.run.id)).toEqual(['a']);
  });
});

describe('the category palette', () => {
  // styles.css imports one stylesheet per area (src/ui/styles/)
  const dir = path.join(__dirname, '../../src/ui/styles');
  const css = readdirSync(dir).map((f) => readFileSync(path.join(dir, f), 'utf8')).join('\n');

  it('is as long as the longest category list of any loop\'s views', () => {
    const longest = Math.max(...LOOPS.flatMap((d) => [...(d.spec.views.stacked ?? []), ...(d.spec.views.multiLine ?? [])].map((v) => v.series.length)));
    expect(CATEGORY_COLOURS).toBeGreaterThanOrEqual(longest);
    const classes = Array.from({ length: longest }, (_, i) => categoryClass(i));
    expect(new Set(classes).size).toBe(longest);
  });

  it('styles every colour for bars, lines and legend swatches, each with a colour of its own', () => {
    const colours = new Set<string>();
    for (let i = 0; i < CATEGORY_COLOURS; i++) {
      const c = categoryClass(i);
      expect(css, c).toContain(`.${c} .recharts-rectangle`);
      expect(css, c).toContain(`.${c} .recharts-curve`);
      expect(css, c).toContain(`.swatch.${c} {`);
      colours.add(new RegExp(`--k${i}: (#[0-9a-f]{6})`).exec(css)?.[1] ?? '');
    }
    expect(colours.size).toBe(CATEGORY_COLOURS);
    expect(colours.has('')).toBe(false);
  });
});

describe('the run status line', () => {
  it('is never blank while a run starts, and never repeats the step the line names', () => {
    expect(phaseLine({ state: 'starting', step: 0 })).toMatch(/^starting: /);
    expect(phaseLine({ state: 'running', step: 13, phase: { kind: 'step', step: 13, detail: '' } })).toBe('sampling and updating');
    expect(phaseLine({ state: 'running', step: 12, phase: { kind: 'step', step: 13, detail: '' } })).toBe('step 13: sampling and updating');
    expect(phaseLine({ state: 'running', step: 10, phase: { kind: 'evaluating', step: 10, detail: '2 problems × 2 samples', progress: { done: 1, total: 4 } } })).toBe('evaluating after step 10 (2 problems × 2 samples): 1 of 4 samples');
  });

  it('shows no time left while a run is paused or finished', () => {
    expect(showsEta('running', 13)).toBe(true);
    expect(showsEta('paused', 13)).toBe(false);
    expect(showsEta('done', 0)).toBe(false);
    expect(showsEta('running', null)).toBe(false);
  });
});

// One loop body, two engines: GRPO from the same seed on the WebGPU engine (f32 WGSL kernels)
// and on CPU mode's engine (the float64 references) yields the same events, step for step:
// the same sampled texts and counts, and every number within float tolerance.
import { describe, expect, it } from 'vitest';
import { testGpu } from '../helpers/gpu';
import { collect, runOnCpu, runOnGpu } from '../helpers/loops';
import { expectClose } from '../helpers/tolerance';
import { loadCheckpointDir } from '../../src/model/checkpoint_node';
import type { LoopEvent } from '../../src/loops/events';

// tiny is never rewarded at random init: an entropy bonus makes the updates move the parameters
const CONFIG = { seed: 5, steps: 3, problemsPerStep: 2, groupSize: 4, maxNewTokens: 16, trainProblems: 16, evalEvery: 2, evalProblems: 3, evalN: 4, samplesPerStep: 2, lr: 1e-3, rl: { entCoef: 0.02 } };
// f32 kernels against float64 over three optimiser steps: sums of ~100k parameters agree to ~1e-6 relative
const TOL = { atol: 1e-4, rtol: 1e-4 };

/** Every leaf of an event: numbers compared with TOL, anything else exactly. */
function leaves(o: unknown, path = '', out = new Map<string, unknown>()): Map<string, unknown> {
  if (o instanceof Float32Array) {
    let s = 0, s2 = 0;
    for (const x of o) (s += x), (s2 += x * x);
    out.set(`${path}.sum`, s).set(`${path}.sumSq`, s2);
  } else if (o !== null && typeof o === 'object') for (const [k, v] of Object.entries(o)) leaves(v, `${path}.${k}`, out);
  else out.set(path, o);
  return out;
}

describe('GRPO on both engines', () => {
  it('gives the same events from the same seed', async () => {
    const gpu = await testGpu();
    const tiny = await loadCheckpointDir('public/models/tiny');
    const a = await collect(runOnGpu(gpu, 'grpo', tiny.cfg, tiny.params, CONFIG));
    const b = await collect(runOnCpu('grpo', tiny.cfg, tiny.params, CONFIG));
    expect(a.map((e) => `${e.type}@${e.step}`)).toEqual(b.map((e) => `${e.type}@${e.step}`));
    a.forEach((e: LoopEvent, i) => {
      const la = leaves({ ...e, seconds: 0 }), lb = leaves({ ...b[i], seconds: 0 });
      expect([...la.keys()].sort(), `event ${i}`).toEqual([...lb.keys()].sort());
      for (const [k, v] of la) {
        if (typeof v === 'number') expectClose(`event ${i} (${e.type}@${e.step})${k}`, [v], [lb.get(k) as number], TOL);
        else expect(v, `event ${i}${k}`).toEqual(lb.get(k));
      }
    });
    // the runs did move: the final parameters differ from the start
    const done = a[a.length - 1];
    expect(done.type === 'done' && done.params.some((x, i) => x !== tiny.params[i])).toBe(true);
  });
});

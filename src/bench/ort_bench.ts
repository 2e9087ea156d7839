// The sampling table of `npm run bench` measured side by side in headless Chromium on one adapter
// (issue "Rollouts at the speed of the hardware" §2): the built bench page (bench.html,
// src/bench/sampling_page.ts) runs our KV-cache decoder and onnxruntime-web's WebGPU and wasm
// backends on the with-past ONNX export of the same `small` policy, same prompts, greedy and
// temperature 1. Node only; figures, never test bounds.
import { withBuiltPage } from './browser';
import type { SamplingCase, SamplingPageResult } from './sampling_page';

export type OrtResult = SamplingPageResult;

export async function benchOrtSampling(cases: readonly SamplingCase[], maxNew: number, log: (s: string) => void): Promise<OrtResult> {
  return withBuiltPage('bench.html', 'bench.html', async (page) => {
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.waitForFunction(() => 'rlvrSamplingBench' in window, null, { timeout: 60_000 }).catch(() => {
      throw new Error(`the bench page did not load${errors.length ? `: ${errors.join('; ')}` : ''}`);
    });
    log(`sampling side by side in Chromium: ours, onnxruntime-web WebGPU and wasm; ${cases.map((c) => `B=${c.B} ${c.greedy ? 'greedy' : 'T=1'}`).join(', ')}; ${maxNew} new tokens`);
    return page.evaluate(([cs, n]) => (window as unknown as { rlvrSamplingBench: (c: SamplingCase[], n: number) => Promise<SamplingPageResult> }).rlvrSamplingBench(cs, n), [cases as SamplingCase[], maxNew] as const);
  }, { isolated: true });
}

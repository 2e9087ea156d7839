// The self-test panel's independent check in the built app (issue 29 §3): the launcher's base
// policy (the catalog's default, `small`) exported to ONNX in the main worker and run by
// onnxruntime-web, loaded there on demand, beside the lab's kernels on SwiftShader; the panel
// shows agreement within the stated tolerance. Run after `vite build` (npm run test:e2e builds).
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORT_TOLERANCE } from '../../src/selftest/ortcheck';
import { ARTIFACTS, closeLab, openLab, requireAdapter, shot, type Lab } from './harness';

describe('the ORT check (built app, headless Chromium)', () => {
  let lab: Lab, page: Page;
  const ortRequests: string[] = [];
  beforeAll(async () => {
    lab = await openLab('');
    page = lab.page;
    page.on('request', (r) => /ort|onnx/i.test(r.url()) && ortRequests.push(r.url()));
  });
  afterAll(() => closeLab(lab));

  it('runs the policy on onnxruntime-web and on the lab\'s kernels and shows them agreeing within the tolerance', async (ctx) => {
    requireAdapter(ctx, lab);
    // a first visit loads no onnxruntime-web: it comes with the check
    expect(ortRequests.filter((u) => /\.wasm$/.test(u)), 'the wasm binary before the check').toEqual([]);
    await page.getByTestId('ortcheck-run').click();
    const status = await page
      .waitForFunction(() => {
        const s = document.querySelector('[data-testid=ortcheck-status]')?.getAttribute('data-status');
        return s === 'done' || s === 'failed' ? s : false;
      }, null, { timeout: 240_000, polling: 200 })
      .then((h) => h.jsonValue());
    await shot(page, 'ortcheck');
    await page.locator('section.ortcheck').screenshot({ path: `${ARTIFACTS}/ortcheck-panel.png` });
    const error = status === 'failed' ? await page.getByTestId('ortcheck-error').textContent() : null;
    expect(status, `the check failed: ${error}`).toBe('done');
    const result = page.getByTestId('ortcheck-result');
    const verdict = (await page.getByTestId('ortcheck-verdict').textContent()) ?? '';
    const detail = await page.getByTestId('ortcheck-max-abs').getAttribute('title');
    expect(await result.getAttribute('data-ok'), `${verdict}\n${detail}`).toBe('true');
    expect(verdict).toMatch(/^pass Agrees: every logit within \|Δ\| ≤ 0\.001 \+ 0\.001·\|logit\|/);
    const maxAbs = Number(await result.getAttribute('data-max-abs'));
    // a real comparison: two float32 computations of the same model differ, though little
    expect(maxAbs).toBeGreaterThan(0);
    expect(maxAbs).toBeLessThanOrEqual(ORT_TOLERANCE.atol + ORT_TOLERANCE.rtol * 100);
    console.log(`ORT check: backend ${await result.getAttribute('data-backend')}; ${verdict}\n${detail}`);
    // onnxruntime-web's wasm binary was fetched for the check, by the worker
    expect(ortRequests.some((u) => /ort-wasm.*\.wasm$/.test(u)), ortRequests.join('\n')).toBe(true);
    expect(lab.errors).toEqual([]);
  });
});

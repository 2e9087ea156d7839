// rlvr-lab bench: our kernels, training step and sampler against TF.js's WebGPU backend on the
// same adapter, prompt prefill side by side, one GRPO step of the shipped small policy, the page's main thread while a run trains in headless Chromium (--skip-page
// skips it), and sampling against onnxruntime-web's WebGPU and wasm backends in Chromium (--skip-ort
// skips it). The table and the final JSON line go to stdout, progress to stderr.
import { parseArgs } from './args';
import { createNodeGpu } from '../gpu/node';
import { loadTfjsWebGpu } from '../bench/tfjs_env';
import { benchPlan } from '../bench/plan';
import { benchAttention, benchDecodeAttention, benchMatmul } from '../bench/kernel_bench';
import { benchSample, benchTrain } from '../bench/model_bench';
import { renderReport } from '../bench/report';
import { benchControlStep } from '../bench/control_step_bench';
import { benchPage } from '../bench/page_bench';
import { benchOrtSampling } from '../bench/ort_bench';
import { benchExplorer } from '../bench/explorer_bench';

export async function benchCommand(argv: string[]): Promise<void> {
  const f = parseArgs(argv, { quick: { type: 'boolean', default: false }, 'skip-page': { type: 'boolean', default: false }, 'skip-ort': { type: 'boolean', default: false } });
  const plan = benchPlan(f.quick);
  const t0 = performance.now();
  const log = (s: string) => process.stderr.write(`[bench ${((performance.now() - t0) / 1000).toFixed(1)}s] ${s}\n`);
  const gpu = await createNodeGpu();
  try {
    log(`adapter ${gpu.adapterName}; loading TF.js (WebGPU backend)`);
    const { tf } = await loadTfjsWebGpu(gpu.adapterName);
    const matmul = await benchMatmul(gpu, tf, plan, log);
    const attention = await benchAttention(gpu, plan, log);
    const decodeAttention = await benchDecodeAttention(gpu, plan, log);
    const train = await benchTrain(gpu, tf, plan, log);
    const sample = await benchSample(gpu, plan, log);
    const controlStep = await benchControlStep(gpu, plan, 'public/models/small', log);
    const page = f['skip-page'] ? null : await benchPage(log);
    // a failure in Chromium or onnxruntime-web costs its table only, not the measurements above
    let ortError: string | undefined;
    const ort = f['skip-ort'] ? null : await benchOrtSampling(plan.ort.cases, plan.ort.maxNew, log).catch((e: Error) => ((ortError = e.message), null));
    let explorerError: string | undefined;
    const explorer = f['skip-page'] ? null : await benchExplorer(log).catch((e: Error) => ((explorerError = e.message), null));
    log('done');
    process.stdout.write(renderReport({ adapter: gpu.adapterName, plan, matmul, attention, decodeAttention, train, sample, controlStep, page, ort, ...(ortError ? { ortError } : {}), explorer, ...(explorerError ? { explorerError } : {}) }));
  } finally {
    gpu.destroy();
  }
}

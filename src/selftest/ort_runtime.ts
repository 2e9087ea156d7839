// onnxruntime-web for the ORT check (ortcheck.ts), loaded only when the check runs: ortcheck.ts
// imports this module dynamically, so neither the page nor the GPU worker's own chunk carries
// ORT until a user asks for the check. Loaded as the bench page loads it (src/bench/sampling_page.ts):
// the wasm glue and binary as files of their own, found through env.wasm.wasmPaths.
import * as ort from 'onnxruntime-web/all';
import ortMjs from 'onnxruntime-web/ort-wasm-simd-threaded.jsep.mjs?url';
import ortWasm from 'onnxruntime-web/ort-wasm-simd-threaded.jsep.wasm?url';
import type { OrtBackend, OrtLogits } from './ortcheck';
import { errorText } from '../util/errors';

/**
 * Runs the exported model (int32 input_ids [B, T] -> logits [B, T, V]) once: on ORT's WebGPU
 * backend where it starts, else on its wasm backend; `fallback` says why WebGPU did not run.
 */
export async function runOrt(onnx: Uint8Array, ids: Int32Array, B: number, T: number): Promise<OrtLogits> {
  // a worker without cross-origin isolation has no SharedArrayBuffer: one wasm thread
  ort.env.wasm.numThreads = 1;
  // ORT's warnings (e.g. that shape ops run on the CPU) would read as the page's console errors
  ort.env.logLevel = 'error';
  ort.env.wasm.wasmPaths = { mjs: new URL(ortMjs, self.location.href), wasm: new URL(ortWasm, self.location.href) };
  const feeds = { input_ids: new ort.Tensor('int32', ids, [B, T]) };
  let fallback: string | null = null;
  for (const backend of ['webgpu', 'wasm'] as OrtBackend[]) {
    if (backend === 'webgpu' && !(globalThis as { navigator?: { gpu?: unknown } }).navigator?.gpu) {
      fallback = 'this context has no navigator.gpu';
      continue;
    }
    let session: ort.InferenceSession | null = null;
    try {
      session = await ort.InferenceSession.create(onnx, { executionProviders: [backend], logSeverityLevel: 3 });
      const out = await session.run(feeds);
      const logits = (await out.logits.getData()) as Float32Array;
      return { backend, logits: Float32Array.from(logits), fallback };
    } catch (e) {
      if (backend === 'wasm') throw new Error(`onnxruntime-web could not run the model${fallback ? ` (WebGPU: ${fallback})` : ''}: ${errorText(e)}`);
      fallback = errorText(e);
    } finally {
      await session?.release();
    }
  }
  throw new Error('unreachable: the wasm backend returns or throws');
}

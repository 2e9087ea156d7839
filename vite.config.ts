import { defineConfig } from 'vitest/config';
import react from '@vitejs/plugin-react';

// One config for the app build and the three test tiers (see README "Tests"). The sampling
// benchmark's page (bench.html: our decoder against onnxruntime-web) is built only in the `bench`
// mode (`vite build --mode bench`, npm run bench), into dist-bench/ beside the app it also
// measures, so dist/ ships the lab alone.
export default defineConfig(({ mode }) => ({
  plugins: [react()],
  server: { port: Number(process.env.PORT ?? 5173) },
  preview: {
    port: Number(process.env.PORT ?? 5173),
    // the sampling benchmark's page (src/bench/browser.ts): cross-origin isolated, so that
    // onnxruntime-web's wasm backend gets its worker threads
    headers: process.env.RLVR_PREVIEW_ISOLATED ? { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' } : {},
  },
  worker: { format: 'es' },
  build: {
    target: 'es2022',
    chunkSizeWarningLimit: 2000,
    ...(mode === 'bench' ? { outDir: 'dist-bench' /* BENCH_DIST in src/bench/browser.ts */, rollupOptions: { input: { main: 'index.html', bench: 'bench.html' } } } : {}),
  },
  test: {
    projects: [
      {
        extends: true,
        // CPU-mode training, checkpoint round trips and the fuzz tier take seconds to a minute on a
        // loaded 2-core machine (the limit is a hang guard, never a figure)
        test: { name: 'cpu', include: ['test/cpu/**/*.test.ts'], environment: 'node', testTimeout: 180_000 },
      },
      {
        extends: true,
        test: {
          name: 'gpu',
          include: ['test/gpu/**/*.test.ts'],
          environment: 'node',
          // SwiftShader is a CPU driver: one Dawn device per file, files one after another.
          fileParallelism: false,
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          environment: 'node',
          fileParallelism: false,
          testTimeout: 300_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
}));

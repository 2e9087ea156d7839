#!/usr/bin/env node
// `npm start`: build the app if dist/ is missing or older than its sources, then serve dist/
// with `vite preview` on http://localhost:$PORT (default 5173). Uses only the project's own
// dependencies, so it works right after `npm install`.
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, preview } from 'vite';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SOURCES = ['src', 'shaders', 'public', 'index.html', 'package.json', 'vite.config.ts'];
/** Written last by every build; missing after a failed one. */
const BUILD_STAMP = path.join(ROOT, 'dist', 'index.html');

function newestMtime(p) {
  if (!existsSync(p)) return 0;
  const st = statSync(p);
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = st.mtimeMs;
  for (const entry of readdirSync(p)) newest = Math.max(newest, newestMtime(path.join(p, entry)));
  return newest;
}

function buildReason() {
  if (!existsSync(BUILD_STAMP)) return 'dist/ has no build';
  const built = statSync(BUILD_STAMP).mtimeMs;
  const stale = SOURCES.filter((s) => newestMtime(path.join(ROOT, s)) > built);
  return stale.length ? `changed since the last build: ${stale.join(', ')}` : null;
}

function parsePort(raw) {
  const port = Number(raw ?? 5173);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    console.error(`rlvr-lab: PORT must be a whole number from 1 to 65535, got ${JSON.stringify(raw)}`);
    process.exit(2);
  }
  return port;
}

async function main() {
  const port = parsePort(process.env.PORT);
  const reason = buildReason();
  if (reason) {
    console.log(`rlvr-lab: building the app (${reason})…`);
    await build({ root: ROOT, logLevel: 'warn' });
  } else {
    console.log('rlvr-lab: dist/ is up to date, skipping the build');
  }
  const server = await preview({ root: ROOT, logLevel: 'warn', preview: { port, host: 'localhost', strictPort: true, open: false } });
  const url = server.resolvedUrls?.local[0] ?? `http://localhost:${port}/`;
  console.log(`\n  RLVR Lab is running at  ${url}\n  Open it in Chrome or Edge (WebGPU). Press Ctrl+C to stop.\n`);
  const stop = () => server.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((e) => {
  console.error(`rlvr-lab: ${e instanceof Error ? e.message : e}`);
  process.exit(1);
});

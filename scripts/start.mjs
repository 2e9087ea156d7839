#!/usr/bin/env node
// `npm start`: build the app if dist/ is missing or older than its sources, then serve dist/
// with `vite preview` on http://localhost:$PORT (default 5173). Uses only the project's own
// dependencies, so it works right after `npm install`. Every response carries the page's
// Content-Security-Policy as a header too (only a header can forbid framing), nosniff, no
// referrer, cross-origin isolation (COOP/COEP) and a Permissions-Policy. An address too long for
// Node's 16 KB header limit gets a page that says why, not a bare 431.
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
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

const META_CSP = /<meta\s+http-equiv="Content-Security-Policy"\s+content="([^"]+)"/i;

/**
 * The headers every response carries. The policy is the one in the page's meta tag, read from
 * the built index.html so the two cannot drift apart (the worker, onnxruntime's wasm and blob:
 * images are allowed there), plus `frame-ancestors 'none'`, which a meta tag cannot set.
 */
export function securityHeaders(indexHtml) {
  const meta = META_CSP.exec(indexHtml);
  if (!meta) throw new Error('the built index.html has no Content-Security-Policy meta tag to send as a header');
  return {
    'Content-Security-Policy': `${meta[1]}; frame-ancestors 'none'`,
    'X-Content-Type-Options': 'nosniff',
    // a link out of the lab carries no address (a lesson link's settings stay with its reader)
    'Referrer-Policy': 'no-referrer',
    // cross-origin isolated: no other window keeps a handle on the page, and the page loads only
    // what its own origin serves (the CSP already says 'self'), which SharedArrayBuffer and so
    // onnxruntime-web's threaded wasm need
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Embedder-Policy': 'require-corp',
    'Cross-Origin-Resource-Policy': 'same-origin',
    'Permissions-Policy': PERMISSIONS_POLICY,
  };
}

/**
 * Browser features the lab never uses, off for the page and anything it could embed; the screen
 * wake lock (a long run keeps the screen on, src/state/wakeLock.ts) stays the page's own.
 */
export const PERMISSIONS_POLICY = [
  ...['accelerometer', 'ambient-light-sensor', 'autoplay', 'bluetooth', 'camera', 'display-capture', 'geolocation', 'gyroscope', 'hid', 'magnetometer', 'microphone', 'midi', 'payment', 'publickey-credentials-get', 'serial', 'usb', 'xr-spatial-tracking'].map((f) => `${f}=()`),
  'screen-wake-lock=(self)',
].join(', ');

/** A plugin that sets the headers before any other middleware answers, 404s included. */
function securityHeadersPlugin(headers) {
  const setHeaders = (_req, res, next) => {
    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    next();
  };
  return { name: 'rlvr-security-headers', configurePreviewServer: (server) => void server.middlewares.use(setHeaders) };
}

/** Node's limit on a request's line and headers together (16 KB): a longer address never reaches vite. */
const NODE_HEADER_LIMIT = 16 * 1024;

/**
 * The page a browser shows for an address over Node's limit, where Node itself would answer a
 * bare 431 and the lab would never load. Links carry settings only (each at most 2,000
 * characters, src/state/url.ts); an uploaded corpus is named in them (`corpus=upload:…`).
 */
export const LONG_ADDRESS_PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>RLVR Lab: this address is too long</title></head>
<body>
<h1>This address is too long for the lab</h1>
<p>The lab's server reads addresses of up to about ${NODE_HEADER_LIMIT / 1024} KB, and this one is longer, so the lab was not loaded.
A link to the lab carries its settings only, each at most 2,000 characters: an uploaded corpus or checkpoint stays in the
browser it was uploaded to, and a link names it (<code>corpus=upload:…</code>) rather than holding it.</p>
<p><a href="/">Open the lab without these settings</a>, then upload the corpus or type the value there.</p>
</body>
</html>
`;

/** What vite answers to the other requests Node's parser refuses (its own handler, replaced below). */
const PARSER_REFUSALS = { HPE_CHUNK_EXTENSIONS_OVERFLOW: [413, 'Payload Too Large'], ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request Timeout'] };

/**
 * Answers the requests Node's parser refuses before any middleware sees them, in place of vite's
 * bare status lines: an address over the header limit gets LONG_ADDRESS_PAGE (414 when the
 * request line alone is over it, else 431) with the lab's headers; the rest as vite answers them.
 */
export function answerClientErrors(httpServer, headers) {
  httpServer.removeAllListeners('clientError');
  httpServer.on('clientError', (err, socket) => {
    if (err.code === 'ECONNRESET' || !socket.writable) return void socket.destroy();
    const overflow = err.code === 'HPE_HEADER_OVERFLOW';
    const raw = err.rawPacket ? String(err.rawPacket) : '';
    const uriTooLong = overflow && !raw.slice(0, NODE_HEADER_LIMIT).includes('\r\n');
    const [status, reason] = overflow ? (uriTooLong ? [414, 'URI Too Long'] : [431, 'Request Header Fields Too Large']) : (PARSER_REFUSALS[err.code] ?? [400, 'Bad Request']);
    const body = overflow ? LONG_ADDRESS_PAGE : '';
    const lines = [
      `HTTP/1.1 ${status} ${reason}`,
      ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
      'Content-Type: text/html; charset=utf-8',
      `Content-Length: ${Buffer.byteLength(body)}`,
      'Connection: close',
    ];
    socket.end(`${lines.join('\r\n')}\r\n\r\n${body}`);
  });
}

/** Serves `root`/dist with `vite preview`; `configFile: false` skips root's vite.config (tests). */
export async function serve({ root, port, configFile }) {
  const headers = securityHeaders(readFileSync(path.join(root, 'dist', 'index.html'), 'utf8'));
  const server = await preview({
    root,
    configFile,
    logLevel: 'warn',
    plugins: [securityHeadersPlugin(headers)],
    preview: { port, host: 'localhost', strictPort: true, open: false },
  });
  if (server.httpServer) answerClientErrors(server.httpServer, headers);
  return server;
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
  const server = await serve({ root: ROOT, port });
  const url = server.resolvedUrls?.local[0] ?? `http://localhost:${port}/`;
  console.log(`\n  RLVR Lab is running at  ${url}\n  Open it in Chrome or Edge (WebGPU). Press Ctrl+C to stop.\n`);
  const stop = () => server.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

// Imported by the tests for `serve`; run as a script by `npm start` (import.meta.url is the
// real path, argv[1] the path as typed, so compare real paths).
if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) {
  main().catch((e) => {
    console.error(`rlvr-lab: ${e instanceof Error ? e.message : e}`);
    process.exit(1);
  });
}

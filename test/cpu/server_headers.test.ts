// `npm start`'s server (scripts/start.mjs) against a tiny dist/ in a temporary folder: every
// response carries the page's CSP as a header (plus frame-ancestors 'none'), nosniff, no
// referrer, COOP/COEP and a Permissions-Policy, nothing outside dist/ can be read, and an address
// over Node's 16 KB limit gets a page that says why (not a bare 431).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PreviewServer } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serve } from '../../scripts/start.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SECRET = 'outside-dist-secret-5f3a';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer().listen(0, 'localhost', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
    probe.on('error', reject);
  });
}

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A GET with the path sent exactly as written (fetch would normalise `..` away). */
function get(url: URL, rawPath: string, extra: Record<string, string> = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname.replace(/^\[|\]$/g, ''), port: url.port, path: rawPath, headers: { accept: 'text/html,*/*', ...extra } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

const metaCsp = (html: string) => /http-equiv="Content-Security-Policy"\s+content="([^"]+)"/.exec(html)?.[1];

describe('npm start serves like a careful static host', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rlvr-serve-'));
  const indexHtml = readFileSync(join(ROOT, 'index.html'), 'utf8');
  let server: PreviewServer;
  let base: URL;

  beforeAll(async () => {
    mkdirSync(join(dir, 'dist', 'assets'), { recursive: true });
    writeFileSync(join(dir, 'dist', 'index.html'), indexHtml);
    writeFileSync(join(dir, 'dist', 'assets', 'app.js'), 'export {};\n');
    writeFileSync(join(dir, 'secret.txt'), SECRET);
    writeFileSync(join(dir, 'package.json'), `{"secret":"${SECRET}"}`);
    server = await serve({ root: dir, port: await freePort(), configFile: false });
    base = new URL(server.resolvedUrls?.local[0] ?? '');
  });

  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('sends the meta tag\'s CSP as a header, plus frame-ancestors \'none\' and nosniff, on every response', async () => {
    const csp = metaCsp(indexHtml);
    expect(csp).toContain("script-src 'self' 'wasm-unsafe-eval'");
    for (const path of ['/', '/index.html', '/assets/app.js', '/assets/missing.js', '/no/such/page']) {
      const r = await get(base, path);
      expect(r.headers['content-security-policy'], path).toBe(`${csp}; frame-ancestors 'none'`);
      expect(r.headers['x-content-type-options'], path).toBe('nosniff');
    }
    expect((await get(base, '/assets/app.js')).body).toBe('export {};\n');
  });

  it('sends no referrer, cross-origin isolation and a Permissions-Policy on every response, the CSP unchanged', async () => {
    for (const path of ['/', '/assets/app.js', '/no/such/page']) {
      const r = await get(base, path);
      expect(r.headers['referrer-policy'], path).toBe('no-referrer');
      expect(r.headers['cross-origin-opener-policy'], path).toBe('same-origin');
      expect(r.headers['cross-origin-embedder-policy'], path).toBe('require-corp');
      expect(r.headers['cross-origin-resource-policy'], path).toBe('same-origin');
      const pp = String(r.headers['permissions-policy']);
      for (const f of ['camera=()', 'microphone=()', 'geolocation=()', 'usb=()', 'screen-wake-lock=(self)']) expect(pp, path).toContain(f);
      expect(r.headers['content-security-policy'], path).toBe(`${metaCsp(indexHtml)}; frame-ancestors 'none'`);
    }
  });

  it('answers an address over Node\'s 16 KB limit (a 100 KB target=, a 20 KB corpus=) with a page that says why, the headers kept', async () => {
    for (const [path, status] of [[`/?loop=ttsp&target=${'1%2B'.repeat(25_000)}`, 414], [`/?loop=spice&corpus=${'a'.repeat(20_000)}`, 414]] as const) {
      const r = await get(base, path);
      expect(r.status, path.slice(0, 30)).toBe(status);
      expect(r.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(r.body).toContain('This address is too long for the lab');
      expect(r.body).toContain('<a href="/">Open the lab without these settings</a>');
      expect(r.headers['content-security-policy']).toBe(`${metaCsp(indexHtml)}; frame-ancestors 'none'`);
      expect(r.headers['referrer-policy']).toBe('no-referrer');
    }
    // a short address past the page's own cap per parameter still reaches the page, which warns
    expect((await get(base, `/?loop=ttsp&target=${'1'.repeat(5000)}`)).status).toBe(200);
  });

  it('answers a header block over the limit with 431 and the same page', async () => {
    const r = await get(base, '/', { 'x-filler': 'f'.repeat(20_000) });
    expect(r.status).toBe(431);
    expect(r.body).toContain('This address is too long for the lab');
  });

  it('answers a request the parser cannot read with a bare 400, as vite does', async () => {
    const reply = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(base.port), base.hostname.replace(/^\[|\]$/g, ''), () => socket.write('NOT A REQUEST\r\n\r\n'));
      let text = '';
      socket.on('data', (d) => (text += String(d)));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    expect(reply.startsWith('HTTP/1.1 400 Bad Request\r\n')).toBe(true);
    expect(reply).not.toContain('too long');
  });

  it('refuses every path that leads out of dist/', async () => {
    const attempts = [
      '/../secret.txt', '/%2e%2e/secret.txt', '/..%2fsecret.txt', '/%2e%2e%2fsecret.txt', '/assets/../../secret.txt',
      '/assets/%2e%2e/%2e%2e/secret.txt', '//../secret.txt', '/..%5csecret.txt', '/..\\secret.txt', '/../package.json',
      `/@fs${join(dir, 'secret.txt')}`, `/${join(dir, 'secret.txt')}`,
    ];
    for (const path of attempts) {
      const r = await get(base, path);
      expect(r.body, path).not.toContain(SECRET);
    }
  });
});

// Base policies as the worker fetches them: public/models/<name>/ holds model.safetensors and
// config.json (Hugging Face GPT-2 layout); public/models/index.json lists the folders.
import { parseCheckpoint } from '../model/checkpoint';
import type { BasePolicy } from './runs';

const NAME = /^[a-z0-9][a-z0-9_-]*$/i;

async function fetchOk(url: URL, what: string): Promise<Response> {
  const res = await fetch(url);
  // the dev and preview servers answer a missing file with the app's index.html
  const html = (res.headers.get('content-type') ?? '').includes('text/html');
  if (!res.ok || html) throw new Error(`${what}: ${url.pathname} is missing (${res.ok ? 'the server sent a web page' : `HTTP ${res.status}`})`);
  return res;
}

/** Fetches and parses one base policy; `base` is the app's base URL. */
export async function fetchPolicy(name: string, base: URL): Promise<BasePolicy> {
  if (!NAME.test(name)) throw new Error(`base policy "${name}": names are letters, digits, - and _`);
  const dir = new URL(`models/${name}/`, base);
  const what = `base policy "${name}"`;
  const [st, cfg] = await Promise.all([fetchOk(new URL('model.safetensors', dir), what), fetchOk(new URL('config.json', dir), what)]);
  const ckpt = parseCheckpoint(new Uint8Array(await st.arrayBuffer()), await cfg.text());
  return { cfg: ckpt.cfg, params: ckpt.params };
}

/** Each policy is fetched once per worker; every run gets its own copy of the parameters. */
export function cachedPolicyLoader(base: URL): (name: string) => Promise<BasePolicy> {
  const cache = new Map<string, Promise<BasePolicy>>();
  return async (name) => {
    let p = cache.get(name);
    if (!p) {
      p = fetchPolicy(name, base);
      cache.set(name, p);
      p.catch(() => cache.delete(name));
    }
    const { cfg, params } = await p;
    return { cfg, params: params.slice() };
  };
}

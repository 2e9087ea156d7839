// Base policies as the worker fetches them: public/models/<name>/ holds model.safetensors and
// config.json (Hugging Face GPT-2 layout); public/models/index.json lists the folders. Checkpoints
// the user uploads are registered under `upload:<file>` and served before the shipped ones.
import { firstNonFinite, parseCheckpoint } from '../../model/checkpoint';
import { VOCAB_SIZE } from '../../world/tokenizer';
import type { BasePolicy } from './runs';

const NAME = /^[a-z0-9][a-z0-9_-]*$/i;
/** Uploaded policies' names; the prefix keeps them from shadowing a shipped policy. */
const UPLOAD_NAME = /^upload:[A-Za-z0-9_.-]{1,80}$/;

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

/** Parses an uploaded checkpoint as a base policy: whole, F32-readable, and on the lab's tokenizer. */
export function parseUploadedPolicy(name: string, safetensors: Uint8Array, configJson: string): BasePolicy {
  if (!UPLOAD_NAME.test(name)) throw new Error(`uploaded policy "${name}": names are upload: followed by letters, digits, ., - and _`);
  const ckpt = parseCheckpoint(safetensors, configJson);
  if (ckpt.cfg.vocabSize !== VOCAB_SIZE) throw new Error(`uploaded policy "${name}": vocab_size = ${ckpt.cfg.vocabSize}, but the lab's tokenizer has ${VOCAB_SIZE} tokens`);
  const bad = firstNonFinite(ckpt.params, ckpt.table);
  if (bad) throw new Error(`uploaded policy "${name}": tensor ${bad.tensor} holds ${bad.value} at index ${bad.index}; a base policy's weights must all be finite numbers`);
  return { cfg: ckpt.cfg, params: ckpt.params };
}

/**
 * The worker's base policies: uploaded ones first, then the shipped ones, each fetched once per
 * worker; every run gets its own copy of the parameters.
 */
export class PolicyLoader {
  private readonly fetched = new Map<string, Promise<BasePolicy>>();
  private readonly uploaded = new Map<string, BasePolicy>();

  constructor(private readonly base: URL) {}

  /** Checks an uploaded checkpoint and offers it as `name` (throws with the problem). */
  register(name: string, safetensors: Uint8Array, configJson: string): void {
    this.uploaded.set(name, parseUploadedPolicy(name, safetensors, configJson));
  }

  async load(name: string): Promise<BasePolicy> {
    const up = this.uploaded.get(name);
    if (up) return { cfg: up.cfg, params: up.params.slice() };
    if (UPLOAD_NAME.test(name)) throw new Error(`uploaded policy "${name}" is not in this worker: upload the checkpoint again`);
    let p = this.fetched.get(name);
    if (!p) {
      p = fetchPolicy(name, this.base);
      this.fetched.set(name, p);
      p.catch(() => this.fetched.delete(name));
    }
    const { cfg, params } = await p;
    return { cfg, params: params.slice() };
  }
}

/** A loader function over a PolicyLoader of its own (for a worker that takes no uploads). */
export function cachedPolicyLoader(base: URL): (name: string) => Promise<BasePolicy> {
  const loader = new PolicyLoader(base);
  return (name) => loader.load(name);
}

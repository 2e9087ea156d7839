// The base policies the launcher offers: public/models/index.json, written by hand for `tiny`
// and updated by the pretraining script. Format:
//   { "default": "small", "policies": [ { "name": "small", "description": "...", "params": 112000 } ] }
// Each name is a folder public/models/<name>/ with model.safetensors and config.json.
import * as v from 'valibot';
import { parseOr } from '../util/valibot';

export interface PolicyInfo {
  name: string;
  description: string;
  /** parameter count, when the manifest gives it */
  params: number | null;
}

export interface PolicyCatalog {
  defaultPolicy: string | null;
  policies: PolicyInfo[];
}

const MAX_POLICIES = 1_000;
const Entry = v.strictObject({
  name: v.pipe(v.string(), v.maxLength(200), v.regex(/^[a-z0-9][a-z0-9_-]*$/i, 'a policy name is a folder name (letters, digits, - and _)')),
  description: v.optional(v.pipe(v.string(), v.maxLength(4_000))),
  params: v.optional(v.pipe(v.number(), v.safeInteger(), v.minValue(0))),
});
const CatalogSchema = v.pipe(
  v.strictObject({ default: v.optional(v.string()), policies: v.pipe(v.array(Entry), v.maxLength(MAX_POLICIES)) }),
  v.check((c) => c.default === undefined || c.policies.some((p) => p.name === c.default), (i) => {
    const c = i.input as { policies: { name: string }[] };
    return `"default" must be one of the listed policies (${c.policies.map((p) => p.name).join(', ')})`;
  }),
);

/** Checks the manifest's shape; every problem names the entry and what is wrong. */
export function parseCatalog(raw: unknown, what = 'models/index.json'): PolicyCatalog {
  const c = parseOr(CatalogSchema, raw, (line) => {
    throw new Error(`${what}: ${line}`);
  });
  const policies = c.policies.map((p): PolicyInfo => ({ name: p.name, description: p.description ?? '', params: p.params ?? null }));
  return { defaultPolicy: c.default ?? policies[0]?.name ?? null, policies };
}

/** Fetches the manifest relative to the app's base URL. */
export async function fetchCatalog(base: URL): Promise<PolicyCatalog> {
  const url = new URL('models/index.json', base);
  const res = await fetch(url, { cache: 'no-cache' });
  if (!res.ok || !(res.headers.get('content-type') ?? '').includes('json')) throw new Error(`${url.pathname} is missing (HTTP ${res.status})`);
  return parseCatalog(await res.json());
}

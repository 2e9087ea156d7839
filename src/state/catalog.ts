// The base policies the launcher offers: public/models/index.json, written by hand for `tiny`
// and updated by the pretraining script. Format:
//   { "default": "small", "policies": [ { "name": "small", "description": "...", "params": 112000 } ] }
// Each name is a folder public/models/<name>/ with model.safetensors and config.json.

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

const NAME = /^[a-z0-9][a-z0-9_-]*$/i;

/** Checks the manifest's shape; every problem names the entry and what is wrong. */
export function parseCatalog(raw: unknown, what = 'models/index.json'): PolicyCatalog {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new Error(`${what}: expected an object with "policies"`);
  const obj = raw as Record<string, unknown>;
  if (!Array.isArray(obj.policies)) throw new Error(`${what}: "policies" must be an array`);
  const policies = obj.policies.map((p, i): PolicyInfo => {
    const e = p as Record<string, unknown>;
    if (typeof e?.name !== 'string' || !NAME.test(e.name)) throw new Error(`${what}: policies[${i}].name must be a folder name (letters, digits, - and _)`);
    if (e.description !== undefined && typeof e.description !== 'string') throw new Error(`${what}: policies[${i}].description must be a string`);
    if (e.params !== undefined && typeof e.params !== 'number') throw new Error(`${what}: policies[${i}].params must be a number`);
    return { name: e.name, description: (e.description as string | undefined) ?? '', params: (e.params as number | undefined) ?? null };
  });
  const names = policies.map((p) => p.name);
  if (obj.default !== undefined && (typeof obj.default !== 'string' || !names.includes(obj.default))) {
    throw new Error(`${what}: "default" must be one of the listed policies (${names.join(', ')})`);
  }
  return { defaultPolicy: (obj.default as string | undefined) ?? names[0] ?? null, policies };
}

/** Fetches the manifest relative to the app's base URL. */
export async function fetchCatalog(base: URL): Promise<PolicyCatalog> {
  const url = new URL('models/index.json', base);
  const res = await fetch(url, { cache: 'no-cache' });
  if (!res.ok || !(res.headers.get('content-type') ?? '').includes('json')) throw new Error(`${url.pathname} is missing (HTTP ${res.status})`);
  return parseCatalog(await res.json());
}

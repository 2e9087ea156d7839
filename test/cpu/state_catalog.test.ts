// The launcher's policy list (public/models/index.json) read through its schema: the shipped file
// reads, and a bad one is refused naming the field.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseCatalog } from '../../src/state/catalog';

describe('policy catalog', () => {
  it('reads the shipped list', () => {
    const c = parseCatalog(JSON.parse(readFileSync('public/models/index.json', 'utf8')));
    expect(c.defaultPolicy).toBe('small');
    expect(c.policies.map((p) => p.name)).toEqual(['tiny', 'small']);
    expect(c.policies[0].params).toBeGreaterThan(0);
    expect(parseCatalog({ policies: [{ name: 'a' }] })).toEqual({ defaultPolicy: 'a', policies: [{ name: 'a', description: '', params: null }] });
  });

  it.each([
    [[], /^models\/index\.json: policies: missing$/],
    [{ policies: [{ name: '../x' }] }, /^models\/index\.json: policies\[0\]\.name: a policy name is a folder name/],
    [{ policies: [{ name: 'a', params: 'many' }] }, /^models\/index\.json: policies\[0\]\.params: expected number, got "many"$/],
    [{ policies: [{ name: 'a', url: 'x' }] }, /^models\/index\.json: policies\[0\]\.url: unknown field$/],
    [{ default: 'b', policies: [{ name: 'a' }] }, /"default" must be one of the listed policies \(a\)/],
  ])('refuses %j, saying where', (raw, message) => {
    expect(() => parseCatalog(raw)).toThrow(message);
  });
});

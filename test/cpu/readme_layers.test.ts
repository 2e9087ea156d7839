// The README's layer table ("What is here") against the folders: every folder of src/ (and the
// subfolders of src/lab, src/state and src/engines) is named in its "where" column, and every
// path that column names exists. A folder added or moved without its row fails here.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** The backticked paths of the layer table's "where" column. */
function tablePaths(readme: string): string[] {
  const start = readme.indexOf('\n## What is here');
  if (start < 0) throw new Error('README.md has no "## What is here" section');
  const lines = readme.slice(start).split('\n').slice(1);
  const rows = lines.slice(lines.findIndex((l) => l.startsWith('| layer |')));
  const table = rows.slice(0, rows.findIndex((l) => !l.startsWith('|')));
  if (table.length < 3) throw new Error('README.md\'s "What is here" has no layer table');
  return table.slice(2).flatMap((row) => {
    const where = row.split(' | ')[1] ?? '';
    return [...where.matchAll(/`([^`]+)`/g)].map((m) => m[1]);
  });
}

const dirs = (rel: string) => readdirSync(path.join(ROOT, rel)).filter((n) => statSync(path.join(ROOT, rel, n)).isDirectory()).map((n) => `${rel}/${n}`);

/** The folders the table must name. */
function folders(): string[] {
  return [...dirs('src'), ...dirs('src/lab'), ...dirs('src/state'), ...dirs('src/engines')];
}

/** Whether `p` (a path, a folder with a slash, or a glob such as `src/gpu/ops/*.ts`) names something that exists. */
function exists(p: string): boolean {
  if (!p.includes('*')) return existsSync(path.join(ROOT, p));
  const dir = p.slice(0, p.lastIndexOf('/', p.indexOf('*')));
  const pattern = new RegExp(`^${p.slice(dir.length + 1).replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}$`);
  return existsSync(path.join(ROOT, dir)) && readdirSync(path.join(ROOT, dir)).some((n) => pattern.test(n));
}

/** Whether a table path names `folder`: the folder itself or something inside it. */
const names = (p: string, folder: string) => p === folder || p.startsWith(`${folder}/`);

describe("README's layer table", () => {
  const paths = tablePaths(readFileSync(path.join(ROOT, 'README.md'), 'utf8'));

  it('reads the table', () => {
    expect(paths).toContain('src/model/');
    expect(exists('src/gpu/ops/*.ts')).toBe(true);
    expect(exists('src/gpu/ops/*.nope')).toBe(false);
    expect(names('src/lab/page/', 'src/lab/page')).toBe(true);
    expect(names('src/lab/pages/', 'src/lab/page')).toBe(false);
  });

  it('names every folder of src/, src/lab, src/state and src/engines', () => {
    const missing = folders().filter((f) => !paths.some((p) => names(p, f)));
    expect(missing, `folders without a row in README.md's layer table: ${missing.join(', ')}`).toEqual([]);
  });

  it('names only paths that exist', () => {
    const gone = paths.filter((p) => !exists(p));
    expect(gone, `README.md's layer table names paths that do not exist: ${gone.join(', ')}`).toEqual([]);
  });
});

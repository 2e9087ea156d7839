// The loop shape (DESIGN.md "loops", README "Loops"): a loop is its folder under src/loops/ and one
// line of src/loops/registry.ts; nothing else in src/ names a loop. This reads every source file
// outside src/loops/ with TypeScript's parser and fails naming file:line for each place that
// names a loop of the registry: a string literal equal to its name (`'ttsp'`, `loop="svs"`), a key
// or property of that name (`{ svs: … }`, `plan.grpo`), or an import of a path under
// src/loops/<loop>/. Comments and prose inside longer strings are not names.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { LOOP_NAMES } from '../../src/loops/registry';

const SRC = new URL('../../src/', import.meta.url).pathname;

/**
 * Uses of a loop's name that are not the loop, each with the reason. `file` is relative to src/,
 * `line` matches the source line's text.
 */
const ALLOWED: readonly { file: string; line: RegExp; why: string }[] = [
  {
    file: 'rl/config.ts', line: /^\s*(grpo|svs|spice|opensir|datpo|ttsp): \{/,
    why: 'RL_CORE_PRESETS: the RL core\'s presets are named after the paper whose optimiser settings they hold (a loop lists the ones it offers in its spec\'s rlPresets); the RL layer sits below the loops and knows none of them',
  },
  {
    file: 'export/recipe_map.ts', line: /seq_mean_token_mean: 'grpo'/,
    why: 'TRL_LOSS: TRL\'s GRPOConfig.loss_type value "grpo", a framework option, not the lab\'s loop',
  },
  {
    file: 'export/recipe_map.ts', line: /'algorithm\.adv_estimator', \{ set: 'grpo' \}/,
    why: 'veRL\'s algorithm.adv_estimator value "grpo", a framework option, not the lab\'s loop',
  },
];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(p);
    return /\.(ts|tsx)$/.test(e.name) && !e.name.endsWith('.d.ts') ? [p] : [];
  });
}

/** A name as written in a key or property: an identifier or a quoted key. */
function keyText(name: ts.PropertyName | ts.MemberName): string | null {
  return ts.isIdentifier(name) || ts.isPrivateIdentifier(name) || ts.isStringLiteral(name) ? name.text : null;
}

/** Every place in `file` (text `text`) that names a loop, as `what` and the node it is at. */
function loopNames(path: string, text: string, loops: readonly string[]): { at: number; what: string }[] {
  const sf = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, path.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const names = new Set(loops);
  const folder = new RegExp(`(^|/)loops/(${loops.join('|')})(/|$)`);
  const found: { at: number; what: string }[] = [];
  const isKey = (node: ts.Node) => 'name' in node.parent && (node.parent as { name?: ts.Node }).name === node;
  const visit = (node: ts.Node): void => {
    if ((ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) && names.has(node.text) && !isKey(node)) {
      found.push({ at: node.getStart(sf), what: `the string '${node.text}'` });
    } else if ((ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) && folder.test(node.text)
      && (ts.isImportDeclaration(node.parent) || ts.isExportDeclaration(node.parent) || ts.isCallExpression(node.parent) || ts.isExternalModuleReference(node.parent) || ts.isLiteralTypeNode(node.parent))) {
      found.push({ at: node.getStart(sf), what: `an import of ${node.text}` });
    } else if ((ts.isPropertyAssignment(node) || ts.isPropertySignature(node) || ts.isShorthandPropertyAssignment(node) || ts.isMethodDeclaration(node) || ts.isPropertyDeclaration(node)) && names.has(keyText(node.name) ?? '')) {
      found.push({ at: node.name.getStart(sf), what: `the key ${keyText(node.name)}` });
    } else if (ts.isPropertyAccessExpression(node) && names.has(keyText(node.name) ?? '')) {
      found.push({ at: node.name.getStart(sf), what: `the property .${keyText(node.name)}` });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

describe('the loop shape', () => {
  it('finds each kind of name it looks for (so a clean pass means something)', () => {
    const src = [
      "import { SPICE } from '../loops/spice/index';",
      "export { x } from './loops/ttsp';",
      "const m = await import('../../loops/datpo/tree');",
      "const a = { loop: 'grpo', svs: 1, 'opensir': 2 };",
      'const b = `spice`; const c = plan.grpo.steps;',
      'const d = <X loop="ttsp" />;',
      "// 'grpo' in a comment, and 'the grpo run' or 'ttsp-targets' in prose are not names",
      "const e = 'the grpo run'; const f = 'ttsp-targets'; const g = 'loops/registry';",
    ].join('\n');
    const hits = loopNames('x.tsx', src, ['grpo', 'svs', 'spice', 'opensir', 'datpo', 'ttsp']);
    expect(hits.map((h) => h.what)).toEqual([
      'an import of ../loops/spice/index', 'an import of ./loops/ttsp', 'an import of ../../loops/datpo/tree',
      "the string 'grpo'", 'the key svs', 'the key opensir', "the string 'spice'", 'the property .grpo', "the string 'ttsp'",
    ]);
  });

  it('nothing in src/ outside src/loops/ names a loop (only the registry does)', () => {
    expect(LOOP_NAMES.length).toBeGreaterThan(1);
    const bad: string[] = [];
    const allowedUsed = new Set<number>();
    for (const path of sourceFiles(SRC)) {
      const file = relative(SRC, path);
      if (file.startsWith('loops/')) continue;
      const text = readFileSync(path, 'utf8');
      const lines = text.split('\n');
      for (const hit of loopNames(path, text, LOOP_NAMES)) {
        const line = text.slice(0, hit.at).split('\n').length;
        const allow = ALLOWED.findIndex((a) => a.file === file && a.line.test(lines[line - 1]));
        if (allow >= 0) allowedUsed.add(allow);
        else bad.push(`src/${file}:${line}: ${hit.what}`);
      }
    }
    expect(bad, `a loop is named outside src/loops/ (move it into the loop's folder behind a field of its definition, or read the registry):\n${bad.join('\n')}`).toEqual([]);
    // an allowance nothing needs any more is removed, so the list stays what it says
    expect(ALLOWED.filter((_, i) => !allowedUsed.has(i)).map((a) => `${a.file} ${String(a.line)}`)).toEqual([]);
  });
});

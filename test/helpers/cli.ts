// `rlvr-lab` in-process: main() with its output captured, for command-level tests.
import { expect, vi } from 'vitest';
import { main } from '../../src/cli/main';

export interface CliOutcome {
  code: number;
  stderr: string;
  stdout: string;
}

/** Runs the command line `argv` through main(), capturing stderr and stdout. */
export async function cli(...argv: string[]): Promise<CliOutcome> {
  let stderr = '';
  let stdout = '';
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => ((stderr += String(chunk)), true));
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((stdout += String(chunk)), true));
  try {
    return { code: await main(argv), stderr, stdout };
  } finally {
    err.mockRestore();
    out.mockRestore();
  }
}

/** A user mistake: exit code 2 and one line on stderr holding every part (text, or a pattern). */
export function expectUserError(r: { code: number; stderr: string }, ...parts: (string | RegExp)[]): void {
  expect(r.code, r.stderr).toBe(2);
  expect(r.stderr.trimEnd().split('\n'), r.stderr).toHaveLength(1);
  for (const p of parts) typeof p === 'string' ? expect(r.stderr).toContain(p) : expect(r.stderr).toMatch(p);
}

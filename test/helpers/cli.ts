// `rlvr-lab` in-process: main() with its output captured, for command-level tests.
import { vi } from 'vitest';
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

#!/usr/bin/env node
// The rlvr-lab command runs the TypeScript sources directly through tsx: no build step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));

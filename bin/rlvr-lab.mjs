#!/usr/bin/env node
// The rlvr-lab command runs the TypeScript sources directly through tsx: no build step.
//
// Through `npx rlvr-lab` or `npm run` (the README's commands) this process is npm's grandchild,
// under `sh -c`: a SIGTERM to npx (timeout, a process manager) ends npm and the shell, the
// signal never reaches this process, and it would be re-parented and train on to its last step.
// So a command npm started watches its parent: when that shell is gone, the command is sent
// SIGTERM itself, which a run answers by stopping after its step and saving (as Ctrl-C, SIGTERM
// and SIGHUP sent to it directly do), and it exits with the run's own code.
import { register } from 'tsx/esm/api';

const POLL_MS = 500;

function stopWhenLauncherGoes() {
  const launcher = process.ppid;
  const watch = setInterval(() => {
    if (process.ppid === launcher) return;
    clearInterval(watch);
    process.stderr.write('\nrlvr-lab: npm, which started this command, was stopped; stopping as SIGTERM does\n');
    process.kill(process.pid, 'SIGTERM');
  }, POLL_MS);
  // the watch never keeps a finished command alive
  watch.unref();
}

if (process.env.npm_lifecycle_event !== undefined && process.ppid !== 1) stopWhenLauncherGoes();
register();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));

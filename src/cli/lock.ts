// One run per output: `run` takes <out>.lock (its process id inside) before it writes anything,
// so a second run on the same --out, even with --force, is refused naming the first one's
// process instead of interleaving its log and state with it. A lock left by a process that no
// longer exists (SIGKILL, a power cut) is taken over.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { CliError } from './args';

/** Whether a process of this id exists (signal 0 tests without sending anything). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: it exists, under another user
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Takes `path` for this process; returns its release (idempotent; also run at exit). */
export function takeLock(path: string, what: string): () => void {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      // 'wx': created by this call or not at all, so two processes cannot both take it
      writeFileSync(path, `${process.pid}\n`, { flag: 'wx' });
      let held = true;
      const release = () => {
        if (!held) return;
        held = false;
        process.off('exit', release);
        rmSync(path, { force: true });
      };
      process.on('exit', release);
      return release;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'EEXIST') throw new CliError(`${what}: cannot create the lock ${path} (${code})`);
    }
    let text = '';
    try {
      text = readFileSync(path, 'utf8');
    } catch {
      // removed between the two calls: try again
      continue;
    }
    const pid = Number(text.trim());
    if (Number.isInteger(pid) && pid > 0 && alive(pid)) {
      throw new CliError(`${what} is in use by another run (process ${pid}); stop it first, or choose another --out (a stale lock: remove ${path})`);
    }
    // a stale lock: its process is gone
    rmSync(path, { force: true });
  }
  throw new CliError(`${what}: another process keeps taking the lock ${path}`);
}

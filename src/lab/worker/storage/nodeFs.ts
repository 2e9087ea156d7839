// The checkpoint store's file system on disk, for headless runs (Node only): a folder tree under
// `root`. A file is written to a temporary name beside it, flushed, then renamed over the old one,
// so a process killed mid-write leaves the previous file whole; the store's two slots and its
// manifest (written last) make a whole checkpoint atomic on top of that.
import { mkdir, open, readdir, readFile, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { CheckpointFs } from '../checkpoints';

export function nodeCheckpointFs(root: string): CheckpointFs {
  const at = (path: readonly string[]) => join(root, ...path);
  return {
    async read(path) {
      try {
        return new Uint8Array(await readFile(at(path)));
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT' || (e as NodeJS.ErrnoException).code === 'ENOTDIR') return null;
        throw e;
      }
    },
    async write(path, bytes) {
      const file = at(path);
      await mkdir(dirname(file), { recursive: true });
      const tmp = `${file}.tmp-${process.pid}`;
      const h = await open(tmp, 'w');
      try {
        await h.writeFile(bytes);
        await h.sync();
      } finally {
        await h.close();
      }
      await rename(tmp, file);
    },
    async remove(path) {
      await rm(at(path), { recursive: true, force: true });
    },
    async list(path) {
      try {
        return (await readdir(at(path))).filter((n) => !n.includes('.tmp-'));
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
        throw e;
      }
    },
  };
}

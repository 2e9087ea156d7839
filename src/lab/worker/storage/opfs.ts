// The checkpoint store's files in the origin-private file system (navigator.storage.getDirectory),
// which a worker can write without asking the user. A file is written through createWritable,
// which fills a swap file and replaces the old content only when closed: a write the disk cannot
// hold throws (QuotaExceededError) and leaves the old file as it was.
import type { CheckpointFs } from '../checkpoints';

type Dir = FileSystemDirectoryHandle;

function isNotFound(e: unknown): boolean {
  const name = (e as { name?: unknown } | null)?.name;
  return name === 'NotFoundError' || name === 'TypeMismatchError';
}

export function opfsFs(root: () => Promise<Dir> = () => navigator.storage.getDirectory()): CheckpointFs {
  /** The folder at `path`, created when `create`; null when absent and not created. */
  async function folder(path: readonly string[], create: boolean): Promise<Dir | null> {
    let d = await root();
    for (const name of path) {
      try {
        d = await d.getDirectoryHandle(name, { create });
      } catch (e) {
        if (!create && isNotFound(e)) return null;
        throw e;
      }
    }
    return d;
  }

  return {
    async read(path) {
      const d = await folder(path.slice(0, -1), false);
      if (!d) return null;
      try {
        const f = await (await d.getFileHandle(path[path.length - 1])).getFile();
        return new Uint8Array(await f.arrayBuffer());
      } catch (e) {
        if (isNotFound(e)) return null;
        throw e;
      }
    },

    async write(path, bytes) {
      const d = (await folder(path.slice(0, -1), true))!;
      const handle = await d.getFileHandle(path[path.length - 1], { create: true });
      const w = await handle.createWritable();
      try {
        await w.write(bytes as Uint8Array<ArrayBuffer>);
        await w.close();
      } catch (e) {
        // abort drops the swap file, so a failed write gives its space back
        await w.abort().catch(() => undefined);
        throw e;
      }
    },

    async remove(path) {
      const d = await folder(path.slice(0, -1), false);
      if (!d) return;
      try {
        await d.removeEntry(path[path.length - 1], { recursive: true });
      } catch (e) {
        if (!isNotFound(e)) throw e;
      }
    },

    async list(path) {
      const d = await folder(path, false);
      if (!d) return [];
      const names: string[] = [];
      for await (const name of (d as Dir & { keys(): AsyncIterable<string> }).keys()) names.push(name);
      return names;
    },
  };
}

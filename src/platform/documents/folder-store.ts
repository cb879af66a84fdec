/**
 * The document store in a filesystem folder (the default backend): one file per document, named by its
 * identifier (checked: 16 hexadecimal digits, or a staged upload's `staged-` name, so no path can
 * escape the folder), spread over 256 subfolders by the identifier's last two digits. A write goes to a
 * temporary file in the same folder, flushed, then renamed over the name: readers see the old bytes or
 * the new, never a part. Temporary files left by a crash (`*.tmp-*`) are removed by `cleanTemporaries`.
 */
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { DocumentStore, StoredDocument } from './store.ts';

const NAME = /^(?:[0-9a-f]{16}|staged-[0-9a-f]{32})$/;
/** Reads of 48 KiB: a multiple of 3 bytes, so each encodes to base64 on its own (no bytes carried over). */
export const READ_CHUNK = 48 * 1024;

export class FolderDocumentStore implements DocumentStore {
  constructor(readonly folder: string) {}

  private fileOf(id: string): string {
    if (!NAME.test(id)) throw new RangeError(`not a document identifier: ${id}`);
    return path.join(this.folder, id.slice(-2), id);
  }

  async put(id: string, bytes: AsyncIterable<Uint8Array> | Readable): Promise<{ size: number }> {
    const file = this.fileOf(id);
    await mkdir(path.dirname(file), { recursive: true });
    const temporary = `${file}.tmp-${randomBytes(6).toString('hex')}`;
    let size = 0;
    const out = createWriteStream(temporary, { flags: 'wx' });
    try {
      await pipeline(
        bytes,
        async function* (source: AsyncIterable<Uint8Array>) {
          for await (const piece of source) {
            size += piece.length;
            yield piece;
          }
        },
        out,
      );
      const handle = await open(temporary, 'r');
      try {
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temporary, file);
      return { size };
    } catch (error) {
      // The file may be opened after the failure: wait for the stream to close before removing it.
      if (!out.closed) await new Promise<void>((resolve) => out.once('close', () => resolve()));
      await rm(temporary, { force: true });
      throw error;
    }
  }

  async get(id: string): Promise<StoredDocument | undefined> {
    const file = this.fileOf(id);
    try {
      // Opened first, so the size is that of the bytes this stream reads even if a put replaces them.
      const handle = await open(file, 'r');
      const size = await handle.stat().then(
        (info) => info.size,
        async (error: unknown) => {
          await handle.close();
          throw error;
        },
      );
      let stream: Readable | undefined;
      let closed: Promise<void> | undefined;
      return {
        size,
        // Made on first use only, so a reader of readInto never has a stream reading the same handle.
        get stream() {
          stream ??= createReadStream('', { fd: handle, autoClose: true, highWaterMark: READ_CHUNK });
          return stream;
        },
        readInto: async (target, position) =>
          (await handle.read(target, 0, target.length, position)).bytesRead,
        // Once, whoever calls it (the reader when done, the answer's end as a backstop); a stream closes
        // the handle itself when it ends or is destroyed.
        close: () => {
          closed ??= stream ? Promise.resolve(void stream.destroy()) : handle.close();
          return closed;
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  async exists(id: string): Promise<boolean> {
    try {
      return (await stat(this.fileOf(id))).isFile();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw error;
    }
  }

  async delete(id: string): Promise<boolean> {
    try {
      await unlink(this.fileOf(id));
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw error;
    }
  }

  /** Every document stored (staged attachments included), with its last change. */
  async *list(): AsyncGenerator<{ id: string; modifiedMs: number }> {
    const folders = await readdir(this.folder).catch(() => [] as string[]);
    for (const sub of folders) {
      const entries = await readdir(path.join(this.folder, sub)).catch(() => [] as string[]);
      for (const entry of entries) {
        if (!NAME.test(entry)) continue;
        const info = await stat(path.join(this.folder, sub, entry)).catch(() => undefined);
        if (info) yield { id: entry, modifiedMs: info.mtimeMs };
      }
    }
  }

  /** Removes temporary files older than `olderThanMs` (a write cut short by a crash). */
  async cleanTemporaries(olderThanMs: number, now = Date.now()): Promise<number> {
    let removed = 0;
    let folders: string[];
    try {
      folders = await readdir(this.folder);
    } catch {
      return 0;
    }
    for (const sub of folders) {
      const entries = await readdir(path.join(this.folder, sub)).catch(() => [] as string[]);
      for (const entry of entries) {
        if (!entry.includes('.tmp-')) continue;
        const file = path.join(this.folder, sub, entry);
        const info = await stat(file).catch(() => undefined);
        if (info && now - info.mtimeMs > olderThanMs) {
          await rm(file, { force: true });
          removed++;
        }
      }
    }
    return removed;
  }
}

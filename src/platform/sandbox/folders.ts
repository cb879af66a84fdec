import type { Dirent } from 'node:fs';
import { link, mkdir, readdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { databaseFolder } from '../documents/location.ts';

/**
 * The sandbox's document folders, kept and put back with its database (states.ts). A register keeps the
 * files of a database in a folder named after it under the register's root (documents/location.ts),
 * so the folder of a kept state's database is that state's files: copying a database copies its folder,
 * swapping databases swaps their folders, dropping one drops its folder.
 *
 * Copies are hard links: a document store never writes a file in place (it writes a temporary file and
 * renames it over the name), so a linked file never changes under a kept state. A folder that does not
 * exist holds no files (a new sandbox, or the harness's shared template, whose folders are not this
 * process's): its copy is no folder either.
 */
export class StateFolders {
  constructor(private readonly roots: readonly string[]) {}

  /** Makes `target`'s folders copies of `source`'s (replacing what they held). */
  async copy(source: string, target: string): Promise<void> {
    for (const root of this.roots) {
      const to = databaseFolder(root, target);
      await rm(to, { recursive: true, force: true });
      await linkTree(databaseFolder(root, source), to);
    }
  }

  /**
   * `replacement`'s folders become `live`'s, and `live`'s become `retired`'s: run inside the pause,
   * right after the databases were swapped. A folder that cannot move is moved back, and the error
   * thrown, so the live folder is never left missing while its files exist.
   */
  async swap(names: { live: string; replacement: string; retired: string }): Promise<void> {
    for (const root of this.roots) {
      const live = databaseFolder(root, names.live);
      const replacement = databaseFolder(root, names.replacement);
      const retired = databaseFolder(root, names.retired);
      await rm(retired, { recursive: true, force: true });
      const hadLive = await moved(live, retired);
      try {
        await moved(replacement, live);
      } catch (error) {
        if (hadLive) await rename(retired, live);
        throw error;
      }
    }
  }

  /** Removes the folders of `database`. */
  async drop(database: string): Promise<void> {
    for (const root of this.roots) await rm(databaseFolder(root, database), { recursive: true, force: true });
  }

  /** Removes the folders named like `prefix…` that no database in `keep` owns (what a crash left). */
  async dropLeftovers(prefix: string, keep: ReadonlySet<string>): Promise<void> {
    const owned = new Set([...keep].map((database) => path.basename(databaseFolder('/', database))));
    const start = path.basename(databaseFolder('/', prefix));
    for (const root of this.roots) {
      const names = await readdir(root).catch(() => [] as string[]);
      for (const name of names) {
        if (name.startsWith(start) && !owned.has(name)) {
          await rm(path.join(root, name), { recursive: true, force: true });
        }
      }
    }
  }
}

/** Renames `from` to `to`; false (nothing moved) when `from` does not exist. */
async function moved(from: string, to: string): Promise<boolean> {
  try {
    await rename(from, to);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

/** `to` as a tree of hard links to `from`'s files; nothing when `from` does not exist. */
async function linkTree(from: string, to: string): Promise<void> {
  let entries: Dirent[];
  try {
    entries = await readdir(from, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  await mkdir(to, { recursive: true });
  for (const entry of entries) {
    const source = path.join(from, entry.name);
    const target = path.join(to, entry.name);
    if (entry.isDirectory()) await linkTree(source, target);
    // A store makes only folders and files.
    else if (entry.isFile()) await link(source, target);
  }
}

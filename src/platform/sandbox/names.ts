import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * Names and fingerprints of the sandbox's kept states: the advisory lock every operation on them holds,
 * the snapshot names operators may give, the template databases' names, and what the seeded state's
 * fingerprint covers.
 */

/** The advisory lock (on the gateway database) held by every reset, snapshot and restore. */
export const SANDBOX_STATES_LOCK = 7_361_042_903;

/** A snapshot's name: letters, digits, `.`, `_` and `-`, starting with a letter or digit, at most 63. */
export const SNAPSHOT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;
export const SNAPSHOT_NAME_RULE =
  'must be 1 to 63 letters, digits, ".", "_" or "-", starting with a letter or digit';

/** The kept state's name of the seeded state of a scale (never a snapshot's: it has a colon). */
export const seedStateName = (scale: string): string => `seed:${scale}`;

/** PostgreSQL cuts names past 63 bytes; derived names stay within it. */
const MAX_NAME = 63;
const LONGEST_SUFFIX = 20;

/**
 * What the names of the sandbox's own template and scratch databases start with: the sandbox
 * database's name and `__` (shortened, with a hash of the whole, when it is long).
 */
export function keptDatabasePrefix(sandbox: string): string {
  const room = MAX_NAME - LONGEST_SUFFIX - 2;
  if (Buffer.byteLength(sandbox) <= room) return `${sandbox}__`;
  const hash = createHash('sha256').update(sandbox).digest('hex').slice(0, 8);
  return `${Buffer.from(sandbox)
    .subarray(0, room - 9)
    .toString('utf8')
    .replace(/\uFFFD+$/, '')}_${hash}__`;
}

/** A new database name beside the sandbox's: `<prefix><role>_<random>`, e.g. `rsg_sandbox__snap_3f…`. */
export function keptDatabaseName(sandbox: string, role: 'seed' | 'snap' | 'next' | 'old'): string {
  return `${keptDatabasePrefix(sandbox)}${role}_${randomBytes(6).toString('hex')}`;
}

/** A SHA-256 over every file under the folders (their paths from each folder, and their bytes). */
async function foldersHash(folders: readonly string[]): Promise<string> {
  const hash = createHash('sha256');
  const walk = async (root: string, folder: string): Promise<void> => {
    const entries = (await readdir(folder, { withFileTypes: true })).sort((a, b) =>
      a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
    );
    for (const entry of entries) {
      const full = path.join(folder, entry.name);
      if (entry.isDirectory()) await walk(root, full);
      else if (entry.isFile()) {
        hash.update(`${path.relative(root, full)}\n`);
        hash.update(await readFile(full));
      }
    }
  };
  for (const folder of folders) {
    // The folder by its last two names (`nzbn/sandbox`), not its place on the machine: two checkouts
    // of the same code hash alike, and share the harness's template.
    hash.update(`${path.basename(path.dirname(folder))}/${path.basename(folder)}\n`);
    if (existsSync(folder)) await walk(folder, folder);
  }
  return hash.digest('hex');
}

/** Bumped when what a kept state holds changes shape, so every seeded state is made again. */
const KEPT_STATE_FORMAT = 1;

/**
 * The seeded state's fingerprint: the environment migrations' (`migrations`), every file of the
 * generators' folders, and the scale. When it differs from the kept seeded state's, that state is made
 * again from a fresh seed.
 */
export async function seedFingerprint(
  migrations: string,
  generators: readonly string[],
  scale: string,
): Promise<string> {
  const names = generators.map((folder) => path.basename(path.dirname(folder)));
  const code = await foldersHash(generators);
  return createHash('sha256')
    .update(JSON.stringify({ format: KEPT_STATE_FORMAT, migrations, generators: names, code, scale }))
    .digest('hex');
}

import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/platform/clock.ts';
import { copyDatabase, databaseExists, databasesNamed } from '../../src/platform/db/databases.ts';
import { type Database, openDatabase } from '../../src/platform/db/pool.ts';
import { databaseName } from '../../src/platform/db/urls.ts';
import { FolderDocumentStore } from '../../src/platform/documents/folder-store.ts';
import { databaseFolder } from '../../src/platform/documents/location.ts';
import { readClock } from '../../src/platform/environment-clocks.ts';
import { keptDatabasePrefix } from '../../src/platform/sandbox/names.ts';
import { SandboxStates } from '../../src/platform/sandbox/states.ts';
import { setClockMode } from '../../src/platform/store/environment-clocks.ts';
import { ENVIRONMENT_MIGRATIONS } from '../../src/runtime.ts';
import { databaseFingerprint } from '../support/fingerprint.ts';
import { migratedDatabases } from '../support/runtime.ts';

/**
 * The sandbox's kept states on their own (platform/sandbox/states.ts), as `rsg sandbox` runs them with
 * no serving process: the seeded state made from a fresh seed when missing and again when the
 * generators change, snapshots kept under older migrations brought up on restore, scratch databases a
 * crash left behind dropped, operations one at a time.
 */
let databases: Awaited<ReturnType<typeof migratedDatabases>>;
let gateway: Database;
let sandbox: Database;
let generators: string;
let seeds: { url: string; scale: string; at: Date }[] = [];

/** A seed that leaves a mark: one row saying when and at which scale, in a table of its own. */
async function seed(url: string, scale: string, clock: Clock): Promise<void> {
  const target = openDatabase(url, 1);
  try {
    await target.pool.query('CREATE TABLE IF NOT EXISTS seed_marks (scale text, at timestamptz)');
    await target.pool.query('INSERT INTO seed_marks VALUES ($1, $2)', [scale, clock.now()]);
  } finally {
    await target.close();
  }
  seeds.push({ url, scale, at: clock.now() });
}

/** Every keeper made, so that what each drops after answering can be waited for (`settled`). */
const made: SandboxStates[] = [];
const settled = () => Promise.all(made.map((keeper) => keeper.settled()));

const states = (migrations = ENVIRONMENT_MIGRATIONS, documentRoots: string[] = []) => {
  const keeper = new SandboxStates({
    documentRoots,
    sandboxUrl: databases.sandbox,
    gatewayUrl: databases.gateway,
    gateway: gateway.pool,
    migrations,
    generators: [generators],
    seed,
    graceMs: 200,
  });
  made.push(keeper);
  return keeper;
};

const marks = async () =>
  (await sandbox.pool.query<{ scale: string }>('SELECT scale FROM seed_marks ORDER BY at')).rows.map(
    (row) => row.scale,
  );

/** The sandbox's own databases beside it (kept states and scratch copies). */
const kept = () => databasesNamed(databases.sandbox, keptDatabasePrefix(databaseName(databases.sandbox)));

beforeAll(async () => {
  databases = await migratedDatabases();
  gateway = openDatabase(databases.gateway, 2);
  sandbox = openDatabase(databases.sandbox, 2);
  generators = await mkdtemp(path.join(tmpdir(), 'rsg-generators-'));
  await writeFile(path.join(generators, 'generator.ts'), 'export const version = 1;\n');
});

afterAll(async () => {
  await sandbox?.close();
  await gateway?.close();
  await databases?.drop();
});

describe('the seeded state', () => {
  // Five resets, each copying databases (PostgreSQL checkpoints for each CREATE DATABASE): on a loaded
  // machine longer than the suite's default 30 s. It tests outcomes, not speed.
  it('is made from a fresh seed on real time when missing, kept while nothing changes, made again when the generators do', async () => {
    await setClockMode(gateway.pool, 'sandbox', 'virtual');
    const first = await states().reset('small');
    expect(first).toMatchObject({ state: 'seed:small', seeded: true });
    expect(seeds).toHaveLength(1);
    // Seeded into a database of its own (the kept state), on real time.
    expect(seeds[0]!.url).not.toBe(databases.sandbox);
    expect(Math.abs(seeds[0]!.at.getTime() - Date.now())).toBeLessThan(60_000);
    expect(await marks()).toEqual(['small']);

    await sandbox.pool.query("INSERT INTO seed_marks VALUES ('written', now())");
    const second = await states().reset('small');
    expect(second.seeded).toBe(false);
    expect(seeds).toHaveLength(1);
    expect(await marks()).toEqual(['small']);

    await writeFile(path.join(generators, 'generator.ts'), 'export const version = 2;\n');
    expect((await states().reset('small')).seeded).toBe(true);
    expect(seeds).toHaveLength(2);
    expect((await states().reset('small', { reseed: true })).seeded).toBe(true);
    expect(seeds).toHaveLength(3);
    // Another scale is another seeded state.
    expect((await states().reset('full')).seeded).toBe(true);
    expect(await marks()).toEqual(['full']);
    // The seeded states replaced are dropped: one database per scale is left, and no scratch copy.
    await settled();
    expect(await kept()).toHaveLength(2);
  }, 120_000);

  it('keepSeeded keeps the sandbox as it is, unless an up-to-date seeded state is kept', async () => {
    const fresh = states();
    seeds = [];
    await sandbox.pool.query("INSERT INTO seed_marks VALUES ('kept as it was', now())");
    // Up to date (made by the last test): nothing is kept.
    expect(await fresh.keepSeeded('full')).toBe(false);
    await writeFile(path.join(generators, 'generator.ts'), 'export const version = 3;\n');
    expect(await fresh.keepSeeded('full')).toBe(true);
    await sandbox.pool.query('DELETE FROM seed_marks');
    expect((await fresh.reset('full')).seeded).toBe(false);
    expect(await marks()).toEqual(['full', 'kept as it was']);
    expect(seeds).toEqual([]);
  });
});

describe('snapshots', () => {
  it('a snapshot kept under earlier migrations is migrated on restore', async () => {
    await states().snapshot('before-an-upgrade');
    const upgrade = await mkdtemp(path.join(tmpdir(), 'rsg-upgrade-'));
    await writeFile(path.join(upgrade, '001_upgrade.sql'), 'CREATE TABLE upgrade_marks (n int);\n');
    const upgraded = [...ENVIRONMENT_MIGRATIONS, { module: 'upgrade-test', dir: upgrade }];
    const restored = await states(upgraded).restore('before-an-upgrade');
    expect(restored.state).toBe('before-an-upgrade');
    const table = await sandbox.pool.query("SELECT to_regclass('upgrade_marks') AS name");
    expect(table.rows[0].name).toBe('upgrade_marks');
  });

  it('keeps the clock of a real-time sandbox at real time', async () => {
    await setClockMode(gateway.pool, 'sandbox', 'real');
    await states().snapshot('real-time');
    await states().restore('real-time');
    const clock = await readClock(gateway.pool, 'sandbox');
    expect(clock.offsetMs).toBe(0);
    expect(clock.frozen).toBe(false);
    await setClockMode(gateway.pool, 'sandbox', 'virtual');
  });

  it('restores what was kept, the sandbox serving on between operations', async () => {
    const before = await databaseFingerprint(sandbox.pool);
    await states().snapshot('kept');
    await sandbox.pool.query("INSERT INTO seed_marks VALUES ('after the snapshot', now())");
    expect(await databaseFingerprint(sandbox.pool)).not.toEqual(before);
    await states().restore('kept');
    expect(await databaseFingerprint(sandbox.pool)).toEqual(before);
    expect((await states().snapshots()).map((s) => s.name)).toEqual([
      'before-an-upgrade',
      'kept',
      'real-time',
    ]);
  });

  it('runs one operation at a time: two at once both complete', async () => {
    const [a, b] = await Promise.all([states().snapshot('at-once-a'), states().snapshot('at-once-b')]);
    expect([a.name, b.name]).toEqual(['at-once-a', 'at-once-b']);
    await Promise.all([states().restore('at-once-a'), states().reset('full')]);
  });

  it('drops the scratch databases a crashed operation left behind, never a kept state', async () => {
    await settled();
    const prefix = keptDatabasePrefix(databaseName(databases.sandbox));
    const leftover = `${prefix}next_000000000000`;
    await copyDatabase(databases.sandbox, databaseName(databases.sandbox), leftover, { connectable: true });
    const keptBefore = (await kept()).filter((name) => name !== leftover);
    await states().snapshots();
    expect(await databaseExists(databases.sandbox, leftover)).toBe(true);
    await states().delete('at-once-b');
    await settled();
    expect(await databaseExists(databases.sandbox, leftover)).toBe(false);
    expect((await kept()).length).toBe(keptBefore.length - 1);
  });
});

describe('the sandbox’s document folders', () => {
  it('are kept with a snapshot and put back with it and with a reset; leftovers go', async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'rsg-documents-'));
    const live = databaseName(databases.sandbox);
    const store = new FolderDocumentStore(databaseFolder(root, live));
    const read = async (id: string) => {
      const found = await store.get(id);
      if (!found) return undefined;
      const chunks: Buffer[] = [];
      for await (const chunk of found.stream) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks).toString();
    };
    const withFolders = () => states(ENVIRONMENT_MIGRATIONS, [root]);
    await store.put('d0c0000000000001', Readable.from([Buffer.from('as uploaded')]));
    await withFolders().snapshot('with-documents');

    await store.put('d0c0000000000001', Readable.from([Buffer.from('replaced since')]));
    await store.put('d0c0000000000002', Readable.from([Buffer.from('uploaded since')]));
    await withFolders().restore('with-documents');
    expect(await read('d0c0000000000001')).toBe('as uploaded');
    expect(await read('d0c0000000000002')).toBeUndefined();
    // The kept state's own file was not touched by a write after the restore (hard links, never
    // written in place): restoring again gives the same bytes.
    await store.put('d0c0000000000001', Readable.from([Buffer.from('written after the restore')]));
    await withFolders().restore('with-documents');
    expect(await read('d0c0000000000001')).toBe('as uploaded');

    // The seeded state was kept with no files: a reset leaves none.
    await withFolders().reset('full');
    expect(await read('d0c0000000000001')).toBeUndefined();

    const leftover = path.join(root, `${keptDatabasePrefix(live)}next_000000000000`);
    await mkdir(leftover, { recursive: true });
    await withFolders().delete('with-documents');
    await settled();
    expect(existsSync(leftover)).toBe(false);
    // What is left is the live folder and the folders of kept states' databases (the deleted
    // snapshot's went with it).
    const databasesKept = new Set(await kept());
    for (const name of await readdir(root)) {
      expect(name === live || databasesKept.has(name), name).toBe(true);
    }
  }, 120_000);
});

import { randomBytes } from 'node:crypto';
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { databasesNamed, dropDatabaseNamed } from '../../src/platform/db/databases.ts';
import { ensureDatabase } from '../../src/platform/db/pool.ts';
import { withDatabase } from '../../src/platform/db/urls.ts';
import { seedFingerprint } from '../../src/platform/sandbox/names.ts';
import { GENERATOR_FOLDERS } from '../../src/testing/sources.ts';
import { pruneTemplates } from '../../src/testing/template.ts';
import { pgServerUrl } from '../support/runtime.ts';

/**
 * The harness's templates on a shared server: keyed by what the code is, not where it is, and several
 * kept, so that two checkouts (or two scales) on one machine do not drop each other's.
 */
describe("the harness's template key", () => {
  it('is the same for the same generators in another checkout, and differs when a file does', async () => {
    const elsewhere = await mkdtemp(path.join(os.tmpdir(), 'rsg-checkout-'));
    try {
      const copies = GENERATOR_FOLDERS.map((folder) =>
        path.join(elsewhere, path.basename(path.dirname(folder)), path.basename(folder)),
      );
      for (const [index, folder] of GENERATOR_FOLDERS.entries())
        await cp(folder, copies[index]!, { recursive: true });
      const here = await seedFingerprint('m', GENERATOR_FOLDERS, 'small');
      expect(await seedFingerprint('m', copies, 'small')).toBe(here);
      await writeFile(path.join(copies[0]!, 'extra.ts'), '');
      expect(await seedFingerprint('m', copies, 'small')).not.toBe(here);
    } finally {
      await rm(elsewhere, { recursive: true, force: true });
    }
  });
});

describe("the harness's templates on a server", () => {
  // A prefix of this test's own: the run's real templates are never among what it prunes.
  const prefix = `rsgh_x${randomBytes(3).toString('hex')}_`;
  const server = () => withDatabase(pgServerUrl(), 'postgres');
  const make = async (...names: string[]) => {
    for (const name of names) await ensureDatabase(withDatabase(server(), `${prefix}${name}`));
  };
  afterAll(async () => {
    for (const name of await databasesNamed(server(), prefix)) await dropDatabaseNamed(server(), name);
  });

  it('keeps the newest whole ones with their kept states, and drops older and half-made ones', async () => {
    const whole = (key: string) => [
      `${key}_gateway`,
      `${key}_sandbox`,
      `${key}_wip_sandbox__seed_1`,
      `${key}_production`,
    ];
    await make(...whole('a1'), ...whole('b2'));
    // Half made: no `_production` yet.
    await make('c3_wip_gateway', 'c3_wip_sandbox');
    await make(...whole('d4'));
    const dropped = await pruneTemplates(server(), prefix, 2);
    expect(dropped.sort()).toEqual(['a1', 'c3']);
    const left = (await databasesNamed(server(), prefix)).map((name) => name.slice(prefix.length));
    expect(left.sort()).toEqual([...whole('b2'), ...whole('d4')].sort());
    expect(await pruneTemplates(server(), prefix, 2)).toEqual([]);
  });
});

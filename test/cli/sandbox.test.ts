import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rsg } from '../support/cli.ts';
import { databaseFingerprint } from '../support/fingerprint.ts';
import { subscriber, type TestGateway, testGateway } from '../support/runtime.ts';

/**
 * `rsg sandbox`: reset, snapshot, restore, delete and the list, on the databases a running gateway
 * serves (it pauses for each on its own and serves on afterwards); usage errors exit 2.
 */
let t: TestGateway;
let key: string;

const sandbox = () => t.runtime.environments.sandbox.pool;
const mark = (text: string) => sandbox().query('INSERT INTO cli_marks VALUES ($1)', [text]);
const served = async () =>
  (
    await t.app.inject({
      url: '/sandbox/nzbn/v5/entities/9429000000000',
      headers: { 'ocp-apim-subscription-key': key },
    })
  ).statusCode;

beforeAll(async () => {
  t = await testGateway({ clockMode: 'virtual' });
  key = (await subscriber(t, 'sandbox-nzbn')).primaryKey;
  await sandbox().query('CREATE TABLE cli_marks (text text)');
  await mark('seeded');
  // This sandbox's first seed, as `rsg start` keeps it.
  await t.runtime.sandboxStates.keepSeeded('small');
}, 60_000);
afterAll(() => t?.close());

describe('rsg sandbox', () => {
  it('snapshot, restore, reset, delete and the list', async () => {
    const seeded = await databaseFingerprint(sandbox());
    expect((await rsg(['sandbox', 'snapshots'], { urls: t.urls })).stdout).toBe('no snapshots kept\n');

    await mark('before the snapshot');
    const kept = await rsg(['sandbox', 'snapshot', 'cli-one'], { urls: t.urls });
    expect(kept.code, kept.stderr).toBe(0);
    expect(kept.stdout).toMatch(/^kept the sandbox as "cli-one"\ncli-one {2}kept /);
    const atSnapshot = await databaseFingerprint(sandbox());

    const listed = await rsg(['sandbox', 'snapshots', '--json'], { urls: t.urls });
    expect(JSON.parse(listed.stdout)).toEqual([
      expect.objectContaining({ name: 'cli-one', clockFrozen: false }),
    ]);

    await mark('after the snapshot');
    const restored = await rsg(['sandbox', 'restore', 'cli-one'], { urls: t.urls });
    expect(restored.code, restored.stderr).toBe(0);
    expect(restored.stdout).toMatch(
      /^sandbox restored to "cli-one" in \d+\.\d\d s; sandbox requests were held/,
    );
    expect(restored.stdout).toMatch(/\nsandbox clock: /);
    expect(await databaseFingerprint(sandbox())).toEqual(atSnapshot);
    // The running gateway serves on, from the restored sandbox.
    expect(await served()).toBe(404);

    const reset = await rsg(['sandbox', 'reset'], { urls: t.urls });
    expect(reset.code, reset.stderr).toBe(0);
    expect(reset.stdout).toMatch(/^sandbox reset to its seeded state \(small\) in \d+\.\d\d s;/);
    expect(await databaseFingerprint(sandbox())).toEqual(seeded);
    expect(await served()).toBe(404);

    expect((await rsg(['sandbox', 'delete', 'cli-one'], { urls: t.urls })).stdout).toBe(
      'deleted the snapshot "cli-one"\n',
    );
    const again = await rsg(['sandbox', 'delete', 'cli-one'], { urls: t.urls });
    expect(again.code).toBe(1);
    expect(again.stderr).toBe('rsg: there is no snapshot named "cli-one"\n');
    const unknown = await rsg(['sandbox', 'restore', 'cli-one'], { urls: t.urls });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('there is no snapshot named "cli-one"');
  }, 120_000);

  it.each([
    [['sandbox']],
    [['sandbox', 'snapshot']],
    [['sandbox', 'reset', 'extra']],
    [['sandbox', 'restore', 'a', 'b']],
    [['sandbox', 'reset', '--scale', 'huge']],
    [['sandbox', 'erase', 'x']],
  ])('%j is a usage error (exit 2)', async (args) => {
    const result = await rsg(args, { urls: t.urls });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/Run "rsg help" for usage/);
  });

  it('a name that is not one is a usage error naming the rule', async () => {
    const result = await rsg(['sandbox', 'snapshot', 'no spaces'], { urls: t.urls });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('NAME must be 1 to 63 letters, digits');
  });
});

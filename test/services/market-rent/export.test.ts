import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseUrls } from '../../../src/platform/db/urls.ts';
import { rsg } from '../../support/cli.ts';
import { migratedDatabases } from '../../support/runtime.ts';
import { exampleFile, exported, scratch } from '../../support/transfer.ts';

/** `rsg export bonds`: the CSV `rsg import bonds` reads, round trip to the same bytes. */
let urls: DatabaseUrls & { drop(): Promise<void> };
const folder = scratch();
const file = (name: string) => path.join(folder, name);

beforeAll(async () => {
  urls = await migratedDatabases();
});
afterAll(() => urls?.drop());

describe('rsg export bonds', () => {
  it('writes the import CSV; export, import into the empty sandbox, export again: the same bytes', async () => {
    const example = exampleFile('bonds.csv');
    expect((await rsg(['import', 'bonds', example], { urls })).code).toBe(0);
    const a = await exported(urls, 'bonds', 'production', file('a.csv'));
    const rows = a.split('\n').filter(Boolean);
    expect(rows[0]).toBe(readFileSync(example, 'utf8').split('\n')[0]);
    expect(rows).toHaveLength(readFileSync(example, 'utf8').split('\n').filter(Boolean).length);
    expect(await exported(urls, 'bonds', 'sandbox', file('empty.csv'))).toBe(`${rows[0]}\n`);
    const imported = await rsg(['import', 'bonds', file('a.csv'), '--environment', 'sandbox'], { urls });
    expect(imported.code).toBe(0);
    expect(await exported(urls, 'bonds', 'sandbox', file('b.csv'))).toBe(a);
    const again = await rsg(['import', 'bonds', file('a.csv')], { urls });
    expect(again.stdout).toContain('0 new, 0 updated');
  });
});

import { mkdir, mkdtemp, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ClientPackage } from '../../src/portal/operations/client-package.ts';

/**
 * The packed client's life on a server, with a stand-in for `npm pack`: packed when missing or older than
 * its sources, in the background, one packing at a time (also across processes, by a lock file), a
 * failure kept with its reason, and nothing to serve where the package's sources are absent.
 */
let dir: string;
let packed: string;
let packs: number;

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'rsg-client-package-'));
  await mkdir(path.join(dir, 'src'));
  await writeFile(path.join(dir, 'package.json'), '{}');
  await writeFile(path.join(dir, 'src', 'index.ts'), 'export {};');
  packed = path.join(dir, 'pack', 'client.tgz');
  packs = 0;
});
afterEach(async () => rm(dir, { recursive: true, force: true }));

/** A stand-in for `npm pack` that writes `client-<n>.tgz` holding its count. */
const fakePack = async (destination: string) => {
  packs++;
  const name = `client-${packs}.tgz`;
  await writeFile(path.join(destination, name), `packed ${packs}`);
  return name;
};

describe('the packed client', () => {
  it('is packed when missing, and served once packed', async () => {
    const client = new ClientPackage(dir, packed, fakePack);
    expect(await client.state()).toEqual({ state: 'packing' });
    await client.settled();
    expect(await client.state()).toEqual({ state: 'ready', file: packed });
    expect(await readFile(packed, 'utf8')).toBe('packed 1');
    // Fresh: asked again, nothing is packed again.
    await client.state();
    await client.settled();
    expect(packs).toBe(1);
  });

  it('is packed again when a source is newer than it', async () => {
    const client = new ClientPackage(dir, packed, fakePack);
    await client.state();
    await client.settled();
    const later = new Date(Date.now() + 60_000);
    await utimes(path.join(dir, 'src', 'index.ts'), later, later);
    expect(await client.state()).toEqual({ state: 'packing' });
    await client.settled();
    expect(await readFile(packed, 'utf8')).toBe('packed 2');
  });

  it('keeps a failure with its reason, and does not retry at once', async () => {
    let tries = 0;
    const client = new ClientPackage(dir, packed, async () => {
      tries++;
      throw new Error('npm could not be run (spawn npm ENOENT)');
    });
    expect((await client.state()).state).toBe('packing');
    await client.settled();
    expect(await client.state()).toEqual({
      state: 'failed',
      reason: 'npm could not be run (spawn npm ENOENT)',
    });
    await client.settled();
    expect(tries).toBe(1);
  });

  it('waits for another process that holds the lock', async () => {
    await mkdir(path.dirname(packed), { recursive: true });
    await writeFile(path.join(path.dirname(packed), '.packing'), '');
    const client = new ClientPackage(dir, packed, fakePack);
    expect(await client.state()).toEqual({ state: 'packing' });
    await client.settled();
    expect(packs).toBe(0);
    expect(await client.state()).toEqual({ state: 'packing' });
  });

  it('is unavailable where neither the packed file nor the sources are', async () => {
    await rm(path.join(dir, 'src'), { recursive: true });
    const client = new ClientPackage(dir, packed, fakePack);
    expect(await client.state()).toMatchObject({ state: 'unavailable' });
    // A packed file shipped alone is served as it is.
    await mkdir(path.dirname(packed), { recursive: true });
    await writeFile(packed, 'shipped');
    expect(await client.state()).toEqual({ state: 'ready', file: packed });
  });
});

import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { leaseServer, withFileLock } from '../../src/testing/machine.ts';

/**
 * The machine's shared server (src/testing/machine.ts): started by the first lease, attached to by the
 * next, stopped when the last is released; the lock file taken over from a process that is gone.
 */
const folders: string[] = [];
const folder = async () => {
  // Not under the test's temporary folder as root: the server's `postgres` user must reach it.
  const made = await mkdtemp(path.join(tmpdir(), 'rsg-harness-machine-'));
  folders.push(made);
  return made;
};
afterAll(async () => {
  for (const made of folders) await rm(made, { recursive: true, force: true });
});

const answers = async (serverUrl: string) => {
  const client = new pg.Client({ connectionString: `${serverUrl}/postgres` });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
};

describe('the machine’s server', () => {
  it('is started by the first lease and stopped by the last', async () => {
    const cache = await folder();
    const started: string[] = [];
    const first = await leaseServer(cache, async (url) => {
      started.push(url);
    });
    const second = await leaseServer(cache, async (url) => {
      started.push(url);
    });
    try {
      expect(first.started).toBe(true);
      expect(second.started).toBe(false);
      expect(second.serverUrl).toBe(first.serverUrl);
      expect(started).toEqual([first.serverUrl]);
      await first.release();
      expect(await answers(second.serverUrl)).toBe(true);
    } finally {
      await first.release();
      await second.release();
    }
    expect(await answers(first.serverUrl)).toBe(false);
    expect(await readdir(path.join(cache, 'leases'))).toEqual([]);
  }, 120_000);

  it('takes over a lock left by a process that is gone, and waits for a live one', async () => {
    const cache = await folder();
    // A process id no process has (above Linux's pid_max).
    await writeFile(path.join(cache, 'lock'), '99999999');
    expect(await withFileLock(cache, async () => 'taken')).toBe('taken');
    expect(existsSync(path.join(cache, 'lock'))).toBe(false);
    await writeFile(path.join(cache, 'lock'), String(process.pid));
    await expect(withFileLock(cache, async () => 'taken', 200)).rejects.toThrow(/is held by process/);
  });
});

import { chmod, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { trustedCacheFolder } from '../../src/testing/cache-folder.js';

/**
 * The harness's cache folder holds code it runs and a server's files: it is used only when it is this
 * user's own and writable by nobody else (as root it lives in the shared temporary folder).
 */
let parent: string;
afterAll(() => rm(parent, { recursive: true, force: true }));

it('is made when missing, and refused when others may write in it', async () => {
  parent = await mkdtemp(path.join(tmpdir(), 'rsg-cache-folder-'));
  const folder = path.join(parent, 'harness');
  expect(trustedCacheFolder({ RSG_HARNESS_CACHE: folder })).toBe(folder);
  expect((await stat(folder)).isDirectory()).toBe(true);
  await chmod(folder, 0o777);
  expect(() => trustedCacheFolder({ RSG_HARNESS_CACHE: folder })).toThrow(
    new RegExp(`cache folder ${folder} may be written by others \\(mode 777\\).*RSG_HARNESS_CACHE`),
  );
  await chmod(folder, 0o700);
  expect(trustedCacheFolder({ RSG_HARNESS_CACHE: folder })).toBe(folder);
});

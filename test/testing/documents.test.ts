import { existsSync } from 'node:fs';
import { mkdir, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { documentPlaces } from '../../src/runtime.ts';
import { dropRunDocuments, placeDocuments } from '../../src/testing/documents.ts';

/** Where a harness keeps its registers' documents (src/testing/documents.ts): never the suite's folder. */
describe('the harness’s document folders', () => {
  it('go under the machine’s cache unless the process names a place', () => {
    const env: NodeJS.ProcessEnv = {};
    placeDocuments(documentPlaces(), env, '/cache/rsg');
    expect(env).toEqual({
      RSG_NZBN_DOCUMENTS_DIR: '/cache/rsg/nzbn-documents',
      RSG_IPONZ_DOCUMENTS_DIR: '/cache/rsg/iponz-documents',
    });
    const own: NodeJS.ProcessEnv = { RSG_NZBN_DOCUMENTS_DIR: '/mine' };
    placeDocuments(documentPlaces(), own, '/cache/rsg');
    expect(own).toEqual({
      RSG_NZBN_DOCUMENTS_DIR: '/mine',
      RSG_IPONZ_DOCUMENTS_DIR: '/cache/rsg/iponz-documents',
    });
    const data: NodeJS.ProcessEnv = { RSG_DATA_DIR: '/data' };
    placeDocuments(documentPlaces(), data, '/cache/rsg');
    expect(data).toEqual({ RSG_DATA_DIR: '/data' });
  });

  it('a run’s folders go with it, and no other run’s', async () => {
    const cache = await mkdtemp(path.join(tmpdir(), 'rsg-harness-cache-'));
    const env: NodeJS.ProcessEnv = {};
    placeDocuments(documentPlaces(), env, cache);
    const folders = ['rsgh_r_aaaa_sandbox', 'rsgh_r_aaaa_sandbox__snap_1', 'rsgh_r_bbbb_sandbox'];
    for (const root of [env.RSG_NZBN_DOCUMENTS_DIR!, env.RSG_IPONZ_DOCUMENTS_DIR!]) {
      for (const folder of folders) await mkdir(path.join(root, folder), { recursive: true });
    }
    await dropRunDocuments(documentPlaces(), 'rsgh_r_aaaa', env);
    for (const root of [env.RSG_NZBN_DOCUMENTS_DIR!, env.RSG_IPONZ_DOCUMENTS_DIR!]) {
      expect(folders.map((folder) => existsSync(path.join(root, folder)))).toEqual([false, false, true]);
    }
  });
});

import { rm } from 'node:fs/promises';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { clientPackage, PACKED_CLIENT } from '../../src/portal/operations/client-package.ts';
import { type TestGateway, testGateway } from '../support/runtime.ts';

/**
 * The portal serves the packed client, the file a user installs with
 * `npm install <gateway>/portal/downloads/client.tgz`: the built package, its types and its documents.
 * On a fresh clone there is no packed file: the gateway packs it itself (`npm pack`, offline), and the
 * download says so meanwhile (503 with Retry-After), never leaving the user with a bare 404.
 */
let gateway: TestGateway;

beforeAll(async () => {
  // As on a fresh clone: nothing packed yet.
  await rm(path.dirname(PACKED_CLIENT), { recursive: true, force: true });
  gateway = await testGateway();
}, 180_000);
afterAll(async () => gateway?.close());

/** The files of a tar archive, by name. */
function untar(bytes: Buffer): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  for (let offset = 0; offset + 512 <= bytes.length; ) {
    const name = bytes
      .subarray(offset, offset + 100)
      .toString('utf8')
      .replace(/\0.*$/s, '');
    if (!name) break;
    const size = Number.parseInt(
      bytes
        .subarray(offset + 124, offset + 136)
        .toString('utf8')
        .trim() || '0',
      8,
    );
    files.set(name, bytes.subarray(offset + 512, offset + 512 + size));
    offset += 512 + Math.ceil(size / 512) * 512;
  }
  return files;
}

it('packs the client when it is missing, saying so meanwhile, then serves it', async () => {
  const meanwhile = await gateway.app.inject({ method: 'GET', url: '/portal/downloads/client.tgz' });
  expect(meanwhile.statusCode).toBe(503);
  expect(meanwhile.headers['retry-after']).toBe('30');
  expect(meanwhile.body).toContain('being packed');
  // Packing builds the package with tsc first (its prepack): slow on a busy machine.
  await clientPackage.settled();
  const answer = await gateway.app.inject({ method: 'GET', url: '/portal/downloads/client.tgz' });
  expect(answer.statusCode, answer.body.slice(0, 500)).toBe(200);
  expect(answer.headers['content-type']).toBe('application/gzip');
  const files = untar(gunzipSync(answer.rawPayload));
  const manifest = JSON.parse(files.get('package/package.json')!.toString('utf8'));
  expect(manifest.name).toBe('@register-services/client');
  for (const name of [
    'dist/index.js',
    'dist/index.d.ts',
    'dist/server.js',
    'openapi/ppsr.sandbox.json',
    'README.md',
  ]) {
    expect(files.has(`package/${name}`), name).toBe(true);
  }
  // The built modules import one another as JavaScript, not as the sources' .ts.
  expect(files.get('package/dist/index.js')!.toString('utf8')).not.toMatch(/from '\.[^']*\.ts'/);
}, 300_000);

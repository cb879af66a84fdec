import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type TestGateway, testGateway } from '../support/runtime.ts';

/**
 * The portal serves the packed client (`npm run client:pack`, offline), the file a user installs with
 * `npm install <gateway>/portal/downloads/client.tgz`: the built package, its types and its documents.
 */
const ROOT = path.join(import.meta.dirname, '..', '..');
let gateway: TestGateway;

beforeAll(async () => {
  // Packing builds the package with tsc first (its prepack): slow on a busy machine.
  const packed = spawnSync('npm', ['run', 'client:pack'], { cwd: ROOT, encoding: 'utf8' });
  if (packed.status !== 0)
    throw new Error(`npm run client:pack: ${packed.status} ${packed.stderr}${packed.stdout}`);
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

it('serves the packed client: the built package with its types and documents', async () => {
  const answer = await gateway.app.inject({ method: 'GET', url: '/portal/downloads/client.tgz' });
  expect(answer.statusCode).toBe(200);
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
});

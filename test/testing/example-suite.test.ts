import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { pgServerUrl } from '../support/runtime.ts';

/**
 * The example suite (examples/sandbox-harness/) runs as a user's suite would: its own Vitest run, two
 * workers, importing `register-services-gateway/testing` by the package's name. On the run's server,
 * so it copies the template this run's harness tests made (or makes it, when it comes first).
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

it('examples/sandbox-harness passes', async () => {
  // Not this run's Vitest settings: the example's own run decides its workers and pool.
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('VITEST') && name !== 'NODE_OPTIONS'),
  );
  const result = await new Promise<{ code: number; output: string }>((resolve) => {
    execFile(
      process.execPath,
      [
        path.join(root, 'node_modules/vitest/vitest.mjs'),
        'run',
        '--config',
        'examples/sandbox-harness/vitest.config.ts',
      ],
      { cwd: root, env: { ...env, DATABASE_URL: pgServerUrl(), NO_COLOR: '1' }, maxBuffer: 16 << 20 },
      (error, stdout, stderr) =>
        resolve({ code: error ? Number(error.code ?? 1) : 0, output: `${stdout}${stderr}` }),
    );
  });
  expect(result.code, result.output).toBe(0);
  expect(result.output).toMatch(/Test Files\s+2 passed \(2\)/);
}, 600_000);

import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { pgServerUrl } from '../support/runtime.ts';

/**
 * The Jest example suite (examples/jest-suite/) runs as a user's suite would: its own Jest run, two
 * workers, a sandbox each from `register-services-gateway/testing/jest/global-setup`, its test files
 * plain CommonJS with no transform. On the run's server, so it copies this run's template.
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

it('examples/jest-suite passes under Jest with two workers', async () => {
  // Not this run's Vitest settings: the Jest run is a process of its own.
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !name.startsWith('VITEST') && !name.startsWith('JEST') && name !== 'NODE_OPTIONS',
    ),
  );
  const result = await new Promise<{ code: number; output: string }>((resolve) => {
    execFile(
      process.execPath,
      [
        path.join(root, 'node_modules/jest/bin/jest.js'),
        '--config',
        'examples/jest-suite/jest.config.cjs',
        '--maxWorkers=2',
        '--ci',
      ],
      { cwd: root, env: { ...env, DATABASE_URL: pgServerUrl(), NO_COLOR: '1' }, maxBuffer: 16 << 20 },
      (error, stdout, stderr) =>
        resolve({ code: error ? Number(error.code ?? 1) : 0, output: `${stdout}${stderr}` }),
    );
  });
  expect(result.code, result.output).toBe(0);
  expect(result.output).toMatch(/Test Suites:\s+3 passed, 3 total/);
  expect(result.output).toMatch(/Tests:\s+7 passed, 7 total/);
}, 600_000);

import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { pgServerUrl } from '../support/runtime.ts';

/**
 * `register-services-gateway/testing` loaded by Node itself, with no loader given (as Jest loads a
 * `globalSetup` module): the entry registers its own, and a sandbox starts, answers and stops.
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

const SCRIPT = `
const { startSandbox } = await import('register-services-gateway/testing');
const sandbox = await startSandbox({ jobs: false });
try {
  const response = await fetch(sandbox.registers.nzbn + '/entities/9429000001007', {
    headers: { 'Ocp-Apim-Subscription-Key': sandbox.keys.nzbn },
  });
  process.stdout.write(JSON.stringify({ status: response.status, name: (await response.json()).entityName }));
} finally {
  await sandbox.stop();
}`;

it('starts a sandbox from a plain Node module', async () => {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('VITEST') && name !== 'NODE_OPTIONS'),
  );
  const result = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      ['--input-type=module', '-e', SCRIPT],
      { cwd: root, env: { ...env, DATABASE_URL: pgServerUrl() } },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
  expect(result.code, result.stderr).toBe(0);
  expect(JSON.parse(result.stdout)).toEqual({ status: 200, name: 'SANDBOX TEST COMPANY LIMITED' });
}, 300_000);

import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DatabaseUrls } from '../../src/platform/db/urls.ts';

const bin = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../bin/rsg.js');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `rsg` as a separate process, as an operator would, against the given databases. */
export function rsg(
  args: string[],
  options: { urls?: DatabaseUrls; env?: Record<string, string> } = {},
): Promise<CliResult> {
  const env: Record<string, string | undefined> = { ...process.env, LOG_LEVEL: 'silent', ...options.env };
  if (options.urls) {
    env.DATABASE_URL = options.urls.gateway;
    env.SANDBOX_DATABASE_URL = options.urls.sandbox;
    env.PRODUCTION_DATABASE_URL = options.urls.production;
  }
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, ...args], { env, timeout: 60_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

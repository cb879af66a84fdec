import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { DatabaseUrls } from '../../src/platform/db/urls.ts';
import { rsg } from './cli.ts';
import { TEST_SERVER_SECRET } from './runtime.ts';

/** What the import and export tests of every register share: a scratch folder and the CLI's calls. */
export const scratch = (): string => mkdtempSync(path.join(tmpdir(), 'rsg-transfer-'));

/** docs/formats/examples/<name>: the example files the format documents show. */
export const exampleFile = (name: string): string =>
  path.resolve(import.meta.dirname, '../../docs/formats/examples', name);

/** `rsg export <register>` of one environment into `file`; the file's text. */
export async function exported(
  urls: DatabaseUrls,
  register: string,
  environment: 'sandbox' | 'production',
  file: string,
  extra: string[] = [],
): Promise<string> {
  const result = await rsg(['export', register, '--environment', environment, '--output', file, ...extra], {
    urls,
  });
  if (result.code !== 0) throw new Error(`export failed: ${result.stderr}`);
  return file.endsWith('.gz') ? '' : readFileSync(file, 'utf8');
}

const bin = path.resolve(import.meta.dirname, '../../bin/rsg.js');

/**
 * Runs `rsg import … --batch N` in a process of its own and kills it (SIGKILL) once it has committed
 * `afterCommits` batches: an import cut off mid-file. Resolves to what it wrote to stderr, and whether it
 * ended by itself first (then the test has nothing to resume).
 */
export function killedImport(
  urls: DatabaseUrls,
  args: string[],
  afterCommits: number,
): Promise<{ stderr: string; endedByItself: boolean }> {
  const child = spawn(process.execPath, [bin, 'import', ...args], {
    env: {
      ...process.env,
      LOG_LEVEL: 'silent',
      RSG_SERVER_SECRET: TEST_SERVER_SECRET,
      DATABASE_URL: urls.gateway,
      SANDBOX_DATABASE_URL: urls.sandbox,
      PRODUCTION_DATABASE_URL: urls.production,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  let killed = false;
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (text: string) => {
    stderr += text;
    if (!killed && (stderr.match(/^committed /gm)?.length ?? 0) >= afterCommits) {
      killed = true;
      child.kill('SIGKILL');
    }
  });
  return new Promise((resolve) => {
    child.on('close', () => resolve({ stderr, endedByItself: !killed }));
  });
}

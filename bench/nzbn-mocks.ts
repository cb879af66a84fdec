import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { pinned } from './load.ts';
import { freePort } from './support.ts';

/**
 * The two contenders of the side-by-side: a Prism mock of our own OpenAPI document and a WireMock stub
 * answering the same entity. Both are installed with npm into a tools folder outside the project
 * (`RSG_BENCH_TOOLS`, default <tmp>/rsg-bench-tools), so the project's dependencies stay as they are;
 * WireMock's npm package ships its jar and runs on the machine's Java. A contender that cannot be
 * installed or started is reported and skipped.
 */
const run = promisify(execFile);
export const PRISM_VERSION = '5.14.2';
export const WIREMOCK_VERSION = '3.13.2';
const TOOLS = process.env.RSG_BENCH_TOOLS ?? path.join(tmpdir(), 'rsg-bench-tools');

export interface Mock {
  name: string;
  url: string;
  child: ChildProcess;
}

export async function installTools(): Promise<string | undefined> {
  const bin = path.join(TOOLS, 'node_modules', '.bin');
  if (existsSync(path.join(bin, 'prism')) && existsSync(path.join(TOOLS, 'node_modules', 'wiremock')))
    return undefined;
  await mkdir(TOOLS, { recursive: true });
  await writeFile(path.join(TOOLS, 'package.json'), '{"name":"rsg-bench-tools","private":true}\n');
  try {
    await run(
      'npm',
      [
        'install',
        '--no-audit',
        '--no-fund',
        `@stoplight/prism-cli@${PRISM_VERSION}`,
        `wiremock@${WIREMOCK_VERSION}`,
      ],
      {
        cwd: TOOLS,
        timeout: 300_000,
      },
    );
    return undefined;
  } catch (error) {
    return `npm install failed: ${(error as Error).message.split('\n')[0]}`;
  }
}

async function waitFor(
  url: string,
  headers: Record<string, string>,
  child: ChildProcess,
  seconds = 90,
): Promise<void> {
  for (let waited = 0; waited < seconds * 4; waited++) {
    if (child.exitCode !== null) throw new Error(`exited with ${child.exitCode}`);
    try {
      const response = await fetch(url, { headers });
      if (response.status === 200) return;
    } catch {}
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`no 200 from ${url} within ${seconds} s`);
}

/** Prism serving our OpenAPI document (static examples, request validation on). */
export async function startPrism(
  openapi: object,
  probe: string,
  headers: Record<string, string>,
  cpus?: string,
): Promise<Mock> {
  const file = path.join(TOOLS, 'nzbn-openapi.json');
  await writeFile(file, JSON.stringify(openapi));
  const port = await freePort();
  const child = spawn(
    ...pinned(cpus, path.join(TOOLS, 'node_modules', '.bin', 'prism'), [
      'mock',
      file,
      '-p',
      String(port),
      '-h',
      '127.0.0.1',
    ]),
    { stdio: 'ignore' },
  );
  const url = `http://127.0.0.1:${port}${probe}`;
  await waitFor(url, headers, child);
  return { name: 'prism', url, child };
}

/** WireMock answering GET <path> with the entity's exact bytes when the key header is present. */
export async function startWireMock(
  probe: string,
  body: string,
  headers: Record<string, string>,
  cpus?: string,
): Promise<Mock> {
  const root = path.join(TOOLS, 'wiremock-root');
  await mkdir(path.join(root, 'mappings'), { recursive: true });
  await writeFile(
    path.join(root, 'mappings', 'entity.json'),
    JSON.stringify({
      request: { method: 'GET', urlPath: probe, headers: { 'Ocp-Apim-Subscription-Key': { matches: '.+' } } },
      response: { status: 200, headers: { 'Content-Type': 'application/json; charset=utf-8' }, body },
    }),
  );
  const jar = path.join(
    TOOLS,
    'node_modules',
    'wiremock',
    'build',
    `wiremock-standalone-${WIREMOCK_VERSION}.jar`,
  );
  const port = await freePort();
  // Under taskset the JVM sees only those cores, and sizes its compiler, collector and server threads
  // to them, as it would on a machine of that size.
  const child = spawn(
    ...pinned(cpus, 'java', [
      '-jar',
      jar,
      '--port',
      String(port),
      '--bind-address',
      '127.0.0.1',
      '--root-dir',
      root,
      '--disable-banner',
      '--no-request-journal',
    ]),
    { stdio: 'ignore' },
  );
  const url = `http://127.0.0.1:${port}${probe}`;
  await waitFor(url, headers, child);
  return { name: 'wiremock', url, child };
}

export function stopMock(mock: Mock | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (!mock || mock.child.exitCode !== null) return resolve();
    mock.child.once('exit', () => resolve());
    mock.child.kill('SIGTERM');
  });
}

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { type EmbeddedServer, startEmbedded } from '../../src/platform/db/embedded.ts';
import { freePort } from './ports.ts';

/**
 * One PostgreSQL server for the whole run: the one named by DATABASE_URL, or an embedded one in a
 * temporary folder. Each test file creates its own databases on it (see runtime.ts), so files run in
 * parallel without sharing state.
 */
declare module 'vitest' {
  interface ProvidedContext {
    pgServerUrl: string;
  }
}

let embedded: EmbeddedServer | undefined;
let dataDir: string | undefined;

export async function setup(project: TestProject): Promise<void> {
  if (process.env.RSG_TEST_UNIT === '1') {
    project.provide('pgServerUrl', '');
    return;
  }
  if (process.env.DATABASE_URL) {
    project.provide('pgServerUrl', process.env.DATABASE_URL);
    return;
  }
  dataDir = await mkdtemp(path.join(tmpdir(), 'rsg-test-'));
  embedded = await startEmbedded({ dataDir, port: await freePort(), ephemeral: true });
  project.provide('pgServerUrl', `${embedded.serverUrl}/postgres`);
}

export async function teardown(): Promise<void> {
  await embedded?.stop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
}

import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { type EmbeddedServer, startEmbedded } from '../../src/platform/db/embedded.ts';
import { dropDatabase, ensureDatabase } from '../../src/platform/db/pool.ts';
import { withDatabase } from '../../src/platform/db/urls.ts';
import { migrateAll } from '../../src/runtime.ts';
import { freePort } from './ports.ts';

/**
 * One PostgreSQL server for the whole run: the one named by DATABASE_URL, or an embedded one in a
 * temporary folder. Each test file creates its own databases on it (see runtime.ts), so files run in
 * parallel without sharing state.
 *
 * And two template databases for the run, migrated once here by the product's own `migrateAll`: a
 * gateway database and an environment database. A test gateway's databases are copies of them
 * (`CREATE DATABASE … TEMPLATE`, `migratedDatabases` in runtime.ts), about 0.1 s for the three against
 * 0.6 s for migrating three empty ones — a test gateway is made about a hundred times a pass. Tests of
 * the migrations themselves and of a first start keep starting from empty databases (`freshDatabases`).
 */
declare module 'vitest' {
  interface ProvidedContext {
    pgServerUrl: string;
    /** The run's migrated template databases (names on pgServerUrl's server); empty without PostgreSQL. */
    pgTemplates: { gateway: string; environment: string } | null;
  }
}

let embedded: EmbeddedServer | undefined;
let dataDir: string | undefined;
let templates: string[] = [];

export async function setup(project: TestProject): Promise<void> {
  if (process.env.RSG_TEST_UNIT === '1') {
    project.provide('pgServerUrl', '');
    project.provide('pgTemplates', null);
    return;
  }
  let server: string;
  if (process.env.DATABASE_URL) server = process.env.DATABASE_URL;
  else {
    dataDir = await mkdtemp(path.join(tmpdir(), 'rsg-test-'));
    embedded = await startEmbedded({ dataDir, port: await freePort(), ephemeral: true });
    server = `${embedded.serverUrl}/postgres`;
  }
  project.provide('pgServerUrl', server);
  const stem = `rsgt_template_${randomBytes(4).toString('hex')}`;
  const gateway = withDatabase(server, `${stem}_gateway`);
  const environment = withDatabase(server, `${stem}_environment`);
  templates = [gateway, environment];
  for (const url of templates) await ensureDatabase(url);
  // The environment template stands for both environments (they share one list of migrations).
  await migrateAll({ gateway, sandbox: environment, production: environment });
  project.provide('pgTemplates', { gateway: `${stem}_gateway`, environment: `${stem}_environment` });
}

export async function teardown(): Promise<void> {
  // The embedded server's files go with it; on a server of the machine's, the templates are dropped.
  if (!embedded) await Promise.all(templates.map((url) => dropDatabase(url).catch(() => {})));
  await embedded?.stop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
}

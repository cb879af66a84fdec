import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { GATEWAY_MIGRATIONS } from '../migration-sources.ts';
import type { MigrationSource } from '../platform/db/migrations.ts';

/**
 * The folders the harness's template is keyed by (template.ts), named here without loading the gateway's
 * modules, so that a new process copies its databases from the template while those modules load. They
 * are the service registry's (runtime.ts: `ENVIRONMENT_MIGRATIONS`, `generatorFolders()`; the gateway's
 * own list is migration-sources.ts, shared); test/testing/sources.test.ts holds the two equal, so a
 * register added to the registry and not here fails it.
 */
const src = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The registers with migrations and a sandbox seed, in the registry's order. */
const REGISTERS = ['nzbn', 'market-rent', 'iponz', 'ppsr', 'disclose'] as const;

export const GATEWAY_SOURCES: MigrationSource[] = GATEWAY_MIGRATIONS;

export const ENVIRONMENT_SOURCES: MigrationSource[] = [
  { module: 'billing', dir: path.join(src, 'billing/migrations') },
  { module: 'transfer', dir: path.join(src, 'platform/transfer/migrations') },
  ...REGISTERS.map((id) => ({ module: id, dir: path.join(src, 'services', id, 'migrations') })),
];

export const GENERATOR_FOLDERS: string[] = REGISTERS.map((id) => path.join(src, 'services', id, 'sandbox'));

import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { MigrationSource } from './platform/db/migrations.ts';

/**
 * The gateway database's migration folders, in the order they apply: a module of its own with nothing
 * heavy behind it, so that the test harness keys its template by the same list (testing/sources.ts)
 * without loading the gateway.
 */
const here = path.dirname(fileURLToPath(import.meta.url));

export const GATEWAY_MIGRATIONS: MigrationSource[] = [
  { module: 'platform', dir: path.join(here, 'platform/migrations') },
  { module: 'identity', dir: path.join(here, 'identity/migrations') },
  { module: 'gateway', dir: path.join(here, 'gateway/migrations') },
  { module: 'mail', dir: path.join(here, 'platform/mail-migrations') },
  { module: 'portal', dir: path.join(here, 'portal/migrations') },
];

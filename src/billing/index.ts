/**
 * The billing module: the fee ledger of each environment (`fee_records`), billing accounts and direct
 * debit authorities. A platform module present in every environment database: its migrations run
 * before the services' (runtime.ts), so a service's migration may refer to its tables.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));

/** The module's migrations, applied to the sandbox and production databases. */
export const BILLING_MIGRATIONS = path.join(here, 'migrations');

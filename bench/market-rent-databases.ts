import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config.ts';
import { withDatabase } from '../src/platform/db/urls.ts';
import { prepareDatabases } from '../src/runtime.ts';

/** Where `bench:market-rent` keeps its embedded database between runs (BENCH_DATA_DIR). */
export const marketRentDataDir =
  process.env.BENCH_DATA_DIR ?? path.join(os.tmpdir(), 'rsg-bench-market-rent');

/**
 * The databases of the rental statistics benches: `rsg_bench_market_rent…` on DATABASE_URL's server,
 * or an embedded PostgreSQL in the data folder (port BENCH_PG_PORT), kept between runs.
 */
export function marketRentDatabases() {
  const config = loadConfig();
  return prepareDatabases({
    ...config,
    databaseUrl: config.databaseUrl ? withDatabase(config.databaseUrl, 'rsg_bench_market_rent') : undefined,
    dataDir: marketRentDataDir,
    embeddedPgPort: Number(process.env.BENCH_PG_PORT ?? 54_391),
  });
}

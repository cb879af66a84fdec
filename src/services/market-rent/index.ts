import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ServiceDefinition } from '../contract.ts';
import { importCommand } from './commands/import-bonds.ts';
import { marketRentRoutes } from './routes/index.ts';
import { MARKET_RENT_INVARIANTS } from './sandbox/invariants.ts';
import { seedMarketRent } from './sandbox/seed.ts';
import { exportBondsCommand } from './transfer/export-bonds.ts';

const here = path.dirname(fileURLToPath(import.meta.url));

/** The rental statistics service (spec part B): routes, migrations, the sandbox generator and `rsg import bonds`. */
export const marketRentService: ServiceDefinition = {
  id: 'market-rent',
  title: 'Rental statistics',
  path: '/tenancy-services/market-rent/v2',
  version: '2',
  dialect: 'problem',
  routes: marketRentRoutes,
  migrations: path.join(here, 'migrations'),
  seed: seedMarketRent,
  invariants: MARKET_RENT_INVARIANTS,
  settings: {
    /** Memory for finished /statistics answers per process and environment, in MB (0: none kept). */
    answerCacheMegabytes: { variable: 'RSG_MARKET_RENT_ANSWER_CACHE_MB', default: 128, min: 0, max: 65_536 },
    /**
     * 1: compute made-up national answers while the process starts, so V8 has compiled the statistics
     * code before the first real query (engine/warm-up.ts; about a quarter of a second, once a process),
     * and make a national answer's working memory ready (reserveWorkingMemory in engine/report.ts).
     */
    warmUp: { variable: 'RSG_MARKET_RENT_WARM_UP', default: 1, min: 0, max: 1 },
    /**
     * 1: a national /statistics answer is made on two cores, the histograms and rows of its first areas
     * made by a report thread (engine/report-thread.ts) while this thread makes the rest; 0: on one thread.
     * Either way the same bytes. No effect on a machine with one core.
     */
    reportThread: { variable: 'RSG_MARKET_RENT_REPORT_THREAD', default: 1, min: 0, max: 1 },
  },
  commands: [importCommand, exportBondsCommand],
};

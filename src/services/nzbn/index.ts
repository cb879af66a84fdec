import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BILLING_ERRORS } from '../../billing/errors.ts';
import { transferCommands } from '../../platform/transfer/command.ts';
import type { ServiceDefinition } from '../contract.ts';
import { BULK_COLUMNS, BULK_DATASET } from './domain/bulk-record.ts';
import { NZBN_ERRORS } from './errors.ts';
import { BulkExportJob, DEFAULT_BULK_DATA_MONTHS, exportBusinessNumbers } from './jobs/bulk-export.ts';
import { NzbnJobs } from './jobs/index.ts';
import { PLACE as DOCUMENTS } from './operations/document-files.ts';
import { nzbnPublicRoutes } from './routes/files.ts';
import { nzbnRoutes } from './routes/index.ts';
import { OURS_DESCRIPTION } from './routes/org-part-access.ts';
import { simulateActivity } from './sandbox/activity.ts';
import { sandboxDocuments } from './sandbox/documents.ts';
import { NZBN_INVARIANTS } from './sandbox/invariants.ts';
import { seedNzbn } from './sandbox/seed.ts';
import { NZBN_DESCRIPTION } from './schemas/replaced.ts';
import { nzbnWebhooks } from './schemas/webhooks.ts';
import { businessNumberRegister } from './store/business-numbers.ts';
import { pushDeliveriesOf } from './store/delivery.ts';
import { nzbnTransfer } from './transfer/index.ts';

const here = path.dirname(fileURLToPath(import.meta.url));

/** The business number register (spec part E, `/nzbn/v5`): routes, migrations, the sandbox seed and the
 * watchlist jobs. */
export const nzbnService: ServiceDefinition = {
  documents: DOCUMENTS,
  id: 'nzbn',
  title: 'Business number register',
  path: '/nzbn/v5',
  version: '5',
  dialect: 'nzbn',
  errorCodes: [...Object.values(NZBN_ERRORS), ...Object.values(BILLING_ERRORS)],
  // The generated entities' documents (not stored by the seed) come from the sandbox generator: wired
  // here, into the routes, the jobs and the bulk export, never imported by the store.
  routes: nzbnRoutes(sandboxDocuments),
  // A document's bytes for a signed URL (no key: the signature is the permission).
  publicRoutes: nzbnPublicRoutes(sandboxDocuments),
  description: `${NZBN_DESCRIPTION}\n\n${OURS_DESCRIPTION}`,
  openapi: nzbnWebhooks,
  migrations: path.join(here, 'migrations'),
  commands: transferCommands(nzbnTransfer(sandboxDocuments)),
  seed: (context) => seedNzbn(context),
  invariants: NZBN_INVARIANTS,
  businessNumberRegister,
  // The request inspector's view of a subscription's watchlists' pushes (the portal never reads our tables).
  pushDeliveries: (database, subscriptionId, limit) => pushDeliveriesOf(database.pool, subscriptionId, limit),
  settings: {
    /** Sandbox: simulated register changes per hour of the sandbox clock (0: none). */
    sandboxActivityPerHour: { variable: 'RSG_SANDBOX_ACTIVITY_PER_HOUR', default: 30, min: 0, max: 100_000 },
    /** Months of bulk data files kept (the newest included); older ones are deleted after an export. */
    bulkDataMonths: { variable: 'RSG_BULK_DATA_MONTHS', default: DEFAULT_BULK_DATA_MONTHS, min: 1, max: 120 },
  },
  bulkData: {
    dataset: BULK_DATASET,
    title: 'Business number register: every entity’s public data',
    jsonRecord: 'an entity as GET /entities/{nzbn} answers it without business authority',
    columns: BULK_COLUMNS,
    exportNow: (input) => exportBusinessNumbers(input, sandboxDocuments),
  },
  jobs: async (context) => {
    // The simulated register activity is the sandbox's alone.
    const rate = context.environment === 'sandbox' ? (context.settings.sandboxActivityPerHour ?? 0) : 0;
    const jobs = new NzbnJobs(context, {
      // The sandbox's simulated register activity, on the sandbox clock (sandbox/activity.ts).
      ...(rate > 0
        ? {
            activity: (pool, now) =>
              simulateActivity(pool, now, {
                ratePerHour: rate,
                log: (line) => context.log.info({ service: 'nzbn' }, line),
              }),
          }
        : {}),
    });
    await jobs.start();
    const bulk = new BulkExportJob(context, {
      database: context.database,
      clock: context.clock,
      documents: sandboxDocuments,
    });
    bulk.start();
    return {
      describe: () => `${jobs.describe()}, ${bulk.describe()}`,
      wake: () => {
        jobs.wake();
        bulk.wake();
      },
      settle: async () => {
        await jobs.settle();
        await bulk.settle();
      },
      stop: async () => {
        await Promise.all([jobs.stop(), bulk.stop()]);
      },
    };
  },
};

import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BILLING_ERRORS, DIRECT_CREDIT_ERRORS } from '../../billing/errors.ts';
import { SOAP_BODY_ERRORS, SOAP_ERRORS } from '../../platform/http/error-codes.ts';
import { transferCommands } from '../../platform/transfer/command.ts';
import type { ServiceDefinition } from '../contract.ts';
import { PLACE as DOCUMENTS } from './documents/location.ts';
import { IPONZ_ERRORS } from './errors.ts';
import { startIponzJobs } from './jobs/index.ts';
import { iponzRoutes } from './routes/index.ts';
import { IPONZ_INVARIANTS } from './sandbox/invariants.ts';
import { seedIponz } from './sandbox/seed.ts';
import { iponzTransfer } from './transfer/index.ts';

const here = path.dirname(fileURLToPath(import.meta.url));

/** The intellectual property office (spec part C, `/iponz/v5`): REST JSON and XML operations, renewals. */
export const iponzService: ServiceDefinition = {
  documents: DOCUMENTS,
  id: 'iponz',
  title: 'Intellectual property office',
  path: '/iponz/v5',
  version: '5',
  dialect: 'problem',
  // Fee-bearing operations need, in production, "direct debit or direct credit set up" (spec part C).
  acceptsDirectCredit: true,
  errorCodes: [
    ...Object.values(IPONZ_ERRORS),
    ...Object.values(BILLING_ERRORS),
    ...Object.values(DIRECT_CREDIT_ERRORS),
    // The SOAP operations' faults and the failures they answer with HTTP 200.
    ...[...Object.values(SOAP_ERRORS), ...Object.values(SOAP_BODY_ERRORS)].map((code) => ({
      ...code,
      dialect: 'soap' as const,
    })),
  ],
  routes: iponzRoutes,
  migrations: path.join(here, 'migrations'),
  seed: (context) => seedIponz(context),
  invariants: IPONZ_INVARIANTS,
  jobs: startIponzJobs,
  commands: transferCommands(iponzTransfer()),
  settings: {
    // The document download's time limit (published: 120 s); 0 fails every download at once (tests).
    downloadTimeoutMs: {
      variable: 'RSG_IPONZ_DOWNLOAD_TIMEOUT_MS',
      default: 120_000,
      min: 0,
      max: 3_600_000,
    },
  },
};

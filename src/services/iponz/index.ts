import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BILLING_ERRORS, IPONZ_ERRORS } from '../../platform/http/error-codes.ts';
import type { ServiceDefinition } from '../contract.ts';
import { startIponzJobs } from './jobs/index.ts';
import { iponzRoutes } from './routes/index.ts';
import { seedIponz } from './sandbox/seed.ts';

const here = path.dirname(fileURLToPath(import.meta.url));

/** The intellectual property office (spec part C, `/iponz/v5`): REST JSON and XML operations, renewals. */
export const iponzService: ServiceDefinition = {
  id: 'iponz',
  title: 'Intellectual property office',
  path: '/iponz/v5',
  version: '5',
  dialect: 'problem',
  errorCodes: [...Object.values(IPONZ_ERRORS), ...Object.values(BILLING_ERRORS)],
  routes: iponzRoutes,
  migrations: path.join(here, 'migrations'),
  seed: (context) => seedIponz(context),
  jobs: startIponzJobs,
};

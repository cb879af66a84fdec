import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { transferCommands } from '../../platform/transfer/command.ts';
import type { ServiceDefinition } from '../contract.ts';
import { DISCLOSE_ERRORS } from './errors.ts';
import { disclosePublicRoutes, discloseRoutes } from './routes/index.ts';
import { DISCLOSE_INVARIANTS } from './sandbox/invariants.ts';
import { seedDisclose } from './sandbox/seed.ts';
import { discloseTransfer } from './transfer/index.ts';

const here = path.dirname(fileURLToPath(import.meta.url));

/** The offers register (spec part A): routes, migrations and the sandbox generator. */
export const discloseService: ServiceDefinition = {
  id: 'disclose',
  title: 'Offers register',
  path: '/companies-office/disclose-register/v1',
  version: '1',
  dialect: 'problem',
  errorCodes: Object.values(DISCLOSE_ERRORS),
  routes: discloseRoutes,
  publicRoutes: disclosePublicRoutes,
  migrations: path.join(here, 'migrations'),
  invariants: DISCLOSE_INVARIANTS,
  seed: (context) => seedDisclose(context),
  commands: transferCommands(discloseTransfer()),
  settings: {
    /** Offer and scheme detail answers kept rendered per process and environment (0: none kept). */
    answerCacheEntries: { variable: 'RSG_DISCLOSE_ANSWER_CACHE', default: 2_000, min: 0, max: 1_000_000 },
  },
};

import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BILLING_ERRORS } from '../../billing/errors.ts';
import { GATEWAY_TIMEOUT } from '../../platform/http/error-codes.ts';
import { transferCommands } from '../../platform/transfer/command.ts';
import type { ServiceDefinition } from '../contract.ts';
import { serverKeysCommand } from './commands/server-keys.ts';
import { PPSR_ERRORS } from './errors.ts';
import { startPpsrJobs } from './jobs/index.ts';
import { ppsrRoutes } from './routes/index.ts';
import { PPSR_INVARIANTS } from './sandbox/invariants.ts';
import { seedPpsr } from './sandbox/seed.ts';
import { ppsrTransfer } from './transfer/index.ts';

const here = path.dirname(fileURLToPath(import.meta.url));

/**
 * The document's security (published): the subscription key always, and preferably a three-legged OAuth2
 * token of a register user (authorization code, from the gateway's authorization server at /oauth2).
 */
const PPSR_OPENAPI = {
  components: {
    securitySchemes: {
      subscriptionKey: { type: 'apiKey', in: 'header', name: 'Ocp-Apim-Subscription-Key' },
      subscriptionKeyQuery: { type: 'apiKey', in: 'query', name: 'subscription-key' },
      oauth2: {
        type: 'oauth2',
        description:
          'Preferred (published): a three-legged token of a register user; every operation then acts for that user’s organisation.',
        flows: {
          authorizationCode: {
            authorizationUrl: '/oauth2/auth',
            tokenUrl: '/oauth2/token',
            scopes: { 'ppsr:read': 'Read (GET operations)', 'ppsr:write': 'Write (every other operation)' },
          },
        },
      },
    },
  },
  security: [
    { subscriptionKey: [], oauth2: [] },
    { subscriptionKeyQuery: [], oauth2: [] },
    { subscriptionKey: [] },
    { subscriptionKeyQuery: [] },
  ],
};

/** The secured interests register (spec part D, `/ppsr/v2`): routes, migrations, the sandbox seed and
 * the verification statements' mailing. */
export const ppsrService: ServiceDefinition = {
  id: 'ppsr',
  title: 'Secured interests register',
  path: '/ppsr/v2',
  version: '2',
  dialect: 'problem',
  errorCodes: [GATEWAY_TIMEOUT, ...Object.values(PPSR_ERRORS), ...Object.values(BILLING_ERRORS)],
  routes: ppsrRoutes,
  openapi: PPSR_OPENAPI,
  migrations: path.join(here, 'migrations'),
  seed: seedPpsr,
  invariants: PPSR_INVARIANTS,
  settings: {
    /** Published: every operation times out on the platform after 180 seconds (504 at the gateway). */
    platformTimeoutMs: { variable: 'RSG_PPSR_PLATFORM_TIMEOUT_MS', default: 180_000, min: 100, max: 600_000 },
    /** Sandbox: a delay before every transaction's work, to rehearse timeouts (0: none). */
    sandboxDelayMs: { variable: 'RSG_PPSR_SANDBOX_DELAY_MS', default: 0, min: 0, max: 900_000 },
  },
  /** Published: requests are rate limited per user per minute (the number is not; ours: 120). */
  userRateLimit: { perMinute: 120, variable: 'RSG_PPSR_USER_RATE_LIMIT' },
  jobs: async (context) => startPpsrJobs(context),
  commands: [serverKeysCommand, ...transferCommands(ppsrTransfer())],
};

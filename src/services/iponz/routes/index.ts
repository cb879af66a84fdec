/**
 * The IP office API (v5), REST operations, mounted by the gateway under /sandbox/iponz/v5 and
 * /gateway/iponz/v5. Errors (a RuleError included) go to the platform's error handler: problem+json,
 * a broken rule a 400 naming the field and the rule.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { ServiceContext } from '../../../gateway/service-context.ts';
import { bibliographicRoutes } from './bibliographic.ts';
import { clientRoutes } from './clients.ts';
import { renewalRoutes } from './renewals.ts';

export const iponzRoutes: FastifyPluginAsync<ServiceContext> = async (app, context) => {
  await clientRoutes(app, context);
  await bibliographicRoutes(app, context);
  await renewalRoutes(app, context);
};

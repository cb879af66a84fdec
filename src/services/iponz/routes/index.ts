/**
 * The IP office API (v5), REST operations, mounted by the gateway under /sandbox/iponz/v5 and
 * /gateway/iponz/v5. Errors (a RuleError included) go to the platform's error handler: problem+json,
 * a broken rule a 400 naming the field and the rule.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { ServiceContext } from '../../../gateway/service-context.ts';
import { nameOperations } from '../../../platform/http/operation-ids.ts';
import { CaseCache } from '../store/case-cache.ts';
import { bibliographicRoutes } from './bibliographic.ts';
import { clientRoutes } from './clients.ts';
import { IPONZ_OPERATION_IDS } from './operation-ids.ts';
import { renewalRoutes } from './renewals.ts';
import { correspondenceRoutes } from './soap-correspondence.ts';
import { soapDownloadRoutes } from './soap-download.ts';
import { filingRoutes } from './soap-filing.ts';
import { soapSearchRoutes } from './soap-search.ts';

export const iponzRoutes: FastifyPluginAsync<ServiceContext> = async (app, context) => {
  nameOperations(app, IPONZ_OPERATION_IDS);
  // Cases read recently, kept while this process listens for their changes (store/case-cache.ts).
  const cases = new CaseCache(context.database.url);
  app.addHook('onClose', async () => cases.close());
  await clientRoutes(app, context);
  await bibliographicRoutes(app, context, cases);
  await renewalRoutes(app, context, cases);
  await filingRoutes(app, context, cases);
  await correspondenceRoutes(app, context, cases);
  await soapSearchRoutes(app, context);
  await soapDownloadRoutes(app, context);
};

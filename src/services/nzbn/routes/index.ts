/**
 * The business number API (v5), mounted by the gateway under /sandbox/nzbn/v5 and /gateway/nzbn/v5.
 * Domain rule failures thrown as FieldProblem are answered as 400s naming the field; everything else
 * goes to the platform's error handler, which speaks this API's dialect.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { ServiceContext } from '../../../gateway/service-context.ts';
import { badRequest } from '../../../platform/http/errors.ts';
import { FieldProblem } from '../domain/items.ts';
import { openEntityCache } from '../store/entity-cache.ts';
import { authorityRoutes } from './authorities.ts';
import { changeRoutes } from './changes.ts';
import { historyRoutes } from './history.ts';
import { partWriteRoutes } from './org-part-writes.ts';
import { partReadRoutes } from './org-parts.ts';
import { listRoutes } from './pbd-lists.ts';
import { replaceRoutes } from './pbd-replace.ts';
import { readRoutes } from './read.ts';
import { registerRoutes } from './register.ts';
import { searchRoutes } from './search.ts';
import { watchlistRoutes } from './watchlists.ts';

export const nzbnRoutes: FastifyPluginAsync<ServiceContext> = async (app, context) => {
  // Entities read recently, kept while this process listens for their changes (store/entity-cache.ts).
  const entityCache = openEntityCache(context.database.url);
  app.addHook('onClose', async () => entityCache.close());
  app.setErrorHandler((error) => {
    if (error instanceof FieldProblem) throw badRequest(error.field, error.rule);
    throw error;
  });
  await searchRoutes(app, context);
  // Before /entities/:nzbn (the router prefers a static path anyway; this keeps it obvious).
  await changeRoutes(app, context);
  await readRoutes(app, context);
  await historyRoutes(app, context);
  await listRoutes(app, context);
  await replaceRoutes(app, context);
  await registerRoutes(app, context);
  await authorityRoutes(app, context);
  await partReadRoutes(app, context);
  await partWriteRoutes(app, context);
  await watchlistRoutes(app, context);
};

/**
 * The business number API (v5), mounted by the gateway under /sandbox/nzbn/v5 and /gateway/nzbn/v5.
 * Every error, a domain rule failure (`RuleError`) included, goes to the platform's error handler, which
 * answers in this API's dialect: a broken rule is a 400 naming the field and the rule.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { ServiceContext } from '../../../gateway/service-context.ts';
import type { NzbnContext } from '../operations/support.ts';
import type { DocumentSource } from '../store/document-source.ts';
import { openEntityCache } from '../store/entity-cache.ts';
import { addressRemovalRoutes } from './address-removal.ts';
import { authorityRoutes } from './authorities.ts';
import { changeRoutes } from './changes.ts';
import { documentRoutes } from './documents.ts';
import { historyRoutes } from './history.ts';
import { partAccessRoutes } from './org-part-access.ts';
import { partItemRoutes } from './org-part-items.ts';
import { partLookupRoutes } from './org-part-lookups.ts';
import { partWriteRoutes } from './org-part-writes.ts';
import { partReadRoutes } from './org-parts.ts';
import { organisationRoutes } from './organisations.ts';
import { listRoutes } from './pbd-lists.ts';
import { replaceRoutes } from './pbd-replace.ts';
import { checkPublishedRoute } from './published.ts';
import { readRoutes } from './read.ts';
import { registerRoutes } from './register.ts';
import { searchRoutes } from './search.ts';
import { userRoutes } from './users.ts';
import { watchlistRoutes } from './watchlists.ts';

/**
 * The routes, given where the documents of generated entities come from (the service wires the sandbox
 * generator's, index.ts): added to the context every operation is given, and to the entity cache.
 */
export function nzbnRoutes(documents: DocumentSource): FastifyPluginAsync<ServiceContext> {
  return async (app, serviceContext) => {
    const context: NzbnContext = { ...serviceContext, documents };
    // Entities read recently, kept while this process listens for their changes (store/entity-cache.ts).
    const entityCache = openEntityCache(context.database.url, documents);
    app.addHook('onClose', async () => entityCache.close());
    // Every operation at its published method and path, under its published code (published.ts).
    app.addHook('onRoute', (route) => checkPublishedRoute(route));
    await searchRoutes(app, context);
    // Before /entities/:nzbn (the router prefers a static path anyway; this keeps it obvious).
    await changeRoutes(app, context);
    await readRoutes(app, context);
    await historyRoutes(app, context);
    await listRoutes(app, context);
    await replaceRoutes(app, context);
    await registerRoutes(app, context);
    await authorityRoutes(app, context);
    await userRoutes(app, context);
    await organisationRoutes(app, context);
    await partReadRoutes(app, context);
    await partWriteRoutes(app, context);
    await partItemRoutes(app, context);
    await partLookupRoutes(app, context);
    await partAccessRoutes(app, context);
    await watchlistRoutes(app, context);
    await documentRoutes(app, context);
    await addressRemovalRoutes(app, context);
  };
}

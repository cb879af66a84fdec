import type { FastifyInstance } from 'fastify';
import { listProducts } from '../../gateway/store/products.ts';
import type { PortalDeps } from '../index.ts';
import { catalogue, searchOperations } from '../operations/reference.ts';
import { organisationIn } from '../operations/sandbox.ts';
import { landingPage, searchPage } from '../pages/landing.ts';
import { sendPage } from '../pages/layout.ts';
import { portalContext } from '../session.ts';
import { queryValue } from './forms.ts';

/**
 * The landing page and the operation search. The operations come from each service's own sandbox
 * document (in-process), read once per process.
 */
export function landingRoutes(scope: FastifyInstance, deps: PortalDeps): void {
  const pool = deps.runtime.gateway.pool;

  scope.get('/', async (request, reply) => {
    const user = portalContext(request).user;
    const [registers, products] = await Promise.all([catalogue(deps), listProducts(pool)]);
    const organisation = user ? ((await organisationIn(pool, user.id)) ?? null) : null;
    const operator = user?.isOperator
      ? { now: deps.runtime.clocks.for('sandbox').now(), simulated: deps.runtime.config.sandboxMaintenance }
      : undefined;
    const base = deps.runtime.publicUrl.base;
    const page = landingPage(request, {
      registers,
      products,
      base,
      organisation,
      ...(operator && { operator }),
    });
    return sendPage(request, reply, 'Developer portal', page);
  });

  scope.get('/search', async (request, reply) => {
    const raw = queryValue(request.query, 'q').slice(0, 200);
    const words = raw.toLowerCase().split(/\s+/).filter(Boolean);
    const [registers, products] = await Promise.all([catalogue(deps), listProducts(pool)]);
    const hits = searchOperations(registers, words);
    return sendPage(
      request,
      reply,
      raw ? `Search: ${raw}` : 'Search',
      searchPage(raw, words, hits, products),
    );
  });
}

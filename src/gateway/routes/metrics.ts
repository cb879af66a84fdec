import type { FastifyInstance } from 'fastify';
import { APIM_ERRORS } from '../../platform/http/error-codes.ts';
import { HttpError, sendError } from '../../platform/http/errors.ts';
import { INVALID_KEY, MISSING_KEY, presentedKey } from '../http/guard.ts';
import type { KeyCache } from '../http/key-cache.ts';
import type { HttpMetrics } from '../http/metrics.ts';

/**
 * `/metrics` on the main (public) port: only for an operator, who shows any active subscription key of
 * theirs (header or query, as for the services); anyone else gets API Management's 401. Scrapers on the
 * host use the metrics port instead (metrics-server.ts), which needs no key.
 */
export function operatorMetricsRoute(app: FastifyInstance, keys: KeyCache, metrics: HttpMetrics): void {
  app.get('/metrics', async (request, reply) => {
    const key = presentedKey(request);
    if (!key) return sendError(request, reply, new HttpError(APIM_ERRORS.missingKey, MISSING_KEY), 'apim');
    const owner = key.length <= 256 ? await keys.lookup(key) : undefined;
    if (owner?.state !== 'active' || !owner.isOperator) {
      return sendError(request, reply, new HttpError(APIM_ERRORS.invalidKey, INVALID_KEY), 'apim');
    }
    return reply
      .header('cache-control', 'no-store')
      .type(metrics.registry.contentType)
      .send(await metrics.registry.metrics());
  });
}

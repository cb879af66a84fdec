import type { FastifyInstance } from 'fastify';
import { Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client';
import { HttpError, sendError } from '../platform/http/errors.ts';
import { INVALID_KEY, MISSING_KEY, presentedKey } from './guard.ts';
import type { KeyCache } from './key-cache.ts';

/** Prometheus metrics; one registry per app so that test apps do not share counters. */
export class HttpMetrics {
  readonly registry = new Registry();
  private readonly requests = new Counter({
    name: 'rsg_http_requests_total',
    help: 'Requests answered, by environment, service and status code class',
    labelNames: ['environment', 'service', 'status'] as const,
    registers: [this.registry],
  });
  private readonly duration = new Histogram({
    name: 'rsg_http_request_duration_seconds',
    help: 'Time to answer a request inside the server',
    labelNames: ['environment', 'service'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
    registers: [this.registry],
  });

  constructor(withProcessMetrics = false) {
    if (withProcessMetrics) collectDefaultMetrics({ register: this.registry, prefix: 'rsg_' });
  }

  /** Label lookups are the costly part of prom-client: bind them once per environment and service. */
  recorder(environment: string, service: string): (status: number, elapsedMs: number) => void {
    const byClass = ['1xx', '2xx', '3xx', '4xx', '5xx'].map((status) =>
      this.requests.labels({ environment, service, status }),
    );
    const duration = this.duration.labels({ environment, service });
    return (status, elapsedMs) => {
      byClass[Math.min(Math.max(Math.floor(status / 100), 1), 5) - 1]!.inc();
      duration.observe(elapsedMs / 1000);
    };
  }
}

/**
 * `/metrics` on the main (public) port: only for an operator, who shows any active subscription key of
 * theirs (header or query, as for the services); anyone else gets API Management's 401. Scrapers on the
 * host use the metrics port instead (metrics-server.ts), which needs no key.
 */
export function operatorMetricsRoute(app: FastifyInstance, keys: KeyCache, metrics: HttpMetrics): void {
  app.get('/metrics', async (request, reply) => {
    const key = presentedKey(request);
    if (!key) return sendError(request, reply, new HttpError(401, 'missing-key', MISSING_KEY), 'apim');
    const owner = key.length <= 256 ? await keys.lookup(key) : undefined;
    if (owner?.state !== 'active' || !owner.isOperator) {
      return sendError(request, reply, new HttpError(401, 'invalid-key', INVALID_KEY), 'apim');
    }
    return reply
      .header('cache-control', 'no-store')
      .type(metrics.registry.contentType)
      .send(await metrics.registry.metrics());
  });
}

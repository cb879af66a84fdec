import type { FastifyInstance } from 'fastify';
import { Counter, Gauge, type Registry } from 'prom-client';
import type { LimitStore } from '../../platform/limits/index.ts';

/**
 * Makes the rate-limit store's state visible: with Redis, `rsg_redis_up` (1 while decisions are made on
 * Redis, 0 during an outage or before the first connection) and `rsg_rate_limit_fallback_total`
 * (decisions this process made alone because Redis could not be used), and one log line when an
 * outage begins (warn) and one when exact counting resumes (info), however many requests fall between.
 */
export function reportLimitHealth(app: FastifyInstance, limits: LimitStore, registry: Registry): void {
  const health = limits.health?.bind(limits);
  if (!health) return;
  new Gauge({
    name: 'rsg_redis_up',
    help: 'Whether rate limits and quotas are counted on Redis (1) or in this process alone (0)',
    registers: [registry],
    collect() {
      this.set(health().redis === 'up' ? 1 : 0);
    },
  });
  new Counter({
    name: 'rsg_rate_limit_fallback_total',
    help: 'Rate-limit and quota decisions made in this process alone because Redis could not be used',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(health().localDecisions);
    },
  });
  const unwatch = limits.watch?.((event) => {
    if (event.state === 'down') {
      app.log.warn(
        { redis: 'down', error: event.error },
        'Redis is unreachable: rate limits and quotas are counted in each process alone until it is back',
      );
    } else {
      app.log.info({ redis: 'up' }, 'Redis is back: rate limits and quotas are counted exactly again');
    }
  });
  app.addHook('onClose', async () => unwatch?.());
}

import { Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client';

/** Prometheus metrics at /metrics; one registry per app so that test apps do not share counters. */
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

import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { HttpMetrics } from '../../src/gateway/http/metrics.ts';

/**
 * The request metrics are kept in plain arrays on the hot path; /metrics must read exactly as
 * prom-client's own Counter and Histogram would print the same observations.
 */
function reference() {
  const registry = new Registry();
  const requests = new Counter({
    name: 'rsg_http_requests_total',
    help: 'Requests answered, by environment, service and status code class',
    labelNames: ['environment', 'service', 'status'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'rsg_http_request_duration_seconds',
    help: 'Time to answer a request inside the server',
    labelNames: ['environment', 'service'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
    registers: [registry],
  });
  const observe = (environment: string, service: string, status: number, elapsedMs: number) => {
    const status3 = `${Math.min(Math.max(Math.floor(status / 100), 1), 5)}xx`;
    requests.labels({ environment, service, status: status3 }).inc();
    duration.labels({ environment, service }).observe(elapsedMs / 1000);
  };
  return { registry, observe };
}

const CALLS: [string, string, number, number][] = [
  ['production', 'companies', 200, 12.5],
  ['sandbox', 'nzbn', 200, 0.3],
  ['sandbox', 'nzbn', 404, 3],
  ['sandbox', 'nzbn', 503, 2000],
  ['sandbox', 'nzbn', 429, 0.5],
  ['sandbox', 'nzbn', 101, 20_000],
  ['sandbox', 'nzbn', 200, 0.1 + 0.2],
  ['production', 'companies', 302, 1],
  ['sandbox', 'nzbn', 200, 0.0005 * 1000],
  ['sandbox', 'nzbn', 200, 10_000],
];

describe('HttpMetrics', () => {
  it('prints what prom-client prints for the same calls (text and JSON, after a reset too)', async () => {
    const ours = new HttpMetrics();
    const recorders = new Map<string, (status: number, elapsedMs: number) => void>();
    for (const [environment, service] of [
      ['sandbox', 'nzbn'],
      ['production', 'nzbn'],
      ['production', 'companies'],
    ])
      recorders.set(`${environment}/${service}`, ours.recorder(environment!, service!));
    const theirs = reference();
    for (const [environment, service, status, ms] of CALLS) {
      recorders.get(`${environment}/${service}`)!(status, ms);
      theirs.observe(environment, service, status, ms);
    }
    expect(await ours.registry.metrics()).toBe(await theirs.registry.metrics());
    expect(await ours.registry.getMetricsAsJSON()).toEqual(await theirs.registry.getMetricsAsJSON());
    expect(await ours.registry.metrics()).toContain(
      'rsg_http_requests_total{environment="sandbox",service="nzbn",status="4xx"} 2',
    );

    ours.registry.resetMetrics();
    theirs.registry.resetMetrics();
    recorders.get('sandbox/nzbn')!(500, 7);
    theirs.observe('sandbox', 'nzbn', 500, 7);
    expect(await ours.registry.metrics()).toBe(await theirs.registry.metrics());
  });
});

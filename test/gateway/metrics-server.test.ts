import { describe, expect, it } from 'vitest';
import { HttpMetrics } from '../../src/gateway/http/metrics.ts';
import { startMetricsServer } from '../../src/gateway/routes/metrics-server.ts';

const source = (metrics: HttpMetrics) => ({
  contentType: metrics.registry.contentType,
  collect: () => metrics.registry.metrics(),
});

describe('the metrics port', () => {
  it('serves /metrics on loopback without a key; nothing else', async () => {
    const metrics = new HttpMetrics();
    metrics.recorder('sandbox', 'nzbn')(200, 3);
    const server = await startMetricsServer('127.0.0.1', 0, source(metrics), () => {});
    try {
      const base = `http://127.0.0.1:${server!.port}`;
      const scraped = await fetch(`${base}/metrics`);
      expect(scraped.status).toBe(200);
      expect(scraped.headers.get('content-type')).toMatch(/^text\/plain/);
      expect(await scraped.text()).toMatch(
        /rsg_http_requests_total\{environment="sandbox",service="nzbn",status="2xx"\} 1/,
      );
      expect((await fetch(`${base}/`)).status).toBe(404);
      expect((await fetch(`${base}/sandbox/nzbn/v5/openapi.json`)).status).toBe(404);
      expect((await fetch(`${base}/metrics`, { method: 'POST' })).status).toBe(405);
    } finally {
      await server?.close();
    }
  });

  it('a failing collection is a 503 for that scrape; the server stays up', async () => {
    let fail = true;
    const warnings: string[] = [];
    const server = await startMetricsServer(
      '127.0.0.1',
      0,
      {
        contentType: 'text/plain',
        collect: async () => {
          if (fail) throw new Error('Operation timed out.');
          return 'ok 1\n';
        },
      },
      (line) => warnings.push(line),
    );
    try {
      const url = `http://127.0.0.1:${server!.port}/metrics`;
      expect((await fetch(url)).status).toBe(503);
      expect(warnings).toEqual(['metrics: Operation timed out.']);
      fail = false;
      expect(await (await fetch(url)).text()).toBe('ok 1\n');
    } finally {
      await server?.close();
    }
  });

  it('a port in use is a warning, not a failed start', async () => {
    const first = await startMetricsServer('127.0.0.1', 0, source(new HttpMetrics()), () => {});
    const warnings: string[] = [];
    try {
      const second = await startMetricsServer('127.0.0.1', first!.port, source(new HttpMetrics()), (line) =>
        warnings.push(line),
      );
      expect(second).toBeUndefined();
      expect(warnings[0]).toMatch(/metrics port 127\.0\.0\.1:\d+ cannot be used \(EADDRINUSE\)/);
    } finally {
      await first?.close();
    }
  });
});

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * `/metrics` on its own port (`RSG_METRICS_PORT`, 127.0.0.1 by default), apart from the public one: a
 * Prometheus scraper on the host reads it with no credential, and nothing outside the host can. With
 * `--workers N` the primary process serves it with every worker's figures summed (see start.ts).
 */
export interface MetricsServer {
  host: string;
  port: number;
  close(): Promise<void>;
}

export interface MetricsSource {
  contentType: string;
  collect(): Promise<string>;
}

export async function startMetricsServer(
  host: string,
  port: number,
  source: MetricsSource,
  warn: (message: string) => void,
): Promise<MetricsServer | undefined> {
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    if (path !== '/metrics') {
      response
        .writeHead(404, { 'content-type': 'text/plain; charset=utf-8' })
        .end('not found: try /metrics\n');
      return;
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' }).end();
      return;
    }
    source.collect().then(
      (body) => {
        response.writeHead(200, { 'content-type': source.contentType, 'cache-control': 'no-store' });
        response.end(request.method === 'HEAD' ? undefined : body);
      },
      (error: unknown) => {
        // A worker that does not answer in time (cluster aggregation) fails this scrape, not the server.
        warn(`metrics: ${(error as Error)?.message ?? String(error)}`);
        response
          .writeHead(503, { 'content-type': 'text/plain; charset=utf-8', 'retry-after': '5' })
          .end('metrics are unavailable for the moment\n');
      },
    );
  });
  server.keepAliveTimeout = 5_000;
  const listening = await new Promise<boolean>((resolve) => {
    const onError = (error: NodeJS.ErrnoException) => {
      // Another gateway on this host may hold the port: serve on without it (operators still reach
      // /metrics on the main port with their key) rather than refuse to start.
      warn(
        `warning: the metrics port ${host}:${port} cannot be used (${error.code ?? error.message}); /metrics stays available to operators on the main port. Set RSG_METRICS_PORT to another port, or off.`,
      );
      resolve(false);
    };
    server.once('error', onError);
    server.listen({ host, port }, () => {
      server.off('error', onError);
      server.on('error', (error) => warn(`metrics server: ${error.message}`));
      resolve(true);
    });
  });
  if (!listening) return undefined;
  const address = server.address() as AddressInfo;
  return {
    host,
    port: address.port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}

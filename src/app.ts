import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance, LogController } from 'fastify';
import { adminRoutes } from './gateway/admin.ts';
import { HttpMetrics } from './gateway/metrics.ts';
import { mountService } from './gateway/mount.ts';
import { oauthRoutes } from './identity/oauth/routes.ts';
import { installErrorHandling } from './platform/http/errors.ts';
import { installInputTextCheck } from './platform/http/input-text.ts';
import { portalRoutes } from './portal/index.ts';
import type { Runtime } from './runtime.ts';
import { ENVIRONMENTS, SERVICES, type ServiceDefinition } from './services/registry.ts';

export const REQUEST_ID_HEADER = 'api-business-govt-nz-request-id';
const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export interface AppOptions {
  /** Services to mount; the five registers by default. Benchmarks and tests mount their own. */
  services?: readonly ServiceDefinition[];
  logger?: boolean;
  processMetrics?: boolean;
}

export async function buildApp(runtime: Runtime, options: AppOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: options.logger === false ? false : { level: runtime.config.logLevel },
    // The client's request id (or a fresh UUID) names the request in logs and in the response.
    genReqId: (request) => {
      const supplied = request.headers[REQUEST_ID_HEADER];
      return typeof supplied === 'string' && SAFE_REQUEST_ID.test(supplied) ? supplied : randomUUID();
    },
    logController: new LogController({
      requestIdLogLabel: 'requestId',
      disableRequestLogging: runtime.config.logLevel !== 'debug' && runtime.config.logLevel !== 'trace',
    }),
    bodyLimit: 25 * 1024 * 1024,
    routerOptions: { ignoreTrailingSlash: true },
  });
  installErrorHandling(app);
  installInputTextCheck(app);
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('api-business-govt-nz-Request-Id', request.id);
    done();
  });

  const metrics = new HttpMetrics(options.processMetrics ?? false);
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_request, reply) => {
    const checks = await Promise.allSettled([
      runtime.gateway.pool.query('SELECT 1'),
      runtime.environments.sandbox.pool.query('SELECT 1'),
      runtime.environments.production.pool.query('SELECT 1'),
    ]);
    const names = ['gateway', 'sandbox', 'production'];
    const databases = Object.fromEntries(
      checks.map((check, i) => [names[i], check.status === 'fulfilled' ? 'ok' : 'down']),
    );
    const ready = checks.every((check) => check.status === 'fulfilled');
    return reply
      .code(ready ? 200 : 503)
      .send({ status: ready ? 'ready' : 'not ready', databases, limits: runtime.limits.kind });
  });
  app.get('/metrics', async (_request, reply) =>
    reply.type(metrics.registry.contentType).send(await metrics.registry.metrics()),
  );

  await adminRoutes(app, runtime);
  await oauthRoutes(app, runtime);
  await portalRoutes(app, runtime);
  for (const environment of ENVIRONMENTS) {
    for (const service of options.services ?? SERVICES) {
      await mountService(app, runtime, metrics, environment, service);
    }
  }
  return app;
}

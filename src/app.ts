import Fastify, { type FastifyInstance, LogController } from 'fastify';
import type { DestinationStream } from 'pino';
import { reportInspectorDrops } from './gateway/http/inspector.ts';
import { reportLimitHealth } from './gateway/http/limit-health.ts';
import { HttpMetrics } from './gateway/http/metrics.ts';
import { dialectOfUrl, mountService } from './gateway/http/mount.ts';
import { adminRoutes } from './gateway/routes/admin.ts';
import { operatorMetricsRoute } from './gateway/routes/metrics.ts';
import { oauthRoutes } from './identity/routes/oauth.ts';
import { ping } from './platform/db/pool.ts';
import { AnswerMarks, REQUEST_ID_HEADER } from './platform/http/answer-marks.ts';
import { installBodyDeadlines } from './platform/http/body-deadline.ts';
import { DEFAULT_BODY_LIMIT } from './platform/http/body-limit.ts';
import { PLATFORM_ERRORS } from './platform/http/error-codes.ts';
import {
  badRequest,
  HttpError,
  installErrorHandling,
  sendError,
  toHttpError,
} from './platform/http/errors.ts';
import { installInputTextCheck } from './platform/http/input-text.ts';
import { keepTickShapes } from './platform/http/kept-shapes.ts';
import { makeChildrenLazy } from './platform/http/lazy-logger.ts';
import { loggerOptions } from './platform/http/log-redaction.ts';
import { requestIdOf } from './platform/http/request-id.ts';
import { sharedSerializers, shareValidators } from './platform/http/schema-compilers.ts';
import { portalRoutes } from './portal/index.ts';
import type { Runtime } from './runtime.ts';
import { ENVIRONMENTS, type ServiceDefinition } from './services/contract.ts';

export { REQUEST_ID_HEADER };

/** Longest path parameter the router takes; a longer one is 414 in the API's dialect. */
const MAX_PATH_PARAMETER = 500;

export interface AppOptions {
  /** Services to mount; the five registers by default. Benchmarks and tests mount their own. */
  services?: readonly ServiceDefinition[];
  logger?: boolean;
  /** Where log lines go (standard output by default); tests capture them to check what they hold. */
  logStream?: DestinationStream;
  processMetrics?: boolean;
  /** The registry to count in (`rsg start` also serves it on the metrics port); a fresh one if absent. */
  metrics?: HttpMetrics;
}

export async function buildApp(runtime: Runtime, options: AppOptions = {}): Promise<FastifyInstance> {
  // process.nextTick stays fast after a quiet spell (V8 keeps its tick objects' maps): kept-shapes.ts.
  keepTickShapes();
  const app = Fastify({
    // Secret query parameters, headers and fields are censored in every line: platform/http/log-redaction.ts.
    logger: options.logger === false ? false : loggerOptions(runtime.config.logLevel, options.logStream),
    // The client's request id (or a fresh random UUID) names the request in logs and in the response;
    // only a client's own id is ever an idempotency key (callerRequestId, platform/http/request-id.ts).
    genReqId: requestIdOf,
    logController: new LogController({
      requestIdLogLabel: 'requestId',
      disableRequestLogging: runtime.config.logLevel !== 'debug' && runtime.config.logLevel !== 'trace',
    }),
    // Every route reads at most this much (the largest real body, a watchlist of 1,000 numbers, is about
    // 30 kB); a route that takes more sets its own `bodyLimit`. See docs/operations.md, "Request input".
    bodyLimit: DEFAULT_BODY_LIMIT,
    // X-Forwarded-For and -Proto are believed only from the configured proxies (RSG_TRUSTED_PROXIES), so
    // request.ip (sign-in throttles) is not whatever a client writes there. Absolute URLs never come from
    // the request at all: runtime.publicUrl.
    trustProxy: runtime.config.trustedProxies.length ? runtime.config.trustedProxies : false,
    // Graceful shutdown (docs/operations.md): once closing, a request that still arrives on an open
    // connection is served as usual with `Connection: close` rather than refused with 503; idle
    // keep-alive connections are closed at once (Fastify's default `forceCloseConnections: 'idle'`).
    return503OnClosing: false,
    // Each schema is compiled once per process, however many environments and apps use it: most of a
    // start's time was compiling the same schemas again (schema-compilers.ts).
    ajv: { onCreate: shareValidators },
    schemaController: { compilersFactory: { buildSerializer: sharedSerializers } },
    // Registering every register's routes compiles a few thousand schemas: on a busy machine (two cores
    // shared with other work) that can take longer than Fastify's ten-second default for one plugin.
    // A plugin that truly hangs still fails the start, after a minute.
    pluginTimeout: 60_000,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PATH_PARAMETER },
    // What the router refuses before any route runs (a path that is not valid percent-encoding, a path
    // segment too long to be a parameter) still answers in the addressed API's own error dialect.
    frameworkErrors: (error, request, reply) => {
      const dialect = dialectOfUrl(request.url, options.services ?? runtime.services);
      const refusal =
        error.code === 'FST_ERR_MAX_PARAM_LENGTH'
          ? new HttpError(
              PLATFORM_ERRORS.uriTooLong,
              `path: a segment is longer than ${MAX_PATH_PARAMETER} characters`,
              [{ field: 'path', message: `a segment is longer than ${MAX_PATH_PARAMETER} characters` }],
            )
          : error.code === 'FST_ERR_BAD_URL'
            ? badRequest('path', 'is not valid percent-encoding of UTF-8 text (RFC 3986)')
            : toHttpError(error, request);
      // These answers skip the onRequest hooks: the request id header is set here.
      reply.header('api-business-govt-nz-Request-Id', request.id);
      if (refusal.status >= 500) request.log.error({ err: error }, 'request failed');
      return sendError(request, reply, refusal, dialect);
    },
  });
  // Without RSG_PUBLIC_URL, absolute URLs name the address this server listens on (PORT=0: known now).
  app.addHook('onListen', (done) => {
    runtime.publicUrl.listening(app.server.address());
    done();
  });
  // The per-request child logger is made only if the request logs (most never do): lazy-logger.ts.
  makeChildrenLazy(app.log);
  // The request id header on every answer, and Connection: close once shutting down (answer-marks.ts).
  const marks = new AnswerMarks(app.server);
  // The root's 404 (a path outside every API) is in no scope with the onSend hook: it marks itself.
  installErrorHandling(app, (request, reply) => marks.markAnswer(request, reply));
  // Set by the guard on every keyed call; declared up front so every request has one shape (a property
  // added to some requests only would move them to another hidden class on the hot path).
  app.decorateRequest('caller', undefined);
  // The operation kit's context of a declared operation's request (platform/http/operation.ts).
  app.decorateRequest('operation', undefined);
  installInputTextCheck(app);
  // Every request body arrives within a bound, or is answered 408 in its API's dialect and its connection
  // closed; the rest of a body answered early is read for a short while only (body-deadline.ts).
  installBodyDeadlines(app, app.server, {
    baseMs: runtime.config.bodies.timeoutMs,
    uploadRate: runtime.config.bodies.uploadMinRate,
  });

  const metrics = options.metrics ?? new HttpMetrics(options.processMetrics ?? false);
  reportLimitHealth(app, runtime.limits, metrics.registry);
  reportInspectorDrops(metrics.registry, () => runtime.inspector.stats());
  app.addHook('preClose', (done) => {
    marks.close();
    done();
  });
  // The services first, each in scopes of its own: a guarded route marks its answer in the guard's
  // onRequest hook and runs no onSend hook (mount.ts). Everything else is in the scope below, whose one
  // onSend hook marks its answers.
  for (const environment of ENVIRONMENTS) {
    for (const service of options.services ?? runtime.services) {
      await mountService(app, runtime, metrics, marks, environment, service);
    }
  }
  await app.register(async (site) => {
    site.addHook('onSend', marks.onSend);
    await siteRoutes(site, runtime, metrics, marks);
  });
  return app;
}

/** The gateway's own routes: health, readiness, metrics, administration, OAuth and the portal. */
async function siteRoutes(
  app: FastifyInstance,
  runtime: Runtime,
  metrics: HttpMetrics,
  marks: AnswerMarks,
): Promise<void> {
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_request, reply) => {
    // Not ready once shutting down, so a load balancer that polls /readyz stops sending.
    if (marks.closing) return reply.code(503).send({ status: 'shutting down' });
    // A sandbox held by a reset is let go of for a moment on purpose: its requests wait, still ready.
    const resetting = !runtime.sandbox.open;
    const checks = await Promise.allSettled([
      ping(runtime.gateway.pool),
      resetting ? Promise.resolve() : ping(runtime.environments.sandbox.pool),
      ping(runtime.environments.production.pool),
    ]);
    const names = ['gateway', 'sandbox', 'production'];
    const databases = Object.fromEntries(
      checks.map((check, i) => [names[i], check.status === 'fulfilled' ? 'ok' : 'down']),
    );
    if (resetting) databases.sandbox = 'resetting';
    const ready = checks.every((check) => check.status === 'fulfilled');
    return reply
      .code(ready ? 200 : 503)
      .send({ status: ready ? 'ready' : 'not ready', databases, limits: runtime.limits.kind });
  });
  operatorMetricsRoute(app, runtime.keys, metrics);

  await adminRoutes(app, runtime);
  await oauthRoutes(app, runtime);
  await portalRoutes(app, runtime);
}

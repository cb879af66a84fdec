import swagger from '@fastify/swagger';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { readUserRateLimit } from '../../config.ts';
import type { AnswerMarks } from '../../platform/http/answer-marks.ts';
import { auditDeclaredInput } from '../../platform/http/declared-validators.ts';
import { APIM_ERRORS, PLATFORM_ERRORS, serviceErrorCodes } from '../../platform/http/error-codes.ts';
import { type Dialect, HttpError, sendError } from '../../platform/http/errors.ts';
import { URL_TEXT_CHECKED_ON_REQUEST, urlTextRefusal } from '../../platform/http/input-text.ts';
import { keepRequestShapes } from '../../platform/http/kept-shapes.ts';
import type { Runtime } from '../../runtime.ts';
import {
  ENVIRONMENT_PREFIX,
  ENVIRONMENTS,
  type Environment,
  type ServiceDefinition,
} from '../../services/contract.ts';
import { serviceContext } from '../service-context.ts';
import { applyActual, isPreflight, preflightRoutes } from './cors.ts';
import { CorsPolicies } from './cors-policies.ts';
import { subscriptionGuard } from './guard.ts';
import { maintenanceHook } from './maintenance.ts';
import type { HttpMetrics } from './metrics.ts';
import { documentGatewayRefusals } from './openapi-refusals.ts';

/**
 * Mounts one service in one environment under `<prefix><service path>`: its error dialect, its own
 * OpenAPI document at `openapi.json` (public, like a developer portal's API reference), and its routes
 * behind the subscription guard (and, in the sandbox when configured, the simulated maintenance window).
 * CORS preflights are answered here, before the guard: a browser sends no key on a preflight.
 */
export async function mountService(
  app: FastifyInstance,
  runtime: Runtime,
  metrics: HttpMetrics,
  marks: AnswerMarks,
  environment: Environment,
  service: ServiceDefinition,
): Promise<void> {
  const prefix = `${ENVIRONMENT_PREFIX[environment]}${service.path}`;
  const context = serviceContext(runtime, environment, service);
  const observe = metrics.recorder(environment, service.id);
  const corsKey = CorsPolicies.key(environment, service.id);
  const notFound = (request: FastifyRequest, reply: FastifyReply) =>
    sendError(request, reply, new HttpError(APIM_ERRORS.unknownOperation, 'Resource not found'), 'apim');
  // Every error code a client of this API can meet, with its status, dialect and meaning.
  const errorCatalogue: Record<string, unknown> = {
    'x-error-codes': serviceErrorCodes(service.dialect, service.errorCodes, { built: !!service.routes }),
  };
  // The service's per-user limit (calls per user per minute, its variable read), also in its document.
  const userRateLimit = readUserRateLimit(runtime.config.variables, service.userRateLimit);
  const userLimitNote = userRateLimit ? { 'x-user-rate-limit': { perMinute: userRateLimit } } : {};
  // Every request of the service's paths gets its dialect and, unless it is a preflight, the CORS headers
  // of an allowed origin, first: so the guard's refusals (401, 429 + Retry-After) are readable by the
  // page too. On the guarded routes this runs inside the guard's hook (each hook costs every call a turn
  // of Fastify's hook runner); the routes outside the guard and the 404 run it on their own.
  const prepare = (request: FastifyRequest, reply: FastifyReply): void => {
    request.dialect = service.dialect;
    if (!isPreflight(request)) applyActual(runtime.cors.get(corsKey), request, reply);
  };
  const prepareHook = (request: FastifyRequest, reply: FastifyReply, done: () => void): void => {
    prepare(request, reply);
    done();
  };
  await app.register(
    async (scope) => {
      scope.addHook('onResponse', (request, reply, done) => {
        observe(reply.statusCode, reply.elapsedTime);
        if (request.caller) runtime.usage.record(request.caller.subscriptionId, reply.statusCode);
        // The guarded routes run no onSend hook, which does this for the others (kept-shapes.ts).
        if (request.body === undefined) keepRequestShapes(request, reply);
        done();
      });
      await scope.register(swagger, {
        openapi: {
          openapi: '3.1.0',
          info: { title: `${service.title} (${environment})`, version: service.version },
          servers: [{ url: prefix }],
          components: {
            securitySchemes: {
              subscriptionKey: { type: 'apiKey', in: 'header', name: 'Ocp-Apim-Subscription-Key' },
              subscriptionKeyQuery: { type: 'apiKey', in: 'query', name: 'subscription-key' },
            },
          },
          security: [{ subscriptionKey: [] }, { subscriptionKeyQuery: [] }],
          ...errorCatalogue,
          ...userLimitNote,
          ...service.openapi,
        },
        // The guard's 401 and 429 on every operation (openapi-refusals.ts).
        transformObject: (document) =>
          'openapiObject' in document
            ? documentGatewayRefusals(document.openapiObject)
            : document.swaggerObject,
      });
      // The routes outside the guard, with the 404 of the service's paths: `prepare` as a hook of their own.
      await scope.register(async (open) => {
        open.addHook('onRequest', prepareHook);
        // The request id header (and Connection: close once shutting down): answer-marks.ts.
        open.addHook('onSend', marks.onSend);
        open.get('/openapi.json', { schema: { hide: true } }, async () => scope.swagger());
        // Preflights name no key, so the product is this path's: one per service and environment.
        await preflightRoutes(open, runtime.cors, corsKey, notFound);
        // A service's public routes (no key): outside the guarded scope and its hooks.
        open.addHook('onRoute', auditDeclaredInput);
        if (service.publicRoutes) await open.register(service.publicRoutes, context);
        // API Management answers an unknown operation with its own 404 body. Set in this scope (the same
        // prefix), so a 404 gets the dialect and CORS headers as the other routes do.
        open.setNotFoundHandler(notFound);
      });
      await scope.register(async (guarded) => {
        // The URL's text is checked here once the call is let through, so that the routes without a
        // body run no preValidation hook (input-text.ts).
        const guard = subscriptionGuard(runtime, environment, service.id, userRateLimit, urlTextRefusal);
        guarded.decorate(URL_TEXT_CHECKED_ON_REQUEST, true);
        // The answer is marked here too (request id, Connection: close once shutting down), so that the
        // hot path runs no onSend hook (answer-marks.ts).
        guarded.addHook('onRequest', (request, reply, done) => {
          prepare(request, reply);
          marks.mark(request, reply);
          guard(request, reply, done);
        });
        // The simulated Wednesday-night window (sandbox only, off by default), after the guard: see
        // maintenance.ts. Unknown paths and openapi.json are outside this scope and stay reachable.
        if (environment === 'sandbox' && runtime.config.sandboxMaintenance) {
          guarded.addHook('onRequest', maintenanceHook(context.clock));
        }
        if (service.routes) {
          // Every input of every operation has a validator: a route that would take one unchecked fails here.
          guarded.addHook('onRoute', auditDeclaredInput);
          await guarded.register(service.routes, context);
        } else {
          // A register not built yet: its keys work, and every call says so in its dialect (501).
          const notBuilt = (request: FastifyRequest, reply: FastifyReply) =>
            sendError(
              request,
              reply,
              new HttpError(
                PLATFORM_ERRORS.notImplemented,
                `${service.title} is not built yet in this gateway; its operations answer 501 until it is.`,
              ),
            );
          for (const url of ['/', '/*']) {
            guarded.route({
              method: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
              url,
              schema: { hide: true },
              handler: notBuilt,
            });
          }
        }
      });
    },
    { prefix },
  );
}

/** The error dialect of the service a URL addresses (in either environment); problem+json elsewhere. */
export function dialectOfUrl(url: string, services: readonly ServiceDefinition[]): Dialect {
  const path = url.split('?')[0]!;
  for (const service of services) {
    for (const environment of ENVIRONMENTS) {
      const prefix = `${ENVIRONMENT_PREFIX[environment]}${service.path}`;
      if (path === prefix || path.startsWith(`${prefix}/`)) return service.dialect;
    }
  }
  return 'problem';
}

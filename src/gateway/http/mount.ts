import swagger from '@fastify/swagger';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { readUserRateLimit } from '../../config.ts';
import type { AnswerMarks } from '../../platform/http/answer-marks.ts';
import { auditDeclaredInput } from '../../platform/http/declared-validators.ts';
import { APIM_ERRORS, PLATFORM_ERRORS, serviceErrorCodes } from '../../platform/http/error-codes.ts';
import { type Dialect, HttpError, sendError } from '../../platform/http/errors.ts';
import { URL_TEXT_CHECKED_ON_REQUEST, urlTextRefusal } from '../../platform/http/input-text.ts';
import { keepRequestShapes } from '../../platform/http/kept-shapes.ts';
import { type SandboxParticipant, sandboxPausedError } from '../../platform/sandbox/participant.ts';
import type { Runtime } from '../../runtime.ts';
import {
  ENVIRONMENT_PREFIX,
  ENVIRONMENTS,
  type Environment,
  type ServiceDefinition,
} from '../../services/contract.ts';
import { type ServiceContext, serviceContext } from '../service-context.ts';
import { applyActual, isPreflight, preflightRoutes } from './cors.ts';
import { CorsPolicies } from './cors-policies.ts';
import { subscriptionGuard } from './guard.ts';
import { inspectCalls } from './inspector.ts';
import { maintenanceHook } from './maintenance.ts';
import type { HttpMetrics } from './metrics.ts';
import { documentGatewayRefusals } from './openapi-refusals.ts';
import { documentScenarios, scenarioHook } from './scenarios.ts';

/** What the steps of mounting one service in one environment share. */
interface Mounting {
  runtime: Runtime;
  marks: AnswerMarks;
  environment: Environment;
  service: ServiceDefinition;
  /** `<environment prefix><service path>`: `/sandbox/nzbn/v5`. */
  prefix: string;
  context: ServiceContext;
  /** The service's product's CORS policy, by `CorsPolicies.key`. */
  corsKey: string;
  /** The service's per-user limit (calls per user per minute, its variable read), if it declares one. */
  userRateLimit: number | undefined;
  /**
   * What every request of the service's paths gets first: its dialect and, unless it is a preflight, the
   * CORS headers of an allowed origin, so the guard's refusals (401, 429 + Retry-After) are readable by
   * the page too. On the guarded routes it runs inside the guard's hook (each hook costs every call a turn
   * of Fastify's hook runner); the routes outside the guard and the 404 run it as a hook of their own.
   */
  prepare(request: FastifyRequest, reply: FastifyReply): void;
  /** API Management's 404 for an operation the service does not have. */
  notFound(request: FastifyRequest, reply: FastifyReply): FastifyReply;
  /** The sandbox's gate (a reset holds its requests): the sandbox mount's, none in production. */
  gate: SandboxParticipant | undefined;
}

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
  const mounting = mountingOf(runtime, marks, environment, service);
  const observe = metrics.recorder(environment, service.id);
  await app.register(
    async (scope) => {
      countAnswers(scope, mounting, observe);
      await serviceDocument(scope, mounting);
      await scope.register((open) => openRoutes(open, () => scope.swagger(), mounting));
      await scope.register((guarded) => guardedRoutes(guarded, mounting));
    },
    { prefix: mounting.prefix },
  );
}

function mountingOf(
  runtime: Runtime,
  marks: AnswerMarks,
  environment: Environment,
  service: ServiceDefinition,
): Mounting {
  const corsKey = CorsPolicies.key(environment, service.id);
  return {
    runtime,
    marks,
    environment,
    service,
    prefix: `${ENVIRONMENT_PREFIX[environment]}${service.path}`,
    context: serviceContext(runtime, environment, service),
    corsKey,
    userRateLimit: readUserRateLimit(runtime.config.variables, service.userRateLimit),
    prepare: (request, reply) => {
      request.dialect = service.dialect;
      if (!isPreflight(request)) applyActual(runtime.cors.get(corsKey), request, reply);
    },
    notFound: (request, reply) =>
      sendError(request, reply, new HttpError(APIM_ERRORS.unknownOperation, 'Resource not found'), 'apim'),
    gate: environment === 'sandbox' ? runtime.sandbox : undefined,
  };
}

/**
 * Runs `next` once the sandbox admits the request: at once, unless a reset, snapshot or restore holds
 * the sandbox (platform/sandbox/participant.ts); then the request waits for it to be back
 * (`RSG_SANDBOX_RESET_WAIT_MS`), or is answered 503 with `Retry-After` in the API's dialect. An admitted
 * request is counted in flight until its connection closes, so a reset lets it finish first.
 */
function throughGate(
  gate: SandboxParticipant,
  request: FastifyRequest,
  reply: FastifyReply,
  next: () => void,
  done: (error?: Error) => void,
): void {
  if (gate.open) {
    gate.enter(reply.raw);
    next();
    return;
  }
  gate.whenOpen().then((open) => {
    if (open) {
      gate.enter(reply.raw);
      next();
    } else {
      sendError(request, reply, sandboxPausedError());
      done();
    }
  }, done);
}

/** Every answer of the service's paths counted: metrics, the caller's usage, the request's kept shape. */
function countAnswers(
  scope: FastifyInstance,
  { runtime }: Mounting,
  observe: (status: number, elapsedMs: number) => void,
): void {
  scope.addHook('onResponse', (request, reply, done) => {
    observe(reply.statusCode, reply.elapsedTime);
    if (request.caller) runtime.usage.record(request.caller.subscriptionId, reply.statusCode);
    // The guarded routes run no onSend hook, which does this for the others (kept-shapes.ts).
    if (request.body === undefined) keepRequestShapes(request, reply);
    done();
  });
}

/**
 * The service's OpenAPI document: its operations, every error code a client can meet (with its
 * status, dialect and meaning), its per-user limit, and the guard's 401 and 429 on every operation.
 */
async function serviceDocument(scope: FastifyInstance, mounting: Mounting): Promise<void> {
  const { service, environment, userRateLimit } = mounting;
  const extensions: Record<string, unknown> = {
    'x-error-codes': serviceErrorCodes(service.dialect, service.errorCodes, { built: !!service.routes }),
    ...(userRateLimit ? { 'x-user-rate-limit': { perMinute: userRateLimit } } : {}),
  };
  await scope.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: `${service.title} (${environment})`,
        version: service.version,
        ...(service.description ? { description: service.description } : {}),
      },
      servers: [{ url: mounting.prefix }],
      components: {
        securitySchemes: {
          subscriptionKey: { type: 'apiKey', in: 'header', name: 'Ocp-Apim-Subscription-Key' },
          subscriptionKeyQuery: { type: 'apiKey', in: 'query', name: 'subscription-key' },
        },
      },
      security: [{ subscriptionKey: [] }, { subscriptionKeyQuery: [] }],
      ...extensions,
      ...service.openapi,
    },
    // The guard's 401 and 429 on every operation (openapi-refusals.ts).
    transformObject: (document) => {
      if (!('openapiObject' in document)) return document.swaggerObject;
      const built = documentGatewayRefusals(document.openapiObject);
      return environment === 'sandbox' ? documentScenarios(built, service.id) : built;
    },
  });
}

/**
 * The routes outside the guard: the document, the preflights, the service's public routes and the 404
 * of the service's paths, with `prepare` and the answer's marks as hooks of their own.
 */
async function openRoutes(open: FastifyInstance, document: () => unknown, mounting: Mounting): Promise<void> {
  const { runtime, service, prepare, notFound, gate } = mounting;
  open.addHook('onRequest', (request, reply, done) => {
    prepare(request, reply);
    if (gate) throughGate(gate, request, reply, done, done);
    else done();
  });
  // The request id header (and Connection: close once shutting down): answer-marks.ts.
  open.addHook('onSend', mounting.marks.onSend);
  open.get('/openapi.json', { schema: { hide: true } }, async () => document());
  // Preflights name no key, so the product is this path's: one per service and environment.
  await preflightRoutes(open, runtime.cors, mounting.corsKey, notFound);
  // A service's public routes (no key): outside the guarded scope and its hooks.
  open.addHook('onRoute', auditDeclaredInput);
  if (service.publicRoutes) await open.register(service.publicRoutes, mounting.context);
  // API Management answers an unknown operation with its own 404 body. Set in this scope (the same
  // prefix), so a 404 gets the dialect and CORS headers as the other routes do.
  open.setNotFoundHandler(notFound);
}

/**
 * The service's operations behind the subscription guard: one `onRequest` hook does `prepare`, marks the
 * answer and runs the guard; in the sandbox, when configured, the maintenance window after it.
 */
async function guardedRoutes(guarded: FastifyInstance, mounting: Mounting): Promise<void> {
  const { runtime, environment, service, prepare, marks, gate } = mounting;
  // The URL's text is checked here once the call is let through, so that the routes without a
  // body run no preValidation hook (input-text.ts).
  // The request inspector (inspector.ts): each subscription's last calls, watched from the guard's step
  // that names the subscription; production's without bodies unless an operator turned them on.
  const { inspector } = runtime.config;
  const inspected = inspector.enabled
    ? inspectCalls(
        runtime.inspector,
        environment,
        service.id,
        environment === 'sandbox' || inspector.productionBodies,
      )
    : undefined;
  const guard = subscriptionGuard(
    runtime,
    environment,
    service.id,
    mounting.userRateLimit,
    urlTextRefusal,
    inspected,
  );
  guarded.decorate(URL_TEXT_CHECKED_ON_REQUEST, true);
  // The answer is marked here too (request id, Connection: close once shutting down), so that the
  // hot path runs no onSend hook (answer-marks.ts).
  // In the sandbox the gate comes first (a reset holds the sandbox's requests: throughGate).
  guarded.addHook('onRequest', (request, reply, done) => {
    prepare(request, reply);
    marks.mark(request, reply);
    if (gate) throughGate(gate, request, reply, () => guard(request, reply, done), done);
    else guard(request, reply, done);
  });
  // The simulated Wednesday-night window (sandbox only, off by default), after the guard: see
  // maintenance.ts. Unknown paths and openapi.json are outside this scope and stay reachable.
  if (environment === 'sandbox' && runtime.config.sandboxMaintenance) {
    guarded.addHook('onRequest', maintenanceHook(mounting.context.clock));
  }
  // A fault the call asks for (`Sandbox-Scenario`, sandbox only; refused in production): scenarios.ts.
  guarded.decorateRequest('sandboxScenario', undefined);
  guarded.decorateRequest('subscriptionScenario', undefined);
  guarded.addHook(
    'preParsing',
    scenarioHook(environment, service.id, () => mounting.context.clock.now()),
  );
  if (service.routes) {
    // Every input of every operation has a validator: a route that would take one unchecked fails here.
    guarded.addHook('onRoute', auditDeclaredInput);
    await guarded.register(service.routes, mounting.context);
  } else notBuiltRoutes(guarded, service);
}

/** A register not built yet: its keys work, and every call says so in its dialect (501). */
function notBuiltRoutes(guarded: FastifyInstance, service: ServiceDefinition): void {
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

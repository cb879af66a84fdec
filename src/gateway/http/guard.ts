import type { FastifyReply, FastifyRequest } from 'fastify';
import { scopeAllows } from '../../identity/domain/scopes.ts';
import { APIM_ERRORS } from '../../platform/http/error-codes.ts';
import { HttpError, sendError } from '../../platform/http/errors.ts';
import type { LimitOutcome, LimitRequest, LimitStore } from '../../platform/limits/index.ts';
import { ENVIRONMENT_PREFIX, type Environment, type ServiceId } from '../../services/contract.ts';
import type { KeyOwner } from '../domain/subscriptions.ts';
import type { UsageRecorder } from '../jobs/usage.ts';
import type { Caller } from '../service-context.ts';
import type { KeyCache } from './key-cache.ts';
import type { OrganisationResolver } from './organisation-resolver.ts';
import type { TokenVerifier } from './tokens.ts';

/**
 * The front door of every service route: the subscription key (header or query parameter), its product,
 * the rate limit and the quota, and the service's per-user rate limit when it declares one. Refusals use
 * API Management's own bodies (reference/gateway.md).
 */
export const KEY_HEADER = 'ocp-apim-subscription-key';
export const KEY_QUERY = 'subscription-key';

export const MISSING_KEY =
  'Access denied due to missing subscription key. Make sure to include subscription key when making requests to an API.';
export const INVALID_KEY =
  'Access denied due to invalid subscription key. Make sure to provide a valid key for an active subscription.';

/** .NET TimeSpan text, as API Management prints it: `00:05:00`, or `1.02:00:00` past a day. */
export function timeSpan(ms: number): string {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const days = Math.floor(total / 86_400);
  const clock = [Math.floor((total % 86_400) / 3600), Math.floor((total % 3600) / 60), total % 60]
    .map((n) => String(n).padStart(2, '0'))
    .join(':');
  return days > 0 ? `${days}.${clock}` : clock;
}

const retryAfterSeconds = (ms: number): number => Math.max(1, Math.ceil(ms / 1000));

/** The response header that says why a key of another environment or API was refused. */
export const HINT_HEADER = 'x-rsg-hint';

/**
 * The refusal of a key that is not for this API in this environment: API Management's published body,
 * and, for an active key of another environment or API, a hint in `x-rsg-hint` (the body stays as
 * published). Built only on a refusal: a valid key never gets here.
 */
export function invalidKeyError(
  request: FastifyRequest,
  owner: KeyOwner | undefined,
  environment: Environment,
  service: ServiceId,
): HttpError {
  if (owner?.state !== 'active') return new HttpError(APIM_ERRORS.invalidKey, INVALID_KEY);
  let hint: string;
  if (owner.service === service) {
    // The same path under the other environment's prefix (the query, which may carry the key, left out).
    const prefix = ENVIRONMENT_PREFIX[environment];
    const url = request.url.split('?')[0]!;
    const path = url.startsWith(`${prefix}/`) ? url.slice(prefix.length) : '';
    const shown = /^[\x21-\x7e]{1,200}$/.test(path) ? path : '/...';
    hint = `this key belongs to the ${owner.environment} environment; use ${ENVIRONMENT_PREFIX[owner.environment]}${shown}`;
  } else {
    hint = `this key is a subscription to the ${owner.productId} product, not to this API`;
  }
  return new HttpError(APIM_ERRORS.invalidKey, INVALID_KEY, [], { [HINT_HEADER]: hint });
}

export function presentedKey(request: FastifyRequest): string | undefined {
  const header = request.headers[KEY_HEADER];
  const fromHeader = Array.isArray(header) ? header[0] : header;
  if (fromHeader?.trim()) return fromHeader.trim();
  const query = request.query as Record<string, unknown> | undefined;
  const fromQuery = query?.[KEY_QUERY];
  return typeof fromQuery === 'string' && fromQuery.trim() ? fromQuery.trim() : undefined;
}

export interface GuardDeps {
  keys: KeyCache;
  limits: LimitStore;
  usage: UsageRecorder;
  tokens: TokenVerifier;
  organisations: OrganisationResolver;
  config: { oauth: { resourceBase: string } };
}

function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match)
    throw new HttpError(
      APIM_ERRORS.invalidToken,
      'Invalid JWT: the Authorization header must be "Bearer <token>"',
    );
  return match[1];
}

/**
 * The rate limit and quota of a key's product, as the limit store takes them. Made once per key owner
 * (the key cache hands out the same owner object until the key or its product changes, and a change
 * brings a new owner), so a call allocates no request of its own; the limit stores only read it.
 */
const limitRequests = new WeakMap<KeyOwner, LimitRequest>();
function limitRequest(owner: KeyOwner): LimitRequest {
  let request = limitRequests.get(owner);
  if (!request) {
    request = buildLimitRequest(owner);
    limitRequests.set(owner, request);
  }
  return request;
}

/**
 * The key of a subscription's rate log and quota: under its environment, so a sandbox reset forgets the
 * sandbox's counts (`forgetEnvironmentLimits`).
 */
const subscriptionLimitKey = (owner: KeyOwner): string => `${owner.environment}:${owner.subscriptionId}`;

function buildLimitRequest(owner: KeyOwner): LimitRequest {
  return {
    key: subscriptionLimitKey(owner),
    rate: { limit: owner.rateLimitPerMinute, windowMs: 60_000 },
    quota:
      owner.quotaCalls !== null && owner.quotaPeriodSeconds !== null
        ? { limit: owner.quotaCalls, periodMs: owner.quotaPeriodSeconds * 1000 }
        : undefined,
  };
}

/** What the guard's synchronous path decided. */
const ADMITTED = 1;
const REFUSED = 2;
const UNDECIDED = 0;
type Decision = typeof ADMITTED | typeof REFUSED | typeof UNDECIDED;

/** The window of the per-user limit: the published rule is per user per minute. */
export const USER_RATE_WINDOW_MS = 60_000;

/**
 * The key of a user's shared sliding log: one per environment, service and user, the same in every
 * process (so with Redis one log counts the user's calls through all keys and all gateways).
 */
export const userLimitKey = (environment: Environment, service: ServiceId, userId: string): string =>
  `user:${environment}:${service}:${userId}`;

/**
 * Forgets every count of one environment's calls: its subscriptions' rate logs and quotas and its
 * per-user logs (a sandbox reset or restore).
 */
export async function forgetEnvironmentLimits(limits: LimitStore, environment: Environment): Promise<void> {
  await limits.forget(`${environment}:`);
  await limits.forget(`user:${environment}:`);
}

/** The rate limit's 429 as API Management answers it, with `Retry-After` (also the `throttled` scenario). */
export function rateLimitedError(seconds: number): HttpError {
  return new HttpError(
    APIM_ERRORS.rateLimited,
    `Rate limit is exceeded. Try again in ${seconds} seconds.`,
    [],
    {
      'Retry-After': String(seconds),
    },
  );
}

/** A refused call: 429 for the rate limit, 403 for the quota, both with `Retry-After`. */
function limitRefusal(outcome: LimitOutcome & { allowed: false }): HttpError {
  const seconds = retryAfterSeconds(outcome.retryAfterMs);
  return outcome.reason === 'rate'
    ? rateLimitedError(seconds)
    : new HttpError(
        APIM_ERRORS.quotaExceeded,
        `Out of call volume quota. Quota will be replenished in ${timeSpan(outcome.retryAfterMs)}.`,
        [],
        { 'Retry-After': String(seconds) },
      );
}

/**
 * `userRateLimit`: the service's per-user limit in calls per minute (`ServiceDefinition.userRateLimit`,
 * read with its variable), or undefined for none. The user is the three-legged token's user, else the
 * subscriber who owns the key; the call must fit both the subscription's limit and the user's, in one
 * step of the limit store, and a refusal from either is the same 429 with `Retry-After`.
 */
export function subscriptionGuard(
  deps: GuardDeps,
  environment: Environment,
  service: ServiceId,
  userRateLimit?: number,
  /** Run once a call is let through; an error it returns is the call's answer (the URL's text check). */
  admitted: (request: FastifyRequest) => Error | undefined = () => undefined,
  /**
   * Run as soon as the call is tied to its subscription (`request.caller` set), before any refusal that
   * follows: the request inspector's step (inspector.ts).
   */
  identified: (request: FastifyRequest, reply: FastifyReply) => void = () => {},
) {
  const refuse = (request: FastifyRequest, reply: FastifyReply, error: HttpError) =>
    sendError(request, reply, error, 'apim');
  const refused = (request: FastifyRequest, reply: FastifyReply, error: HttpError): false => {
    refuse(request, reply, error);
    return false;
  };
  // Decided once here: a service without a per-user limit builds the same request as before, per call.
  const userPrefix = userLimitKey(environment, service, '');
  const limitsOf: (owner: KeyOwner, caller: Caller) => LimitRequest = userRateLimit
    ? (owner, caller) => ({
        ...limitRequest(owner),
        shared: {
          key: userPrefix + (caller.userId ?? caller.subscriberId),
          limit: userRateLimit,
          windowMs: USER_RATE_WINDOW_MS,
        },
      })
    : limitRequest;
  /** Whether the call is let through (a refusal has been sent). */
  const guard = async (request: FastifyRequest, reply: FastifyReply): Promise<boolean> => {
    const key = presentedKey(request);
    if (!key) return refused(request, reply, new HttpError(APIM_ERRORS.missingKey, MISSING_KEY));
    const owner = key.length <= 256 ? await deps.keys.lookup(key) : undefined;
    if (owner?.state !== 'active' || owner.environment !== environment || owner.service !== service) {
      return refused(request, reply, invalidKeyError(request, owner, environment, service));
    }
    request.caller = {
      environment,
      subscriptionId: owner.subscriptionId,
      productId: owner.productId,
      subscriberId: owner.userId,
    };
    if (owner.scenario) request.subscriptionScenario = owner.scenario;
    identified(request, reply);
    // A bearer token is optional, but a token that is sent must pass every check; a three-legged
    // operation needs a user's token.
    try {
      const raw = bearerToken(request);
      const config = request.routeOptions.config;
      if (raw) {
        const token = await deps.tokens.verify(raw, environment);
        const needed =
          config.scope ??
          `${service}:${request.method === 'GET' || request.method === 'HEAD' ? 'read' : 'write'}`;
        if (!scopeAllows(token.scopes, deps.config.oauth.resourceBase, environment, needed)) {
          throw new HttpError(
            APIM_ERRORS.insufficientScope,
            `Insufficient scope: this operation needs the ${needed} scope.`,
            [],
            {
              'WWW-Authenticate': `Bearer error="insufficient_scope", scope="${needed}"`,
            },
          );
        }
        request.caller.token = token;
        request.caller.userId = token.userId;
      }
      const organisation = request.headers['x-organisation'];
      if (typeof organisation === 'string' && organisation.trim()) {
        request.caller.organisationId = await deps.organisations.resolve(
          environment,
          organisation.trim(),
          request.caller,
        );
      }
      if (config.threeLegged && !request.caller.userId) {
        throw new HttpError(
          APIM_ERRORS.threeLeggedTokenRequired,
          'This operation needs a three-legged OAuth token: an end user must sign in and consent.',
          [],
          {
            'WWW-Authenticate':
              'Bearer error="invalid_token", error_description="a user\'s token is required"',
          },
        );
      }
    } catch (error) {
      if (error instanceof HttpError) return refused(request, reply, error);
      throw error;
    }
    const outcome = await deps.limits.check(limitsOf(owner, request.caller));
    if (!outcome.allowed) return refused(request, reply, limitRefusal(outcome));
    return true;
  };

  /**
   * The common call, answered without a promise: a key already in the key cache, no bearer token, no
   * `x-organisation`, an operation that needs no user, and a limit store that can decide at once (the
   * in-memory one). The same checks in the same order as `guard`; anything else goes there. Returns
   * ADMITTED, REFUSED (the refusal sent) or UNDECIDED.
   */
  const checkSync = deps.limits.checkSync?.bind(deps.limits);
  const decideAtOnce = (request: FastifyRequest, reply: FastifyReply): Decision => {
    const headers = request.headers;
    if (!checkSync || headers.authorization !== undefined || headers['x-organisation'] !== undefined)
      return UNDECIDED;
    if (request.routeOptions.config.threeLegged) return UNDECIDED;
    const key = presentedKey(request);
    if (!key || key.length > 256) return UNDECIDED;
    const cached = deps.keys.cached(key);
    if (!cached) return UNDECIDED;
    const owner = cached.owner;
    if (owner?.state !== 'active' || owner.environment !== environment || owner.service !== service) {
      refuse(request, reply, invalidKeyError(request, owner, environment, service));
      return REFUSED;
    }
    request.caller = {
      environment,
      subscriptionId: owner.subscriptionId,
      productId: owner.productId,
      subscriberId: owner.userId,
    };
    if (owner.scenario) request.subscriptionScenario = owner.scenario;
    identified(request, reply);
    const outcome = checkSync(limitsOf(owner, request.caller));
    if (outcome.allowed) return ADMITTED;
    refuse(request, reply, limitRefusal(outcome));
    return REFUSED;
  };

  // A callback hook: Fastify waits a microtask turn for every promise a hook returns, so the common
  // call (decideAtOnce) goes on at once and only the rest takes the asynchronous path.
  return function subscriptionGuardHook(
    request: FastifyRequest,
    reply: FastifyReply,
    done: (error?: Error) => void,
  ): void {
    const decision = decideAtOnce(request, reply);
    if (decision === ADMITTED) done(admitted(request));
    else if (decision === REFUSED) done();
    else guard(request, reply).then((through) => done(through ? admitted(request) : undefined), done);
  };
}

import { randomInt } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { RuleError } from '../../platform/errors.ts';
import { APIM_ERRORS } from '../../platform/http/error-codes.ts';
import { badRequest, HttpError, sendError, serviceUnavailable } from '../../platform/http/errors.ts';
import type { Environment } from '../../services/contract.ts';
import {
  parseScenario,
  SCENARIO_HEADER,
  SCENARIO_PATTERN,
  SCENARIOS,
  type Scenario,
} from '../domain/scenarios.ts';
import { maintenanceError } from './maintenance.ts';

/**
 * The `Sandbox-Scenario` header (domain/scenarios.ts) on a service's guarded routes: after the guard, so
 * a wrong key is reported as such whatever the header says. Each failure is answered as the real one
 * is: the rate limit's 429 in API Management's body, the maintenance 503 and the database-unavailable
 * 503 in the register's dialect, a closed connection. `slow` delays and `flaky` lets most calls through;
 * `timeout` is left to the secured interests register (`request.sandboxScenario`), whose transactions
 * wait past its platform timeout. Production refuses the header (400 naming it).
 */
declare module 'fastify' {
  interface FastifyRequest {
    /** The fault scenario the call asked for (sandbox only), for a service that plays it itself. */
    sandboxScenario?: Scenario | undefined;
  }
}

const HEADER = SCENARIO_HEADER.toLowerCase();
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/** Whether the route takes the secured interests register's processing delay: its transactions. */
const holdsTransactions = (request: FastifyRequest): boolean => {
  const headers = (request.routeOptions.schema as { headers?: { properties?: object } } | undefined)?.headers;
  return headers?.properties !== undefined && 'Sandbox-Processing-Delay' in headers.properties;
};

/**
 * The `preParsing` hook: after every `onRequest` hook (the guard's, and a SOAP endpoint's that makes its
 * errors faults), before the body is read. A call without the header costs one property read (the hot
 * path); one with it is played (`play`), and goes on to the operation when the scenario lets it.
 */
export function scenarioHook(environment: Environment, serviceId: string, now: () => Date) {
  return function scenario<Payload>(
    request: FastifyRequest,
    reply: FastifyReply,
    payload: Payload,
    done: (error: null, payload: Payload) => void,
  ): void {
    if (request.headers[HEADER] === undefined) {
      done(null, payload);
      return;
    }
    asked(request, reply, environment, serviceId, now).then(
      () => {
        if (!reply.sent) done(null, payload);
      },
      (error: unknown) => {
        request.log.error({ err: error }, 'sandbox scenario failed');
        if (!reply.sent) done(null, payload);
      },
    );
  };
}

async function asked(
  request: FastifyRequest,
  reply: FastifyReply,
  environment: Environment,
  serviceId: string,
  now: () => Date,
): Promise<unknown> {
  const value = request.headers[HEADER];
  let scenario: Scenario;
  try {
    if (environment !== 'sandbox') throw new RuleError(SCENARIO_HEADER, 'is only honoured in the sandbox');
    if (typeof value !== 'string') throw new RuleError(SCENARIO_HEADER, 'give it once');
    scenario = parseScenario(value);
    if (scenario.kind === 'timeout' && !(serviceId === 'ppsr' && holdsTransactions(request))) {
      throw new RuleError(SCENARIO_HEADER, `timeout: ${SCENARIOS.timeout.description}`);
    }
  } catch (error) {
    if (!(error instanceof RuleError)) throw error;
    return sendError(request, reply, badRequest(error.field, error.rule));
  }
  return play(request, reply, scenario, now);
}

async function play(request: FastifyRequest, reply: FastifyReply, scenario: Scenario, now: () => Date) {
  switch (scenario.kind) {
    case 'throttled': {
      const seconds = scenario.retryAfterSeconds;
      const error = new HttpError(
        APIM_ERRORS.rateLimited,
        `Rate limit is exceeded. Try again in ${seconds} seconds.`,
        [],
        { 'Retry-After': String(seconds) },
      );
      return sendError(request, reply, error, 'apim');
    }
    case 'maintenance': {
      const at = now();
      const end = new Date(at.getTime() + scenario.retryAfterSeconds * 1000);
      return sendError(request, reply, maintenanceError(at, { end }));
    }
    case 'flaky':
      if (randomInt(100) >= scenario.percent) return undefined;
      return sendError(request, reply, serviceUnavailable());
    case 'slow':
      await sleep(scenario.delayMs);
      return undefined;
    case 'drop':
      // No answer at all: the socket is closed as a network fault closes it.
      reply.hijack();
      request.raw.socket.destroy();
      return reply;
    case 'timeout':
      request.sandboxScenario = scenario;
      return undefined;
  }
}

/**
 * The sandbox's OpenAPI document with the header among its reusable parameters
 * (`components.parameters.SandboxScenario`): every scenario's form and meaning, and an example of each.
 */
export function documentScenarios<Document extends object>(document: Document): Document {
  const target = document as { components?: Record<string, unknown> };
  const components = target.components ?? {};
  target.components = components;
  const parameters = (components.parameters ?? {}) as Record<string, unknown>;
  parameters.SandboxScenario = {
    name: SCENARIO_HEADER,
    in: 'header',
    required: false,
    description:
      'Sandbox only (production answers 400): the failure this call meets, as the register would answer it. ' +
      Object.values(SCENARIOS)
        .map((scenario) => `\`${scenario.form}\`: ${scenario.description}`)
        .join('; '),
    schema: {
      type: 'string',
      pattern: SCENARIO_PATTERN,
      examples: ['throttled', 'maintenance', 'slow=2000', 'drop', 'flaky=50', 'timeout'],
    },
    'x-scenarios': SCENARIOS,
  };
  components.parameters = parameters;
  return document;
}

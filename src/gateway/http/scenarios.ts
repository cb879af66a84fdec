import { randomInt } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { RuleError } from '../../platform/errors.ts';
import { badRequest, sendError, serviceUnavailable } from '../../platform/http/errors.ts';
import type { Environment } from '../../services/contract.ts';
import {
  parseScenario,
  SCENARIO_HEADER,
  SCENARIOS,
  type Scenario,
  type ScenarioKind,
  scenarioKindsOf,
} from '../domain/scenarios.ts';
import { rateLimitedError } from './guard.ts';
import { maintenanceError } from './maintenance.ts';

/**
 * The `Sandbox-Scenario` header (domain/scenarios.ts) on a service's guarded routes: after the guard, so
 * a wrong key is reported as such whatever the header says. Each failure is answered as the real one
 * is: the rate limit's 429 in API Management's body, the maintenance 503 and the database-unavailable
 * 503 in the register's dialect, a closed connection. `slow` delays and `flaky` lets most calls through;
 * `timeout` is left to the secured interests register (`request.sandboxScenario`), whose transactions
 * wait past its platform timeout. Production refuses the header (400 naming it). A call without the
 * header meets its subscription's scenario, when one is set (sandbox subscriptions only; the guard puts
 * it on the request), so a client that cannot add headers can rehearse the same failures.
 */
declare module 'fastify' {
  interface FastifyRequest {
    /** The fault scenario the call asked for (sandbox only), for a service that plays it itself. */
    sandboxScenario?: Scenario | undefined;
    /** The scenario set on the caller's subscription (sandbox only), set by the guard. */
    subscriptionScenario?: Scenario | undefined;
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
    let playing: Promise<unknown>;
    if (request.headers[HEADER] !== undefined) playing = asked(request, reply, environment, serviceId, now);
    else if (request.subscriptionScenario !== undefined) playing = subscribed(request, reply, now);
    else {
      done(null, payload);
      return;
    }
    playing.then(
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

/**
 * The subscription's scenario, on a call without the header: checked when it was set, so it only
 * plays; `timeout` plays on the secured interests register's transactions and lets the rest through.
 */
function subscribed(request: FastifyRequest, reply: FastifyReply, now: () => Date): Promise<unknown> {
  const scenario = request.subscriptionScenario!;
  if (scenario.kind === 'timeout' && !holdsTransactions(request)) return Promise.resolve(undefined);
  return play(request, reply, scenario, now);
}

async function play(request: FastifyRequest, reply: FastifyReply, scenario: Scenario, now: () => Date) {
  switch (scenario.kind) {
    case 'throttled':
      return sendError(request, reply, rateLimitedError(scenario.retryAfterSeconds), 'apim');
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
 * (`components.parameters.SandboxScenario`): the register's scenarios as an enumeration of their forms
 * (the ones without a value as an `enum`, the ones with one as a pattern each), what each does, and an
 * example of each; `timeout` only in the secured interests register's.
 */
export function documentScenarios<Document extends object>(document: Document, serviceId: string): Document {
  const target = document as { components?: Record<string, unknown> };
  const components = target.components ?? {};
  target.components = components;
  const parameters = (components.parameters ?? {}) as Record<string, unknown>;
  const kinds = scenarioKindsOf(serviceId);
  const listed = Object.fromEntries(kinds.map((kind) => [kind, SCENARIOS[kind]]));
  const forms = kinds.map((kind) => SCENARIOS[kind].form);
  parameters.SandboxScenario = {
    name: SCENARIO_HEADER,
    in: 'header',
    required: false,
    description:
      'Sandbox only (production answers 400): the failure this call meets, as the register would answer it. ' +
      kinds.map((kind) => `\`${SCENARIOS[kind].form}\`: ${SCENARIOS[kind].description}`).join('; ') +
      ". A sandbox subscription can have one set for all its calls (the portal's subscription page, " +
      '`rsg subscriptions scenario`); this header comes first.',
    schema: {
      anyOf: [
        { type: 'string', enum: kinds.filter((kind) => !SCENARIOS[kind].form.includes('=')) },
        ...scenarioValueForms(kinds),
      ],
      examples: ['throttled', 'maintenance=5', 'slow=2000', 'drop', 'flaky=50', 'timeout'].filter((example) =>
        kinds.includes(example.split('=')[0] as ScenarioKind),
      ),
    },
    'x-scenarios': listed,
    'x-scenario-forms': forms,
  };
  components.parameters = parameters;
  return document;
}

/** The forms with a value, one pattern each: `throttled=SECONDS` and the like. */
function scenarioValueForms(
  kinds: ScenarioKind[],
): { type: 'string'; pattern: string; description: string }[] {
  return kinds
    .filter((kind) => SCENARIOS[kind].form.includes('='))
    .map((kind) => ({
      type: 'string',
      pattern: `^${kind}=[0-9]{1,6}$`,
      description: `${SCENARIOS[kind].form}: ${SCENARIOS[kind].description}`,
    }));
}

/**
 * Fault scenarios of the sandbox: what a call asks to meet with its `Sandbox-Scenario` header, so a
 * client can rehearse the registers' failures on demand. Pure: the header's text in, the scenario (or a
 * RuleError naming the header) out. The HTTP side is `http/scenarios.ts`.
 *
 * - `throttled[=S]`: the product's rate limit, 429 with `Retry-After: S` (30 unless given, 1–3600).
 * - `maintenance[=S]`: the scheduled maintenance 503, in the register's dialect, its window ending in S
 *   seconds (120 unless given, 1–7200), so a client's wait is short enough to test.
 * - `slow=MS`: the answer as usual, after MS milliseconds more (1–120000).
 * - `drop`: the connection is closed without an answer, as a network fault would.
 * - `flaky=P`: each call fails with the database-unavailable 503 (`Retry-After`) with probability P% (1–100),
 *   otherwise answers as usual.
 * - `timeout`: the secured interests register's platform timeout (published: 180 s), 504 in API
 *   Management's body while the transaction goes on; only that register has one.
 */
import { RuleError } from '../../platform/errors.ts';

export const SCENARIO_HEADER = 'Sandbox-Scenario';

export type Scenario =
  | { kind: 'throttled'; retryAfterSeconds: number }
  | { kind: 'maintenance'; retryAfterSeconds: number }
  | { kind: 'slow'; delayMs: number }
  | { kind: 'drop' }
  | { kind: 'flaky'; percent: number }
  | { kind: 'timeout' };

export type ScenarioKind = Scenario['kind'];

/** Each scenario's form and what it does, as the OpenAPI document and the guide list them. */
export const SCENARIOS: Readonly<Record<ScenarioKind, { form: string; description: string }>> = {
  throttled: {
    form: 'throttled[=SECONDS]',
    description: "429 as the product's rate limit answers it, `Retry-After` SECONDS (30)",
  },
  maintenance: {
    form: 'maintenance[=SECONDS]',
    description:
      'the scheduled maintenance 503 in the register’s dialect, its window ending in SECONDS (120)',
  },
  slow: { form: 'slow=MILLISECONDS', description: 'the usual answer, MILLISECONDS later (at most 120000)' },
  drop: { form: 'drop', description: 'the connection closed without an answer' },
  flaky: {
    form: 'flaky=PERCENT',
    description:
      'the database-unavailable 503 with `Retry-After` for PERCENT of calls, the usual answer otherwise',
  },
  timeout: {
    form: 'timeout',
    description:
      'the secured interests register only: its platform timeout, 504 in API Management’s body while the transaction goes on',
  },
};

/** What a call meets under `scenario`, its values in place (the portal's reading of a subscription's). */
export function scenarioMeaning(scenario: Scenario): string {
  switch (scenario.kind) {
    case 'throttled':
      return `429 as the product's rate limit answers it, \`Retry-After\` ${scenario.retryAfterSeconds} seconds`;
    case 'maintenance':
      return `the scheduled maintenance 503 in the register’s dialect, its window ending in ${scenario.retryAfterSeconds} seconds`;
    case 'slow':
      return `the usual answer, ${scenario.delayMs} milliseconds later`;
    case 'flaky':
      return `the database-unavailable 503 with \`Retry-After\` for ${scenario.percent}% of calls, the usual answer otherwise`;
    default:
      return SCENARIOS[scenario.kind].description;
  }
}

const RULE = `must be one of ${Object.values(SCENARIOS)
  .map((scenario) => scenario.form)
  .join(', ')}`;

function amount(name: string, text: string | undefined, fallback: number | undefined, max: number): number {
  if (text === undefined) {
    if (fallback === undefined) throw new RuleError(SCENARIO_HEADER, `${name} needs a value: ${RULE}`);
    return fallback;
  }
  if (!/^[0-9]{1,6}$/.test(text) || Number(text) < 1 || Number(text) > max) {
    throw new RuleError(
      SCENARIO_HEADER,
      `${name}=${text}: the value must be a whole number from 1 to ${max}`,
    );
  }
  return Number(text);
}

/** The scenario a header's text asks for; a RuleError naming the header (or `field`) for anything else. */
export function parseScenario(text: string, field: string = SCENARIO_HEADER): Scenario {
  try {
    return parseHeader(text);
  } catch (error) {
    if (error instanceof RuleError && field !== SCENARIO_HEADER) throw new RuleError(field, error.rule);
    throw error;
  }
}

/** A scenario's text in its one canonical form (every value given): `throttled=30`, `drop`. */
export function formatScenario(scenario: Scenario): string {
  switch (scenario.kind) {
    case 'throttled':
    case 'maintenance':
      return `${scenario.kind}=${scenario.retryAfterSeconds}`;
    case 'slow':
      return `slow=${scenario.delayMs}`;
    case 'flaky':
      return `flaky=${scenario.percent}`;
    case 'drop':
    case 'timeout':
      return scenario.kind;
  }
}

/** The scenarios a register can play: `timeout` is the secured interests register's alone. */
export function scenarioKindsOf(service: string): ScenarioKind[] {
  return (Object.keys(SCENARIOS) as ScenarioKind[]).filter(
    (kind) => kind !== 'timeout' || service === 'ppsr',
  );
}

function parseHeader(text: string): Scenario {
  const [rawName = '', value, ...rest] = text.trim().split('=');
  const name = rawName.trim().toLowerCase();
  const given = value?.trim();
  if (rest.length > 0) throw new RuleError(SCENARIO_HEADER, RULE);
  switch (name) {
    case 'throttled':
      return { kind: 'throttled', retryAfterSeconds: amount(name, given, 30, 3600) };
    case 'maintenance':
      return { kind: 'maintenance', retryAfterSeconds: amount(name, given, 120, 7200) };
    case 'slow':
      return { kind: 'slow', delayMs: amount(name, given, undefined, 120_000) };
    case 'flaky':
      return { kind: 'flaky', percent: amount(name, given, undefined, 100) };
    case 'drop':
    case 'timeout':
      if (given !== undefined) throw new RuleError(SCENARIO_HEADER, `${name} takes no value`);
      return { kind: name };
    default:
      throw new RuleError(SCENARIO_HEADER, RULE);
  }
}

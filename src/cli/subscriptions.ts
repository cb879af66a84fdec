import type { Config } from '../config.ts';
import type { KeySlot } from '../gateway/domain/subscriptions.ts';
import {
  changeState,
  createSubscription,
  listSubscriptions,
  regenerateKey,
  setSubscriptionScenario,
  subscriptionScenarioNow,
} from '../gateway/operations/subscriptions.ts';
import { usageOf } from '../gateway/store/usage.ts';
import { ENVIRONMENT_PREFIX, ENVIRONMENTS, productId } from '../services/contract.ts';
import { SERVICES } from '../services/registry.ts';
import {
  optional,
  parse,
  print,
  required,
  subscriptionId,
  UsageError,
  userId,
  wholeNumber,
  withGateway,
} from './args.ts';

/** `rsg subscriptions` and `rsg keys`: subscriptions, their states, usage and keys. */

/** Where a product's keys are accepted: one environment's paths of one API (others answer 401). */
export function keyScope(product: string): string[] {
  for (const environment of ENVIRONMENTS) {
    const service = SERVICES.find((s) => productId(environment, s.id) === product);
    if (service) {
      return [
        `the keys work on ${ENVIRONMENT_PREFIX[environment]}${service.path}/... only (the ${environment} environment)`,
      ];
    }
  }
  return [];
}

export async function subscriptionsCommand(config: Config, args: string[]): Promise<number> {
  const { values, positionals } = parse(args, {
    user: { type: 'string' },
    product: { type: 'string' },
    name: { type: 'string' },
    subscription: { type: 'string' },
    hours: { type: 'string' },
    set: { type: 'string' },
    clear: { type: 'boolean' },
    json: { type: 'boolean' },
  });
  const json = values.json === true;
  const action = positionals[0];
  if (action === 'create') {
    const email = required(values, 'user');
    const product = required(values, 'product');
    // Run by the operator, so the subscription is active at once, whatever the product's approval rule.
    const created = await withGateway(config, async (pool) =>
      createSubscription(pool, {
        userId: await userId(pool, email),
        productId: product,
        name: optional(values, 'name'),
        state: 'active',
      }),
    );
    const { subscriptionId, primaryKey, secondaryKey } = created;
    print({ subscriptionId, primaryKey, secondaryKey }, json, () =>
      [
        `subscription ${subscriptionId} (active)`,
        `primary key:   ${primaryKey}`,
        `secondary key: ${secondaryKey}`,
        ...keyScope(product),
      ].join('\n'),
    );
    return 0;
  }
  if (action === 'list') {
    const list = await withGateway(config, (pool) =>
      listSubscriptions(pool, { userEmail: optional(values, 'user') }),
    );
    print(list, json, () =>
      list
        .map(
          (s) =>
            `${s.id}\t${s.productId}\t${s.state}\t${s.userEmail}\tkeys …${s.primaryKeyHint} …${s.secondaryKeyHint}` +
            (s.sandboxScenario ? `\tscenario ${s.sandboxScenario}` : ''),
        )
        .join('\n'),
    );
    return 0;
  }
  const transitions: Record<string, 'active' | 'suspended' | 'cancelled'> = {
    approve: 'active',
    resume: 'active',
    suspend: 'suspended',
    cancel: 'cancelled',
  };
  if (action && transitions[action]) {
    const id = subscriptionId(values);
    await withGateway(config, (pool) => changeState(pool, id, transitions[action]!));
    print(
      { subscriptionId: id, state: transitions[action] },
      json,
      () => `subscription ${id} is ${transitions[action]}`,
    );
    return 0;
  }
  if (action === 'usage') {
    const id = subscriptionId(values);
    const hours = wholeNumber(values, 'hours') ?? 24;
    const rows = await withGateway(config, (pool) =>
      usageOf(pool, id, new Date(Date.now() - hours * 3_600_000)),
    );
    print(rows, json, () =>
      [
        'minute\tcalls\t4xx\t5xx\t429',
        ...rows.map(
          (r) =>
            `${r.minute.toISOString()}\t${r.calls}\t${r.clientErrors}\t${r.serverErrors}\t${r.throttled}`,
        ),
      ].join('\n'),
    );
    return 0;
  }
  if (action === 'scenario') return scenarioAction(config, values, json);
  throw new UsageError(
    'subscriptions create | list | approve | suspend | resume | cancel | usage | scenario',
  );
}

export async function keysCommand(config: Config, args: string[]): Promise<number> {
  const { values, positionals } = parse(args, {
    subscription: { type: 'string' },
    which: { type: 'string' },
    json: { type: 'boolean' },
  });
  if (positionals[0] !== 'regenerate')
    throw new UsageError('keys regenerate --subscription ID --which primary|secondary');
  const which = required(values, 'which');
  if (which !== 'primary' && which !== 'secondary')
    throw new UsageError('--which must be primary or secondary');
  const id = subscriptionId(values);
  const key = await withGateway(config, (pool) => regenerateKey(pool, id, which as KeySlot));
  print({ subscriptionId: id, which, key }, values.json === true, () => key);
  return 0;
}

/**
 * `subscriptions scenario --subscription ID --set SCENARIO | --clear`: the fault scenario every call with
 * a sandbox subscription's keys meets (the `Sandbox-Scenario` forms), for clients that cannot add the
 * header; without `--set` or `--clear`, the one set now.
 */
async function scenarioAction(
  config: Config,
  values: { set?: string; clear?: boolean; subscription?: string },
  json: boolean,
): Promise<number> {
  const id = subscriptionId(values);
  const set = values.set;
  if (set !== undefined && values.clear) throw new UsageError('give --set or --clear, not both');
  if (set !== undefined && set.trim() === '')
    throw new UsageError('--set needs a scenario; --clear removes one');
  const scenario = await withGateway(config, async (pool) => {
    if (set !== undefined || values.clear)
      return setSubscriptionScenario(pool, id, values.clear ? null : set!);
    return subscriptionScenarioNow(pool, id);
  });
  print({ subscriptionId: id, scenario }, json, () =>
    scenario
      ? `subscription ${id}: every call without a Sandbox-Scenario header meets ${scenario}`
      : `subscription ${id}: no scenario; calls meet the register`,
  );
  return 0;
}

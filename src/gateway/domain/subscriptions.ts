/**
 * Subscriptions and their keys: the life cycle (requested → active ⇄ suspended → cancelled), what a key
 * check needs, and the rules a change must keep. Their SQL is store/subscriptions.ts; creating one,
 * regenerating a key and changing a state are operations/subscriptions.ts.
 */
import type { Environment, ServiceId } from '../../services/contract.ts';
import { SUBSCRIPTION_ERRORS, SubscriptionError } from '../errors.ts';
import { formatScenario, parseScenario, SCENARIOS, type Scenario, scenarioKindsOf } from './scenarios.ts';

export type SubscriptionState = 'requested' | 'active' | 'suspended' | 'cancelled';
export type KeySlot = 'primary' | 'secondary';

export interface Subscription {
  id: string;
  userId: string;
  userEmail: string;
  productId: string;
  name: string;
  state: SubscriptionState;
  createdAt: Date;
  stateChangedAt: Date;
  primaryKeyHint: string;
  secondaryKeyHint: string;
  /** The fault scenario every call with its keys meets (sandbox only; canonical text), or null. */
  sandboxScenario: string | null;
}

/** What a key check needs, cached per key hash by the gateway. */
export interface KeyOwner {
  subscriptionId: string;
  userId: string;
  productId: string;
  environment: Environment;
  service: ServiceId;
  state: SubscriptionState;
  isOperator: boolean;
  rateLimitPerMinute: number;
  quotaCalls: number | null;
  quotaPeriodSeconds: number | null;
  /** The subscription's fault scenario (sandbox only): `http/scenarios.ts` plays it on every call. */
  scenario: Scenario | undefined;
}

const TRANSITIONS: Record<SubscriptionState, SubscriptionState[]> = {
  requested: ['active', 'cancelled'],
  active: ['suspended', 'cancelled'],
  suspended: ['active', 'cancelled'],
  cancelled: [],
};

export const unknownSubscription = (id: string) =>
  new SubscriptionError(
    SUBSCRIPTION_ERRORS.unknownSubscription,
    'subscription',
    'is no subscription',
    `no subscription "${id}"`,
  );

export const unknownProduct = (id: string) =>
  new SubscriptionError(SUBSCRIPTION_ERRORS.unknownProduct, 'product', 'is no product', `no product "${id}"`);

/** States move one way: `state` may become `next`, or this throws (`subscription-state`). */
export function checkTransition(state: SubscriptionState, next: SubscriptionState): void {
  if (TRANSITIONS[state].includes(next)) return;
  throw new SubscriptionError(
    SUBSCRIPTION_ERRORS.subscriptionState,
    'state',
    `cannot become ${next} from ${state}`,
    `a ${state} subscription cannot become ${next}`,
  );
}

/** A cancelled subscription has no keys to regenerate. */
export function checkKeysRegenerable(state: SubscriptionState): void {
  if (state !== 'cancelled') return;
  throw new SubscriptionError(
    SUBSCRIPTION_ERRORS.subscriptionState,
    'subscription',
    'is cancelled',
    'a cancelled subscription has no keys to regenerate',
  );
}

/** The field a subscription's scenario is set through (portal form, CLI option, admin body). */
export const SCENARIO_FIELD = 'scenario';

/**
 * The canonical text of a scenario set on a subscription, or null to clear it (`text` blank): only a
 * sandbox subscription that is not cancelled has one, and only a scenario its register can play.
 */
export function subscriptionScenario(
  text: string | null,
  subscription: { state: SubscriptionState; environment: Environment; service: ServiceId },
): string | null {
  if (text === null || text.trim() === '') return null;
  if (subscription.environment !== 'sandbox') {
    throw new SubscriptionError(
      SUBSCRIPTION_ERRORS.scenarioRefused,
      SCENARIO_FIELD,
      'is only for sandbox subscriptions',
      'fault scenarios are played in the sandbox only; production calls always meet the register',
    );
  }
  if (subscription.state === 'cancelled') {
    throw new SubscriptionError(
      SUBSCRIPTION_ERRORS.subscriptionState,
      'subscription',
      'is cancelled',
      'a cancelled subscription takes no scenario',
    );
  }
  const scenario = parseScenario(text, SCENARIO_FIELD);
  if (!scenarioKindsOf(subscription.service).includes(scenario.kind)) {
    throw new SubscriptionError(
      SUBSCRIPTION_ERRORS.scenarioRefused,
      SCENARIO_FIELD,
      `${scenario.kind}: ${SCENARIOS[scenario.kind].description}`,
      `the ${subscription.service} register cannot play ${scenario.kind}`,
    );
  }
  return formatScenario(scenario);
}

/** The scenario of a stored row (its text was checked when it was set; anything else is none). */
export function storedScenario(text: string | null): Scenario | undefined {
  if (text === null) return undefined;
  try {
    return parseScenario(text, SCENARIO_FIELD);
  } catch {
    return undefined;
  }
}

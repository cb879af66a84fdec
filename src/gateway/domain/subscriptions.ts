/**
 * Subscriptions and their keys: the life cycle (requested → active ⇄ suspended → cancelled), what a key
 * check needs, and the rules a change must keep. Their SQL is store/subscriptions.ts; creating one,
 * regenerating a key and changing a state are operations/subscriptions.ts.
 */
import type { Environment, ServiceId } from '../../services/contract.ts';
import { SUBSCRIPTION_ERRORS, SubscriptionError } from '../errors.ts';

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

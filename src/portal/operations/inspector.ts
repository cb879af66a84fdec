import { RETENTION_MS } from '../../gateway/domain/inspector.ts';
import { redactText, Secrets } from '../../gateway/domain/redaction.ts';
import { callOf, callsOf, type StoredCall } from '../../gateway/store/inspector.ts';
import type { PushDelivery } from '../../services/contract.ts';
import { notFound } from '../errors.ts';
import type { PortalDeps } from '../index.ts';
import type { PortalUser } from '../session.ts';
import { type MySubscription, subscriptionOf } from './subscriptions.ts';

/** The calls a page lists at most (the inspector keeps 500 per subscription). */
export const CALLS_SHOWN = 500;
/** Push deliveries a page lists at most. */
export const DELIVERIES_SHOWN = 100;

export interface Inspection {
  subscription: MySubscription;
  calls: StoredCall[];
  /** The subscription's watchlists' pushes, when its register has watchlists (the business number register). */
  deliveries: PushDelivery[] | undefined;
  /** Whether this environment keeps bodies (production only when an operator turned them on). */
  bodiesKept: boolean;
}

function environmentOfProduct(productId: string): 'sandbox' | 'production' {
  return productId.startsWith('production-') ? 'production' : 'sandbox';
}

/** Whether the inspector keeps the bodies of this environment's calls. */
export function keepsBodies(deps: PortalDeps, environment: 'sandbox' | 'production'): boolean {
  return environment === 'sandbox' || deps.runtime.config.inspector.productionBodies;
}

/**
 * The user's subscription's last calls (404 for a subscription that is not the user's: the same answer
 * as for one that does not exist) and its watchlists' push deliveries, asked of the register.
 */
export async function inspectionOf(
  deps: PortalDeps,
  user: PortalUser,
  subscriptionId: string,
): Promise<Inspection> {
  const pool = deps.runtime.gateway.pool;
  const subscription = await subscriptionOf(pool, user, subscriptionId);
  // The calls captured in this process in the last second are written first, so the page is current.
  await deps.runtime.inspector.flush();
  const since = new Date(Date.now() - RETENTION_MS);
  const calls = await callsOf(pool, subscription.id, since, CALLS_SHOWN);
  const environment = environmentOfProduct(subscription.productId);
  const service = deps.runtime.services.find((s) => subscription.productId === `${environment}-${s.id}`);
  const deliveries = service?.pushDeliveries
    ? (
        await service.pushDeliveries(
          deps.runtime.environments[environment],
          subscription.id,
          DELIVERIES_SHOWN,
        )
      ).map(redactDelivery)
    : undefined;
  return { subscription, calls, deliveries, bodiesKept: keepsBodies(deps, environment) };
}

/** A push endpoint may carry a token in its query, an error may quote it: redacted as calls are. */
function redactDelivery(delivery: PushDelivery): PushDelivery {
  const secrets = new Secrets();
  return {
    ...delivery,
    endpoint: redactText(delivery.endpoint, secrets),
    lastError: delivery.lastError === null ? null : redactText(delivery.lastError, secrets),
    failedAttempts: delivery.failedAttempts.map((attempt) => ({
      ...attempt,
      error: redactText(attempt.error, secrets),
    })),
  };
}

/** One call of the user's subscription; 404 for any other. */
export async function inspectedCallOf(
  deps: PortalDeps,
  user: PortalUser,
  subscriptionId: string,
  callId: string,
): Promise<{ subscription: MySubscription; call: StoredCall }> {
  const pool = deps.runtime.gateway.pool;
  const subscription = await subscriptionOf(pool, user, subscriptionId);
  await deps.runtime.inspector.flush();
  const call = await callOf(pool, subscription.id, callId, new Date(Date.now() - RETENTION_MS));
  if (!call)
    throw notFound(
      'This subscription has no such call (the inspector keeps 500 calls of the last 24 hours).',
    );
  return { subscription, call };
}

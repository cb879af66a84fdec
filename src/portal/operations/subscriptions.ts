import type { Pool } from 'pg';
import type { Product } from '../../gateway/domain/products.ts';
import type { KeySlot, Subscription } from '../../gateway/domain/subscriptions.ts';
import { SubscriptionError } from '../../gateway/errors.ts';
import { createSubscription, listSubscriptions } from '../../gateway/operations/subscriptions.ts';
import { findProduct } from '../../gateway/store/products.ts';
import {
  type RequestedSubscription,
  requestedSubscription,
  requestedSubscriptions,
} from '../../gateway/store/subscriptions.ts';
import { type DailyUsage, dailyUsage } from '../../gateway/store/usage.ts';
import { RuleError } from '../../platform/errors.ts';
import { sendMail } from '../../platform/mail.ts';
import { PRODUCT_ID } from '../domain/products.ts';
import { UUID } from '../domain/values.ts';
import { conflict, invalid, invalidField, notFound } from '../errors.ts';
import type { PortalDeps } from '../index.ts';
import type { PortalUser } from '../session.ts';
import { keysShownAmong, markKeysShown } from '../store/keys-shown.ts';
import { mailOperators, withUsers } from './users.ts';

/**
 * Subscriptions in the portal: the gateway's (subscriptions, keys, products, usage are its tables and
 * its functions), with what the portal keeps of its own: whether a subscription's keys were shown.
 * Keys are shown once, on the page that made them.
 */
export interface MySubscription extends Subscription {
  keysShown: boolean;
}

export type Keys = { primary?: string; secondary?: string };

export async function subscriptionsOf(
  pool: Pool,
  user: { id: string; email: string },
): Promise<MySubscription[]> {
  const subscriptions = (await listSubscriptions(pool, { userEmail: user.email })).filter(
    (subscription) => subscription.userId === user.id,
  );
  const shown = await keysShownAmong(
    pool,
    subscriptions.map((subscription) => subscription.id),
  );
  return subscriptions.map((subscription) => ({ ...subscription, keysShown: shown.has(subscription.id) }));
}

/** The user's subscription with this id: 404 for one that is not the user's (or is no id at all). */
export async function subscriptionOf(
  pool: Pool,
  user: { id: string; email: string },
  subscriptionId: string,
): Promise<MySubscription> {
  const found = UUID.test(subscriptionId)
    ? (await subscriptionsOf(pool, user)).find((subscription) => subscription.id === subscriptionId)
    : undefined;
  if (!found) throw notFound('You have no such subscription.');
  return found;
}

/** The user's live (not cancelled) subscriptions, by product; none when signed out. */
export async function liveSubscriptions(
  pool: Pool,
  user: PortalUser | undefined,
): Promise<Map<string, MySubscription>> {
  if (!user) return new Map();
  const mine = await subscriptionsOf(pool, user);
  return new Map(mine.filter((s) => s.state !== 'cancelled').map((s) => [s.productId, s]));
}

export type Subscribed =
  | { state: 'requested'; product: Product }
  | { state: 'active'; product: Product; keys: Required<Keys> };

/**
 * Subscribes the user: `active` with keys at once, or `requested` when the product needs approval (the
 * operators are mailed; the keys made now are never shown, fresh ones are once it is approved).
 */
export async function subscribe(deps: PortalDeps, user: PortalUser, productId: string): Promise<Subscribed> {
  const pool = deps.runtime.gateway.pool;
  const product = PRODUCT_ID.test(productId) ? await findProduct(pool, productId) : undefined;
  if (!product) throw invalid('Choose one of the listed products.');
  const current = (await subscriptionsOf(pool, user)).find(
    (s) => s.productId === product.id && s.state !== 'cancelled',
  );
  if (current) throw conflict(`You already have a ${current.state} subscription to ${product.name}.`);
  const state = product.approvalRequired ? 'requested' : 'active';
  const created = await createSubscription(pool, { userId: user.id, productId: product.id, state });
  if (state === 'requested') {
    await mailOperators(deps.mail, {
      subject: `Subscription request: ${product.name}`,
      text: `${user.name} <${user.email}> asks for a subscription to ${product.name}.\n\nApprove or reject it in the developer portal: /portal/operator/approvals\n`,
    });
    return { state, product };
  }
  await markKeysShown(pool, created.subscriptionId);
  return { state, product, keys: { primary: created.primaryKey, secondary: created.secondaryKey } };
}

/**
 * New keys for a slot (or both), shown once: the old key is refused at once, in every process
 * (`runtime.subscriptions.regenerateKey`).
 */
export async function newKeys(
  deps: PortalDeps,
  user: PortalUser,
  subscriptionId: string,
  slot: string,
): Promise<{ subscription: MySubscription; keys: Keys }> {
  const pool = deps.runtime.gateway.pool;
  const subscription = await subscriptionOf(pool, user, subscriptionId);
  if (!['primary', 'secondary', 'both'].includes(slot)) {
    throw invalidField('slot', 'must be primary, secondary or both');
  }
  if (subscription.state !== 'active' && subscription.state !== 'suspended') {
    throw conflict(`A ${subscription.state} subscription has no keys to show.`);
  }
  const keys: Keys = {};
  try {
    for (const which of ['primary', 'secondary'] as const satisfies readonly KeySlot[]) {
      if (slot === which || slot === 'both')
        keys[which] = await deps.runtime.subscriptions.regenerateKey(subscriptionId, which);
    }
  } catch (error) {
    if (error instanceof SubscriptionError) throw conflict(error.message);
    throw error;
  }
  await markKeysShown(pool, subscriptionId);
  return { subscription, keys };
}

/** The user's sandbox subscription with its product (a fault scenario is for sandbox subscriptions only). */
export async function sandboxSubscriptionOf(
  pool: Pool,
  user: PortalUser,
  subscriptionId: string,
): Promise<{ subscription: MySubscription; product: Product }> {
  const subscription = await subscriptionOf(pool, user, subscriptionId);
  const product = await findProduct(pool, subscription.productId);
  if (product?.environment !== 'sandbox') {
    throw notFound('Fault scenarios are for sandbox subscriptions only.');
  }
  return { subscription, product };
}

/**
 * Sets (or, blank, clears) the fault scenario every call with the user's sandbox subscription meets;
 * the next call meets it, in every process. Answers the subscription as it is now, and its product.
 */
export async function setScenario(
  deps: PortalDeps,
  user: PortalUser,
  subscriptionId: string,
  text: string,
): Promise<{ subscription: MySubscription; product: Product }> {
  const found = await sandboxSubscriptionOf(deps.runtime.gateway.pool, user, subscriptionId);
  try {
    const sandboxScenario = await deps.runtime.subscriptions.setScenario(subscriptionId, text);
    return { ...found, subscription: { ...found.subscription, sandboxScenario } };
  } catch (error) {
    if (error instanceof SubscriptionError && error.code.status === 409) throw conflict(error.message);
    if (error instanceof RuleError) throw invalidField(error.field, error.rule);
    throw error;
  }
}

/** The usage of the user's subscription per day, the last `days` days, counted up to this moment. */
export async function usageOf(
  deps: PortalDeps,
  user: PortalUser,
  subscriptionId: string,
  days: number,
): Promise<{ subscription: MySubscription; usage: DailyUsage[] }> {
  const pool = deps.runtime.gateway.pool;
  const subscription = await subscriptionOf(pool, user, subscriptionId);
  // Calls counted in this process in the last few seconds are written first, so the page is current.
  await deps.runtime.usage.flush();
  return { subscription, usage: await dailyUsage(pool, subscriptionId, days, new Date()) };
}

export type SubscriptionRequest = RequestedSubscription & { userEmail: string; userName: string };

/** Subscriptions waiting for an operator, oldest first, with their users. */
export async function pendingRequests(pool: Pool): Promise<SubscriptionRequest[]> {
  return withUsers(pool, await requestedSubscriptions(pool));
}

/**
 * An operator approves (`active`) or rejects (`cancelled`) a requested subscription; the requester is
 * mailed, with the operator's note when there is one. Answers whether it was approved.
 */
export async function decideSubscription(
  deps: PortalDeps,
  id: string,
  decision: string,
  reason: string,
): Promise<boolean> {
  const pool = deps.runtime.gateway.pool;
  const found = UUID.test(id) ? await requestedSubscription(pool, id) : undefined;
  const pending = found && (await withUsers(pool, [found]))[0];
  if (!pending) throw notFound('No request with that id is waiting.');
  if (decision !== 'approve' && decision !== 'reject') {
    throw invalidField('decision', 'must be approve or reject');
  }
  try {
    await deps.runtime.subscriptions.changeState(id, decision === 'approve' ? 'active' : 'cancelled');
  } catch (error) {
    if (error instanceof SubscriptionError) throw conflict(error.message);
    throw error;
  }
  const approved = decision === 'approve';
  await sendMail(deps.mail, {
    to: pending.userEmail,
    subject: `Your subscription to ${pending.productName} was ${approved ? 'approved' : 'declined'}`,
    text: [
      `Hello ${pending.userName},`,
      '',
      approved
        ? `Your subscription to ${pending.productName} is active. Get your keys in the developer portal: ${deps.runtime.publicUrl.base}/portal/subscriptions`
        : `Your request for a subscription to ${pending.productName} was declined.`,
      ...(reason ? ['', `Note from the operator: ${reason}`] : []),
      '',
      '— Register Services Gateway',
    ].join('\n'),
  });
  return approved;
}

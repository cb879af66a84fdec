/**
 * What is done with subscriptions (the admin routes, the portal, the CLI, the first start): each change
 * in one transaction with its preconditions, announced on the change feed so every process's key cache
 * forgets the old answer at once.
 */
import type { Pool, PoolClient } from 'pg';
import { findUserByEmail, findUserById, usersByIds } from '../../identity/store/users.ts';
import { publish } from '../../platform/db/notify.ts';
import { withTransaction } from '../../platform/db/pool.ts';
import { generateKey, hashKey, keyHint } from '../domain/keys.ts';
import {
  checkKeysRegenerable,
  checkTransition,
  type KeyOwner,
  type KeySlot,
  type Subscription,
  type SubscriptionState,
  storedScenario,
  subscriptionScenario,
  unknownProduct,
  unknownSubscription,
} from '../domain/subscriptions.ts';
import { productExists } from '../store/products.ts';
import {
  insertSubscription,
  keyOwnerByHash,
  lockSubscriptionProduct,
  lockSubscriptionState,
  replaceKey,
  sandboxScenarioOf,
  subscriptionRows,
  updateSandboxScenario,
  updateSubscriptionState,
} from '../store/subscriptions.ts';

/** A fresh key in the slot; the key itself is returned once and never stored. */
async function freshKey(tx: PoolClient, subscriptionId: string, slot: KeySlot): Promise<string> {
  const key = generateKey();
  await replaceKey(tx, subscriptionId, slot, { hash: hashKey(key), hint: keyHint(key) });
  return key;
}

export interface CreatedSubscription {
  subscriptionId: string;
  primaryKey: string;
  secondaryKey: string;
  state: SubscriptionState;
}

export async function createSubscription(
  pool: Pool,
  input: { userId: string; productId: string; name?: string; state: 'requested' | 'active' },
): Promise<CreatedSubscription> {
  return withTransaction(pool, async (tx) => {
    if (!(await productExists(tx, input.productId))) throw unknownProduct(input.productId);
    const subscriptionId = await insertSubscription(tx, {
      userId: input.userId,
      productId: input.productId,
      name: input.name ?? input.productId,
      state: input.state,
    });
    const primaryKey = await freshKey(tx, subscriptionId, 'primary');
    const secondaryKey = await freshKey(tx, subscriptionId, 'secondary');
    return { subscriptionId, primaryKey, secondaryKey, state: input.state };
  });
}

/** The old key stops working at once: here through the notice, in other processes through LISTEN. */
export async function regenerateKey(pool: Pool, subscriptionId: string, slot: KeySlot): Promise<string> {
  return withTransaction(pool, async (tx) => {
    const state = await lockSubscriptionState(tx, subscriptionId);
    if (!state) throw unknownSubscription(subscriptionId);
    checkKeysRegenerable(state);
    const fresh = await freshKey(tx, subscriptionId, slot);
    await publish(tx, { kind: 'subscription', id: subscriptionId });
    return fresh;
  });
}

export async function changeState(
  pool: Pool,
  subscriptionId: string,
  next: SubscriptionState,
): Promise<void> {
  await withTransaction(pool, async (tx) => {
    const state = await lockSubscriptionState(tx, subscriptionId);
    if (!state) throw unknownSubscription(subscriptionId);
    checkTransition(state, next);
    await updateSubscriptionState(tx, subscriptionId, next);
    await publish(tx, { kind: 'subscription', id: subscriptionId });
  });
}

/**
 * Sets (or, with null or blank text, clears) the fault scenario every call with the subscription's keys
 * meets: sandbox subscriptions only, a scenario their register can play (domain/subscriptions.ts). Every
 * process's key cache forgets the subscription at once, so the next call meets the new scenario.
 * Returns the scenario as stored (canonical text), or null.
 */
export async function setSubscriptionScenario(
  pool: Pool,
  subscriptionId: string,
  text: string | null,
): Promise<string | null> {
  return withTransaction(pool, async (tx) => {
    const subscription = await lockSubscriptionProduct(tx, subscriptionId);
    if (!subscription) throw unknownSubscription(subscriptionId);
    const scenario = subscriptionScenario(text, subscription);
    await updateSandboxScenario(tx, subscriptionId, scenario);
    await publish(tx, { kind: 'subscription', id: subscriptionId });
    return scenario;
  });
}

/** The fault scenario set on the subscription now (canonical text), or null. */
export async function subscriptionScenarioNow(pool: Pool, subscriptionId: string): Promise<string | null> {
  const found = await sandboxScenarioOf(pool, subscriptionId);
  if (!found) throw unknownSubscription(subscriptionId);
  return found.scenario;
}

export async function findKeyOwner(pool: Pool, key: string): Promise<KeyOwner | undefined> {
  const row = await keyOwnerByHash(pool, hashKey(key));
  if (!row) return undefined;
  const { sandboxScenario, ...owner } = row;
  // Whether the subscriber is an operator is identity's to say.
  const user = await findUserById(pool, owner.userId);
  // A scenario only ever plays in the sandbox, whatever a row says.
  const scenario = owner.environment === 'sandbox' ? storedScenario(sandboxScenario) : undefined;
  return user && { ...owner, isOperator: user.isOperator, scenario };
}

export async function listSubscriptions(
  pool: Pool,
  filter: { userEmail?: string } = {},
): Promise<Subscription[]> {
  // The subscriber by email, and each subscriber's email, come from identity.
  const only = filter.userEmail === undefined ? undefined : await findUserByEmail(pool, filter.userEmail);
  if (filter.userEmail !== undefined && !only) return [];
  const rows = await subscriptionRows(pool, only?.id ?? null);
  const users = await usersByIds(
    pool,
    rows.map((row) => row.userId),
  );
  return rows.flatMap(({ id, userId, ...rest }) => {
    const user = users.get(userId);
    return user ? [{ id, userId, userEmail: user.email, ...rest }] : [];
  });
}

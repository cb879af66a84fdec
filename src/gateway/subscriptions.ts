import type { Pool, PoolClient } from 'pg';
import { findUserByEmail, findUserById, usersByIds } from '../identity/store/users.ts';
import { publish } from '../platform/db/notify.ts';
import { withTransaction } from '../platform/db/pool.ts';
import { RuleError } from '../platform/errors.ts';
import type { ErrorCode } from '../platform/http/error-codes.ts';
import { type Environment, productId as makeProductId, type ServiceId } from '../services/contract.ts';
import { SUBSCRIPTION_ERRORS } from './errors.ts';
import { generateKey, hashKey, keyHint } from './keys.ts';

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

const unknownSubscription = (id: string) =>
  new SubscriptionError(
    SUBSCRIPTION_ERRORS.unknownSubscription,
    'subscription',
    'is no subscription',
    `no subscription "${id}"`,
  );

/** A product or subscription rule broken: its code (`SUBSCRIPTION_ERRORS`) tells which. */
export class SubscriptionError extends RuleError {
  constructor(code: ErrorCode, field: string, rule: string, message: string) {
    super(field, rule, { code, message });
  }
}

async function storeKey(client: PoolClient, subscriptionId: string, slot: KeySlot): Promise<string> {
  const key = generateKey();
  await client.query('DELETE FROM subscription_keys WHERE subscription_id = $1 AND slot = $2', [
    subscriptionId,
    slot,
  ]);
  await client.query(
    'INSERT INTO subscription_keys (hash, subscription_id, slot, hint) VALUES ($1, $2, $3, $4)',
    [hashKey(key), subscriptionId, slot, keyHint(key)],
  );
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
  return withTransaction(pool, async (client) => {
    const product = await client.query('SELECT id FROM products WHERE id = $1', [input.productId]);
    if (product.rowCount === 0)
      throw new SubscriptionError(
        SUBSCRIPTION_ERRORS.unknownProduct,
        'product',
        'is no product',
        `no product "${input.productId}"`,
      );
    const inserted = await client.query<{ id: string }>(
      'INSERT INTO subscriptions (user_id, product_id, name, state) VALUES ($1, $2, $3, $4) RETURNING id',
      [input.userId, input.productId, input.name ?? input.productId, input.state],
    );
    const subscriptionId = inserted.rows[0]!.id;
    const primaryKey = await storeKey(client, subscriptionId, 'primary');
    const secondaryKey = await storeKey(client, subscriptionId, 'secondary');
    return { subscriptionId, primaryKey, secondaryKey, state: input.state };
  });
}

/** The old key stops working at once: here through the notice, in other processes through LISTEN. */
export async function regenerateKey(pool: Pool, subscriptionId: string, slot: KeySlot): Promise<string> {
  const key = await withTransaction(pool, async (client) => {
    const found = await client.query<{ state: SubscriptionState }>(
      'SELECT state FROM subscriptions WHERE id = $1 FOR UPDATE',
      [subscriptionId],
    );
    const state = found.rows[0]?.state;
    if (!state) throw unknownSubscription(subscriptionId);
    if (state === 'cancelled')
      throw new SubscriptionError(
        SUBSCRIPTION_ERRORS.subscriptionState,
        'subscription',
        'is cancelled',
        'a cancelled subscription has no keys to regenerate',
      );
    const fresh = await storeKey(client, subscriptionId, slot);
    await publish(client, { kind: 'subscription', id: subscriptionId });
    return fresh;
  });
  return key;
}

export async function changeState(
  pool: Pool,
  subscriptionId: string,
  next: SubscriptionState,
): Promise<void> {
  await withTransaction(pool, async (client) => {
    const found = await client.query<{ state: SubscriptionState }>(
      'SELECT state FROM subscriptions WHERE id = $1 FOR UPDATE',
      [subscriptionId],
    );
    const state = found.rows[0]?.state;
    if (!state) throw unknownSubscription(subscriptionId);
    if (!TRANSITIONS[state].includes(next)) {
      throw new SubscriptionError(
        SUBSCRIPTION_ERRORS.subscriptionState,
        'state',
        `cannot become ${next} from ${state}`,
        `a ${state} subscription cannot become ${next}`,
      );
    }
    await client.query('UPDATE subscriptions SET state = $2, state_changed_at = now() WHERE id = $1', [
      subscriptionId,
      next,
    ]);
    await publish(client, { kind: 'subscription', id: subscriptionId });
  });
}

export async function findKeyOwner(pool: Pool, key: string): Promise<KeyOwner | undefined> {
  const result = await pool.query<Omit<KeyOwner, 'isOperator'>>(
    `SELECT s.id AS "subscriptionId", s.user_id AS "userId", s.product_id AS "productId",
            p.environment, p.service, s.state,
            p.rate_limit_per_minute AS "rateLimitPerMinute", p.quota_calls AS "quotaCalls",
            p.quota_period_seconds AS "quotaPeriodSeconds"
       FROM subscription_keys k
       JOIN subscriptions s ON s.id = k.subscription_id
       JOIN products p ON p.id = s.product_id
      WHERE k.hash = $1`,
    [hashKey(key)],
  );
  const owner = result.rows[0];
  if (!owner) return undefined;
  // Whether the subscriber is an operator is identity's to say.
  const user = await findUserById(pool, owner.userId);
  return user && { ...owner, isOperator: user.isOperator };
}

export async function listSubscriptions(
  pool: Pool,
  filter: { userEmail?: string } = {},
): Promise<Subscription[]> {
  // The subscriber by email, and each subscriber's email, come from identity.
  const only = filter.userEmail === undefined ? undefined : await findUserByEmail(pool, filter.userEmail);
  if (filter.userEmail !== undefined && !only) return [];
  const result = await pool.query<Omit<Subscription, 'userEmail'>>(
    `SELECT s.id, s.user_id AS "userId", s.product_id AS "productId", s.name, s.state,
            s.created_at AS "createdAt", s.state_changed_at AS "stateChangedAt",
            COALESCE(MAX(k.hint) FILTER (WHERE k.slot = 'primary'), '') AS "primaryKeyHint",
            COALESCE(MAX(k.hint) FILTER (WHERE k.slot = 'secondary'), '') AS "secondaryKeyHint"
       FROM subscriptions s
       LEFT JOIN subscription_keys k ON k.subscription_id = s.id
      WHERE ($1::uuid IS NULL OR s.user_id = $1)
      GROUP BY s.id
      ORDER BY s.created_at, s.product_id`,
    [only?.id ?? null],
  );
  const users = await usersByIds(
    pool,
    result.rows.map((row) => row.userId),
  );
  return result.rows.flatMap(({ id, userId, ...rest }) => {
    const user = users.get(userId);
    return user ? [{ id, userId, userEmail: user.email, ...rest }] : [];
  });
}

/** A subscription waiting for an operator's decision, with its product's name. */
export interface RequestedSubscription {
  id: string;
  productId: string;
  productName: string;
  name: string;
  userId: string;
  createdAt: Date;
}

const REQUESTED_COLUMNS = `s.id, s.product_id AS "productId", p.name AS "productName", s.name, s.user_id AS "userId",
  s.created_at AS "createdAt"`;
const REQUESTED_FROM = 'subscriptions s JOIN products p ON p.id = s.product_id';

/** Subscriptions waiting for an operator, oldest first (the portal's approvals page). */
export async function requestedSubscriptions(pool: Pool): Promise<RequestedSubscription[]> {
  const result = await pool.query<RequestedSubscription>(
    `SELECT ${REQUESTED_COLUMNS} FROM ${REQUESTED_FROM} WHERE s.state = 'requested' ORDER BY s.created_at LIMIT 500`,
  );
  return result.rows;
}

/** One subscription waiting for an operator; undefined when it is not waiting (or does not exist). */
export async function requestedSubscription(
  pool: Pool,
  id: string,
): Promise<RequestedSubscription | undefined> {
  const result = await pool.query<RequestedSubscription>(
    `SELECT ${REQUESTED_COLUMNS} FROM ${REQUESTED_FROM} WHERE s.state = 'requested' AND s.id = $1`,
    [id],
  );
  return result.rows[0];
}

export { makeProductId };

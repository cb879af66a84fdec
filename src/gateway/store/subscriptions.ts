/**
 * The SQL of `subscriptions` and `subscription_keys` (gateway database). Keys are stored only as
 * SHA-256 hashes with a four-character hint; the statements that change a subscription run inside the
 * transaction of their operation (operations/subscriptions.ts).
 */
import type { Pool, PoolClient } from 'pg';
import type { Environment, ServiceId } from '../../services/contract.ts';
import type { KeyOwner, KeySlot, Subscription, SubscriptionState } from '../domain/subscriptions.ts';

export async function insertSubscription(
  tx: PoolClient,
  input: { userId: string; productId: string; name: string; state: SubscriptionState },
): Promise<string> {
  const inserted = await tx.query<{ id: string }>(
    'INSERT INTO subscriptions (user_id, product_id, name, state) VALUES ($1, $2, $3, $4) RETURNING id',
    [input.userId, input.productId, input.name, input.state],
  );
  return inserted.rows[0]!.id;
}

/** The key of one slot, replaced by the key with this hash and hint (the old one stops working). */
export async function replaceKey(
  tx: PoolClient,
  subscriptionId: string,
  slot: KeySlot,
  key: { hash: Buffer; hint: string },
): Promise<void> {
  await tx.query('DELETE FROM subscription_keys WHERE subscription_id = $1 AND slot = $2', [
    subscriptionId,
    slot,
  ]);
  await tx.query(
    'INSERT INTO subscription_keys (hash, subscription_id, slot, hint) VALUES ($1, $2, $3, $4)',
    [key.hash, subscriptionId, slot, key.hint],
  );
}

/** The subscription's state, its row locked until the transaction ends; undefined when there is none. */
export async function lockSubscriptionState(
  tx: PoolClient,
  subscriptionId: string,
): Promise<SubscriptionState | undefined> {
  const found = await tx.query<{ state: SubscriptionState }>(
    'SELECT state FROM subscriptions WHERE id = $1 FOR UPDATE',
    [subscriptionId],
  );
  return found.rows[0]?.state;
}

export async function updateSubscriptionState(
  tx: PoolClient,
  subscriptionId: string,
  state: SubscriptionState,
): Promise<void> {
  await tx.query('UPDATE subscriptions SET state = $2, state_changed_at = now() WHERE id = $1', [
    subscriptionId,
    state,
  ]);
}

/** A key owner as its row holds it: the scenario is still text (operations/subscriptions.ts parses it). */
export type KeyOwnerRow = Omit<KeyOwner, 'isOperator' | 'scenario'> & { sandboxScenario: string | null };

/**
 * The subscription's state and its product's environment and service, its row locked until the
 * transaction ends; undefined when there is none.
 */
export async function lockSubscriptionProduct(
  tx: PoolClient,
  subscriptionId: string,
): Promise<{ state: SubscriptionState; environment: Environment; service: ServiceId } | undefined> {
  const found = await tx.query<{ state: SubscriptionState; environment: Environment; service: ServiceId }>(
    `SELECT s.state, p.environment, p.service
       FROM subscriptions s JOIN products p ON p.id = s.product_id
      WHERE s.id = $1 FOR UPDATE OF s`,
    [subscriptionId],
  );
  return found.rows[0];
}

/** The subscription's fault scenario (its canonical text), or none. */
export async function updateSandboxScenario(
  tx: PoolClient,
  subscriptionId: string,
  scenario: string | null,
): Promise<void> {
  await tx.query('UPDATE subscriptions SET sandbox_scenario = $2 WHERE id = $1', [subscriptionId, scenario]);
}

/** The subscription's fault scenario (its canonical text, or null); undefined when there is none. */
export async function sandboxScenarioOf(
  pool: Pool,
  subscriptionId: string,
): Promise<{ scenario: string | null } | undefined> {
  const found = await pool.query<{ scenario: string | null }>(
    'SELECT sandbox_scenario AS scenario FROM subscriptions WHERE id = $1',
    [subscriptionId],
  );
  return found.rows[0];
}

/** The subscription and product of the key with this hash (whether its user is an operator is identity's). */
export async function keyOwnerByHash(pool: Pool, hash: Buffer): Promise<KeyOwnerRow | undefined> {
  const result = await pool.query<KeyOwnerRow>(
    `SELECT s.id AS "subscriptionId", s.user_id AS "userId", s.product_id AS "productId",
            p.environment, p.service, s.state, s.sandbox_scenario AS "sandboxScenario",
            p.rate_limit_per_minute AS "rateLimitPerMinute", p.quota_calls AS "quotaCalls",
            p.quota_period_seconds AS "quotaPeriodSeconds"
       FROM subscription_keys k
       JOIN subscriptions s ON s.id = k.subscription_id
       JOIN products p ON p.id = s.product_id
      WHERE k.hash = $1`,
    [hash],
  );
  return result.rows[0];
}

/** Every subscription (or one user's, by id) with its keys' hints, oldest first; emails are identity's. */
export async function subscriptionRows(
  pool: Pool,
  userId: string | null,
): Promise<Omit<Subscription, 'userEmail'>[]> {
  const result = await pool.query<Omit<Subscription, 'userEmail'>>(
    `SELECT s.id, s.user_id AS "userId", s.product_id AS "productId", s.name, s.state,
            s.created_at AS "createdAt", s.state_changed_at AS "stateChangedAt",
            s.sandbox_scenario AS "sandboxScenario",
            COALESCE(MAX(k.hint) FILTER (WHERE k.slot = 'primary'), '') AS "primaryKeyHint",
            COALESCE(MAX(k.hint) FILTER (WHERE k.slot = 'secondary'), '') AS "secondaryKeyHint"
       FROM subscriptions s
       LEFT JOIN subscription_keys k ON k.subscription_id = s.id
      WHERE ($1::uuid IS NULL OR s.user_id = $1)
      GROUP BY s.id
      ORDER BY s.created_at, s.product_id`,
    [userId],
  );
  return result.rows;
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

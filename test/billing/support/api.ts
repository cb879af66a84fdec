import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { DEFAULT_FEE_SCHEDULE } from '../../../src/billing/domain/fee-schedule.ts';
import { type FeeCaller, type ServiceFees, serviceFees } from '../../../src/billing/fees.ts';
import type { PayerCache } from '../../../src/billing/store/payer-cache.ts';
import { createSubscription } from '../../../src/gateway/operations/subscriptions.ts';
import type { MembershipRole } from '../../../src/identity/domain/organisations.ts';
import { addOrganisation } from '../../../src/identity/operations/organisations.ts';
import { addUser } from '../../../src/identity/operations/users.ts';
import { addMember } from '../../../src/identity/store/memberships.ts';
import type { Clock } from '../../../src/platform/clock.ts';
import type { Environment } from '../../../src/services/contract.ts';
import type { TestGateway } from '../../support/runtime.ts';

/** `context.fees` as the gateway builds it for one service and environment, on the test's databases. */
export function feesOf(
  gateway: TestGateway,
  environment: Environment,
  options: { service?: string; enabled?: boolean; payers?: PayerCache; clock?: Clock } = {},
): ServiceFees {
  return serviceFees({
    environment,
    service: options.service ?? 'ppsr',
    database: gateway.runtime.environments[environment].pool,
    gateway: gateway.runtime.gateway.pool,
    clock: options.clock ?? gateway.runtime.clocks.for(environment),
    schedule: DEFAULT_FEE_SCHEDULE,
    enabled: options.enabled ?? true,
    payers: options.payers,
  });
}

/** A user with a subscription to the environment's ppsr product: the caller a register would see. */
export async function apiCaller(gateway: TestGateway, environment: Environment): Promise<FeeCaller> {
  const pool = gateway.runtime.gateway.pool;
  const user = await addUser(pool, { email: `${randomBytes(5).toString('hex')}@example.test` });
  const { subscriptionId } = await createSubscription(pool, {
    userId: user.id,
    productId: `${environment}-ppsr`,
    state: 'active',
  });
  return { subscriptionId, subscriberId: user.id };
}

/** A new organisation of the environment with the user as a member. */
export async function organisationOf(
  gateway: TestGateway,
  environment: Environment,
  userId: string,
  role: MembershipRole = 'owner',
): Promise<{ id: string; identifier: string }> {
  const pool = gateway.runtime.gateway.pool;
  const organisation = await addOrganisation(pool, {
    environment,
    identifier: `org-${randomBytes(4).toString('hex')}`,
    name: 'Test organisation',
  });
  await addMember(pool, organisation.id, userId, role);
  return organisation;
}

/** Every row of every table of a database (but `except`), hashed: what a refused call must leave as it was. */
export async function fingerprint(pool: pg.Pool, except: readonly string[] = []): Promise<string> {
  const tables = await pool.query<{ name: string }>(
    `SELECT quote_ident(table_name) AS name FROM information_schema.tables
      WHERE table_schema = 'public' AND table_type = 'BASE TABLE' AND NOT table_name = ANY($1::text[])
      ORDER BY 1`,
    [except],
  );
  const parts: string[] = [];
  for (const { name } of tables.rows) {
    const result = await pool.query<{ digest: string | null; n: number }>(
      `SELECT md5(string_agg(t::text, '|' ORDER BY t::text)) AS digest, count(*)::int AS n FROM ${name} t`,
    );
    parts.push(`${name}:${result.rows[0]!.n}:${result.rows[0]!.digest ?? ''}`);
  }
  return parts.join('\n');
}

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approveAuthority, requestAuthority } from '../../../src/billing/store/authorities.ts';
import { createSubscription } from '../../../src/gateway/operations/subscriptions.ts';
import { addOrganisation } from '../../../src/identity/operations/organisations.ts';
import { addUser } from '../../../src/identity/operations/users.ts';
import { addMember } from '../../../src/identity/store/memberships.ts';
import { type PpsrTest, PRODUCTION, ppsrTest, requestId } from './support/api.ts';

/**
 * Request ids in production, where fees need an approved direct debit authority: a search
 * refused before the register starts keeps nothing under its id, so the id runs once the authority is
 * approved, with one fee and the next certificate number; a concurrent burst of one id runs once. The
 * platform timeout is the default: a slow machine answers late, never 504.
 */
let test: PpsrTest;
beforeAll(async () => {
  test = await ppsrTest({ env: { RSG_PPSR_USER_RATE_LIMIT: '0' } });
}, 120_000);
afterAll(async () => test?.close());

describe('a request id refused before the register starts', () => {
  const production = () => test.gateway.runtime.environments.production.pool;
  const vehicleSearch = {
    searchBy: 'motorVehicle',
    legitimateSearchReason: 'yes',
    searchByMotorVehicle: { registrationPlate: 'ABC123' },
  };

  /** A production subscriber of its own, the only member of a new organisation without an authority. */
  async function productionLender() {
    const gatewayPool = test.gateway.runtime.gateway.pool;
    const tag = requestId().slice(0, 8);
    const user = await addUser(gatewayPool, { email: `lender-${tag}@example.test` });
    const organisation = await addOrganisation(gatewayPool, {
      environment: 'production',
      identifier: `ppsr-searcher-${tag}`,
      name: 'Production Searcher',
    });
    await addMember(gatewayPool, organisation.id, user.id, 'owner');
    const { primaryKey } = await createSubscription(gatewayPool, {
      userId: user.id,
      productId: 'production-ppsr',
      state: 'active',
    });
    const search = (id: string) =>
      test.call('POST', '/financing-statements-search', {
        base: PRODUCTION,
        key: primaryKey,
        token: null,
        body: vehicleSearch,
        headers: { 'api-business-govt-nz-Request-Id': id },
      });
    const approve = async () => {
      const requested = await requestAuthority(production(), 'production', {
        organisationId: organisation.id,
        accountName: 'Production Searcher Ltd',
        accountNumber: '12-3140-0123456-00',
        now: new Date(),
      });
      await approveAuthority(production(), requested.id, { now: new Date() });
    };
    return { organisation, search, approve };
  }

  const productionCount = async (sql: string, params: unknown[]) =>
    Number((await production().query<{ n: string }>(sql, params)).rows[0]!.n);

  it('keeps nothing under the id: once approved, the same id runs once, one fee, the next certificate number', async () => {
    const lender = await productionLender();
    const id = requestId();
    const sequence = async () => {
      const row = (
        await production().query<{ last_value: string; is_called: boolean }>(
          'SELECT last_value, is_called FROM ppsr_search_certificate_numbers',
        )
      ).rows[0]!;
      return Number(row.last_value) + (row.is_called ? 1 : 0);
    };
    const next = await sequence();
    const refused = await lender.search(id);
    expect(refused.statusCode, refused.body).toBe(403);
    expect(refused.json().type).toBe('about:blank#direct-debit-authority-required');
    // No transaction under the id and no certificate number used up.
    expect(
      await productionCount('SELECT count(*) AS n FROM ppsr_transactions WHERE request_id = $1', [id]),
    ).toBe(0);
    expect(await sequence()).toBe(next);
    await lender.approve();
    const ran = await lender.search(id);
    expect(ran.statusCode, ran.body).toBe(200);
    expect(ran.json().searchCertificateNumber).toBe(`SC${String(next).padStart(10, '0')}`);
    const repeated = await lender.search(id);
    expect(repeated.body).toBe(ran.body);
    expect(await productionCount('SELECT count(*) AS n FROM fee_records WHERE request_id = $1', [id])).toBe(
      1,
    );
    expect(
      await productionCount(
        `SELECT count(*) AS n FROM ppsr_searches s JOIN ppsr_transactions t ON t.id = s.transaction_id
          WHERE t.request_id = $1`,
        [id],
      ),
    ).toBe(1);
  });

  it('runs a concurrent burst of 50 with one id once: one search, one fee, one answer', async () => {
    const lender = await productionLender();
    await lender.approve();
    const id = requestId();
    const answers = await Promise.all(Array.from({ length: 50 }, () => lender.search(id)));
    expect(answers.map((a) => a.statusCode)).toEqual(answers.map(() => 200));
    expect(new Set(answers.map((a) => a.json().searchCertificateNumber)).size).toBe(1);
    expect(await productionCount('SELECT count(*) AS n FROM fee_records WHERE request_id = $1', [id])).toBe(
      1,
    );
    expect(
      await productionCount(
        `SELECT count(*) AS n FROM ppsr_searches s JOIN ppsr_transactions t ON t.id = s.transaction_id
          WHERE t.request_id = $1`,
        [id],
      ),
    ).toBe(1);
  });
});

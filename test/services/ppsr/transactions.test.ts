import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { approveAuthority, requestAuthority } from '../../../src/billing/store/authorities.ts';
import {
  createSubscription,
  setSubscriptionScenario,
} from '../../../src/gateway/operations/subscriptions.ts';
import { addOrganisation } from '../../../src/identity/operations/organisations.ts';
import { addMember } from '../../../src/identity/store/memberships.ts';
import { type PpsrTest, PRODUCTION, ppsrTest, registration, requestId } from './support/api.ts';

/**
 * Transactions: a request id's repeats answer the first outcome (sequential and 100 concurrent: one
 * registration, one fee), another body under the same id is refused, SEC_56 finds a transaction only once
 * it has ended, and the timeout rehearsal end to end with a short platform timeout: 504 at the gateway,
 * the transaction completed, found by SEC_56. Fees in production need an organisation with an authority.
 */
let test: PpsrTest;
beforeAll(async () => {
  test = await ppsrTest({ env: { RSG_PPSR_PLATFORM_TIMEOUT_MS: '1500', RSG_PPSR_USER_RATE_LIMIT: '0' } });
}, 120_000);
afterAll(async () => test?.close());

const sandbox = () => test.gateway.runtime.environments.sandbox.pool;
const count = async (sql: string, params: unknown[]) =>
  Number((await sandbox().query<{ n: string }>(sql, params)).rows[0]!.n);
const lookup = (id: string) => test.call('GET', `/customer-organisation-transactions?request-id=${id}`);

describe('idempotency by request id', () => {
  it('answers a repeat with the first outcome: one registration, one fee', async () => {
    const id = requestId();
    const headers = { 'api-business-govt-nz-Request-Id': id };
    const first = await test.call('POST', '/financing-statements', { body: registration(), headers });
    const second = await test.call('POST', '/financing-statements', { body: registration(), headers });
    expect(first.statusCode, first.body).toBe(201);
    expect(second.statusCode).toBe(201);
    expect(second.json().registrationNumber).toBe(first.json().registrationNumber);
    // The same bytes, not only the same JSON.
    expect(second.body).toBe(first.body);
    expect(second.headers.etag).toBe(first.headers.etag);
    expect(await count('SELECT count(*) AS n FROM fee_records WHERE request_id = $1', [id])).toBe(1);
  });

  it('takes the published v1 header as the request id and echoes it', async () => {
    const id = `v1-${requestId()}`;
    const first = await test.call('POST', '/financing-statements', {
      body: registration(),
      headers: { 'NZRIS-org-nz-Request-Id': id },
    });
    expect(first.statusCode, first.body).toBe(201);
    expect(first.headers['nzris-org-nz-request-id']).toBe(id);
    const found = (await lookup(id)).json().transactions;
    expect(found).toHaveLength(1);
    expect(found[0].registrationNumber).toBe(first.json().registrationNumber);
  });

  it('refuses the same request id with another body (409), changing nothing', async () => {
    const id = requestId();
    const headers = { 'api-business-govt-nz-Request-Id': id };
    await test.call('POST', '/financing-statements', { body: registration(), headers });
    const before = await count('SELECT count(*) AS n FROM ppsr_financing_statements', []);
    const reused = await test.call('POST', '/financing-statements', {
      body: registration({ expiryDate: '2028-01-01' }),
      headers,
    });
    expect(reused.statusCode).toBe(409);
    expect(reused.json().type).toBe('about:blank#request-id-reused');
    expect(reused.json().errors[0].field).toBe('api-business-govt-nz-Request-Id');
    expect(await count('SELECT count(*) AS n FROM ppsr_financing_statements', [])).toBe(before);
  });

  it('keys nothing by an id the gateway made: a caller who then sends it explicitly starts a request of its own', async () => {
    const first = await test.call('POST', '/financing-statements', { body: registration() });
    expect(first.statusCode, first.body).toBe(201);
    const generated = first.headers['api-business-govt-nz-request-id'] as string;
    expect(generated).toMatch(/^[0-9a-f-]{36}$/);
    // Another body under that id: not refused as a reuse (409), and not the first answer replayed.
    const other = await test.call('POST', '/financing-statements', {
      body: registration({ expiryDate: '2028-01-01' }),
      headers: { 'api-business-govt-nz-Request-Id': generated },
    });
    expect(other.statusCode, other.body).toBe(201);
    expect(other.json().registrationNumber).not.toBe(first.json().registrationNumber);
    // The caller's own id is a key from then on: its repeat answers its first outcome.
    const repeat = await test.call('POST', '/financing-statements', {
      body: registration({ expiryDate: '2028-01-01' }),
      headers: { 'api-business-govt-nz-Request-Id': generated },
    });
    expect(repeat.body).toBe(other.body);
    // SEC_56 finds both by the id: the one the gateway made, and the caller's.
    const found = (await lookup(generated)).json().transactions;
    expect(found.map((t: { registrationNumber: string }) => t.registrationNumber).sort()).toEqual(
      [first.json().registrationNumber, other.json().registrationNumber].sort(),
    );
  });

  it.each([
    ['processed at once', undefined],
    ['held back by the sandbox', '0.2'],
  ])('keeps 100 concurrent repeats to one registration and one fee (%s)', async (_, delay) => {
    const id = requestId();
    const answers = await Promise.all(
      Array.from({ length: 100 }, () =>
        test.call('POST', '/financing-statements', {
          body: registration(),
          headers: {
            'api-business-govt-nz-Request-Id': id,
            ...(delay ? { 'Sandbox-Processing-Delay': delay } : {}),
          },
        }),
      ),
    );
    const numbers = new Set(answers.map((a) => a.json().registrationNumber));
    expect(answers.map((a) => a.statusCode).filter((s) => s !== 201)).toEqual([]);
    expect(numbers.size).toBe(1);
    expect(await count('SELECT count(*) AS n FROM fee_records WHERE request_id = $1', [id])).toBe(1);
    expect(await count('SELECT count(*) AS n FROM ppsr_transactions WHERE request_id = $1', [id])).toBe(1);
    expect(
      await count('SELECT count(*) AS n FROM ppsr_financing_statements WHERE registration_number = ANY($1)', [
        [...numbers],
      ]),
    ).toBe(1);
  });

  it('records a refused registration as a failed transaction (400) and replays the refusal', async () => {
    const id = requestId();
    const headers = { 'api-business-govt-nz-Request-Id': id };
    const bad = registration({
      collaterals: [
        { collateralType: 'GOODS_MOTOR_VEHICLES', motorVehicles: [{ make: 'Ford', model: 'T', year: 1920 }] },
      ],
    });
    const refused = await test.call('POST', '/financing-statements', { body: bad, headers });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().errors[0].field).toMatch(/^collaterals\.0\.motorVehicles\.0/);
    const again = await test.call('POST', '/financing-statements', { body: bad, headers });
    expect(again.statusCode).toBe(400);
    expect(again.json()).toEqual(refused.json());
    const found = (await lookup(id)).json().transactions;
    expect(found.map((t: { statusCode: number }) => t.statusCode)).toEqual([400]);
    expect(await count('SELECT count(*) AS n FROM fee_records WHERE request_id = $1', [id])).toBe(0);
  });
});

describe('the platform timeout, rehearsed', () => {
  it('Sandbox-Scenario: timeout answers 504 past the platform timeout; the transaction completes once', async () => {
    const id = requestId();
    const timedOut = await test.call('POST', '/financing-statements', {
      body: registration(),
      headers: { 'api-business-govt-nz-Request-Id': id, 'Sandbox-Scenario': 'timeout' },
    });
    expect(timedOut.statusCode).toBe(504);
    expect(timedOut.json()).toEqual({ statusCode: 504, message: expect.any(String) });
    const found = await vi.waitFor(
      async () => {
        const transactions = (await lookup(id)).json().transactions;
        expect(transactions).toHaveLength(1);
        return transactions;
      },
      { timeout: 20_000, interval: 100 },
    );
    expect(found[0]!.statusCode).toBe(200);
    expect(await count('SELECT count(*) AS n FROM fee_records WHERE request_id = $1', [id])).toBe(1);
    // A read has no platform timeout to meet: the scenario is refused, naming the header.
    const read = await test.call('GET', `/financing-statements/${found[0]!.registrationNumber}`, {
      headers: { 'Sandbox-Scenario': 'timeout' },
    });
    expect(read.statusCode).toBe(400);
    expect(read.body).toContain('Sandbox-Scenario');
  });

  it('a subscription set to timeout meets it on its transactions, and its reads answer as usual', async () => {
    const gatewayPool = test.gateway.runtime.gateway.pool;
    const { subscriptionId, primaryKey } = await createSubscription(gatewayPool, {
      userId: test.user.userId,
      productId: 'sandbox-ppsr',
      state: 'active',
    });
    expect(await setSubscriptionScenario(gatewayPool, subscriptionId, 'timeout')).toBe('timeout');
    const id = requestId();
    const timedOut = await test.call('POST', '/financing-statements', {
      key: primaryKey,
      body: registration(),
      headers: { 'api-business-govt-nz-Request-Id': id },
    });
    expect(timedOut.statusCode).toBe(504);
    // Transactions are the subscription's: SEC_56 with the same key finds it once it has completed.
    const found = await vi.waitFor(
      async () => {
        const answer = await test.call('GET', `/customer-organisation-transactions?request-id=${id}`, {
          key: primaryKey,
        });
        expect(answer.json().transactions).toHaveLength(1);
        return answer.json().transactions;
      },
      { timeout: 20_000, interval: 250 },
    );
    expect(found[0]!.statusCode).toBe(200);
    // No transaction to time out: a read with the same key answers as usual (not a 400).
    const read = await test.call('GET', `/financing-statements/${found[0]!.registrationNumber}`, {
      key: primaryKey,
    });
    expect(read.statusCode).toBe(200);
  });

  it('answers 504 in API Management’s shape, completes the transaction, and SEC_56 finds it only then', async () => {
    const id = requestId();
    const billing = `INV-${id.slice(0, 8)}`;
    const timedOut = await test.call('POST', '/financing-statements', {
      body: registration(),
      headers: {
        'api-business-govt-nz-Request-Id': id,
        'Billing-Reference': billing,
        'Sandbox-Processing-Delay': '2.5',
      },
    });
    expect(timedOut.statusCode).toBe(504);
    expect(Object.keys(timedOut.json()).sort()).toEqual(['message', 'statusCode']);
    expect(timedOut.json().statusCode).toBe(504);
    expect(timedOut.json().message).toContain('request-id');
    // Still processing: absent, as published.
    expect((await lookup(id)).json().transactions).toEqual([]);
    // SEC_56 finds it once the registration completes (the delay runs on after the 504).
    const found: { statusCode: number; registrationNumber: string; billingReference: string }[] =
      await vi.waitFor(
        async () => {
          const transactions = (await lookup(id)).json().transactions;
          expect(transactions).toHaveLength(1);
          return transactions;
        },
        { timeout: 10_000, interval: 50 },
      );
    expect(found[0]!.statusCode).toBe(200);
    expect(found[0]!.billingReference).toBe(billing);
    const byReference = await test.call(
      'GET',
      `/customer-organisation-transactions?billing-reference=${billing}`,
    );
    expect(byReference.json().transactions).toHaveLength(1);
    const statement = await test.call('GET', `/financing-statements/${found[0]!.registrationNumber}`);
    expect(statement.statusCode).toBe(200);
    // Resending the same request id now answers the completed registration, without a second one.
    const resent = await test.call('POST', '/financing-statements', {
      body: registration(),
      headers: { 'api-business-govt-nz-Request-Id': id, 'Billing-Reference': billing },
    });
    expect(resent.statusCode).toBe(201);
    expect(resent.json().registrationNumber).toBe(found[0]!.registrationNumber);
    expect(await count('SELECT count(*) AS n FROM fee_records WHERE request_id = $1', [id])).toBe(1);
  });

  it('refuses the sandbox delay header in production and a malformed one in the sandbox', async () => {
    const malformed = await test.call('POST', '/financing-statements', {
      body: registration(),
      headers: { 'Sandbox-Processing-Delay': 'soon' },
    });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json().errors[0].field).toBe('Sandbox-Processing-Delay');
    const production = await test.call('POST', '/financing-statements', {
      body: registration(),
      base: PRODUCTION,
      key: test.productionKey,
      token: null,
      headers: { 'Sandbox-Processing-Delay': '1' },
    });
    // The subscriber has no production organisation: refused before anything is read or written.
    expect(production.statusCode).toBe(403);
  });
});

describe('fees in production', () => {
  it('refuses a fee-bearing operation without an organisation account, writing nothing', async () => {
    const before = await count('SELECT count(*) AS n FROM ppsr_transactions', []);
    const refused = await test.call('POST', '/financing-statements-search', {
      base: PRODUCTION,
      key: test.productionKey,
      token: null,
      body: {
        searchBy: 'motorVehicle',
        legitimateSearchReason: 'yes',
        searchByMotorVehicle: { registrationPlate: 'ABC123' },
      },
    });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().type).toBe('about:blank#billing-organisation-required');
    expect(await count('SELECT count(*) AS n FROM ppsr_transactions', [])).toBe(before);
    // A read without a fee is refused for the same want of an organisation, without speaking of a fee.
    const account = await test.call('GET', '/customer-organisation', {
      base: PRODUCTION,
      key: test.productionKey,
      token: null,
    });
    expect(account.statusCode).toBe(403);
    expect(account.body).toContain('belongs to no production organisation');
    expect(account.body).not.toContain('carries a fee');
  });

  it('refuses without an approved direct debit authority, then charges once with one', async () => {
    const gatewayPool = test.gateway.runtime.gateway.pool;
    const production = test.gateway.runtime.environments.production.pool;
    const organisation = await addOrganisation(gatewayPool, {
      environment: 'production',
      identifier: `ppsr-lender-${requestId().slice(0, 8)}`,
      name: 'Production Lender',
    });
    await addMember(gatewayPool, organisation.id, test.user.userId, 'owner');
    const { primaryKey } = await createSubscription(gatewayPool, {
      userId: test.user.userId,
      productId: 'production-ppsr',
      state: 'active',
    });
    const call = (id: string) =>
      test.call('POST', '/financing-statements', {
        base: PRODUCTION,
        key: primaryKey,
        token: null,
        body: registration(),
        headers: { 'api-business-govt-nz-Request-Id': id },
      });
    const refused = await call(requestId());
    expect(refused.statusCode).toBe(403);
    expect(refused.json().type).toBe('about:blank#direct-debit-authority-required');
    const requested = await requestAuthority(production, 'production', {
      organisationId: organisation.id,
      accountName: 'Production Lender Ltd',
      accountNumber: '12-3140-0123456-00',
      now: new Date(),
    });
    await approveAuthority(production, requested.id, { now: new Date() });
    const id = requestId();
    const created = await call(id);
    expect(created.statusCode, created.body).toBe(201);
    expect((await call(id)).json().registrationNumber).toBe(created.json().registrationNumber);
    const charged = await production.query(
      'SELECT fee_code, organisation_id FROM fee_records WHERE request_id = $1',
      [id],
    );
    expect(charged.rows).toEqual([{ fee_code: 'PPSR_REGISTRATION', organisation_id: organisation.id }]);
  });
});

import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { periodOf } from '../../src/billing/domain/invoice-month.ts';
import { CHARGE_BARRIER_LOCK } from '../../src/billing/store/charge-barrier.ts';
import { PayerCache } from '../../src/billing/store/payer-cache.ts';
import { withTransaction } from '../../src/platform/db/pool.ts';
import { type TestGateway, testGateway } from '../support/runtime.ts';
import { apiCaller, feesOf, organisationOf } from './support/api.ts';

let gateway: TestGateway;
beforeAll(async () => {
  gateway = await testGateway();
});
afterAll(() => gateway?.close());

const gatewayPool = () => gateway.runtime.gateway.pool;
const search = { operation: 'PPSR_02', feeCode: 'PPSR_SEARCH_DEBTOR_ORGANISATION' } as const;

describe('the payer cache', () => {
  it('answers a kept payer without the gateway database, and follows every membership change', async () => {
    const fees = feesOf(gateway, 'production', { payers: gateway.runtime.payers });
    const caller = await apiCaller(gateway, 'production');
    const first = await organisationOf(gateway, 'production', caller.subscriberId, 'owner');
    const second = await organisationOf(gateway, 'production', caller.subscriberId, 'admin');
    // Each call is a new request (a new caller object): resolved again, from memory once kept (a lookup
    // overtaken by the memberships' own notices is not kept: the next one is).
    await vi.waitFor(async () => {
      expect((await fees.payer({ ...caller })).organisationId).toBe(first.id);
      expect(gateway.runtime.payers.get(caller.subscriberId, 'production')).toEqual([first.id, second.id]);
    });
    const queries = vi.spyOn(gatewayPool(), 'query');
    try {
      expect((await fees.payer({ ...caller })).organisationId).toBe(first.id);
      expect(queries).not.toHaveBeenCalled();
    } finally {
      queries.mockRestore();
    }
    // Changed behind the process's back (plain SQL, as another process or an operator would): the
    // notice drops the kept payer, and the next call reads the change.
    await gatewayPool().query(
      `UPDATE memberships SET role = 'member' WHERE organisation_id = $1 AND user_id = $2`,
      [first.id, caller.subscriberId],
    );
    await vi.waitFor(async () => expect((await fees.payer({ ...caller })).organisationId).toBe(second.id));
    await gatewayPool().query('DELETE FROM memberships WHERE organisation_id = $1 AND user_id = $2', [
      second.id,
      caller.subscriberId,
    ]);
    // The lookup that first sees the deletion may be overtaken by its own notice and not kept: the
    // next one is.
    await vi.waitFor(async () => {
      expect((await fees.payer({ ...caller })).organisationId).toBe(first.id);
      expect(gateway.runtime.payers.get(caller.subscriberId, 'production')).toEqual([first.id]);
    });
    // A change to organisations drops everything.
    await gatewayPool().query(`UPDATE organisations SET name = 'Renamed' WHERE id = $1`, [first.id]);
    await vi.waitFor(() =>
      expect(gateway.runtime.payers.get(caller.subscriberId, 'production')).toBeUndefined(),
    );
  });

  it('trusts nothing while it is not listening, and keeps no lookup that a notice overtook', async () => {
    const cache = new PayerCache(gateway.urls.gateway);
    try {
      const caller = await apiCaller(gateway, 'sandbox');
      const organisation = await organisationOf(gateway, 'sandbox', caller.subscriberId);
      // Not listening yet: nothing served, nothing kept; the first `get` starts listening.
      cache.keep(caller.subscriberId, 'sandbox', [organisation.id], cache.mark());
      expect(cache.get(caller.subscriberId, 'sandbox')).toBeUndefined();
      await vi.waitFor(() => expect(cache.serving).toBe(true));
      const before = cache.mark();
      cache.keep(caller.subscriberId, 'sandbox', [organisation.id], before);
      expect(cache.get(caller.subscriberId, 'sandbox')).toEqual([organisation.id]);
      // A notice for the user drops the entry; a lookup that began before it is not kept.
      await organisationOf(gateway, 'sandbox', caller.subscriberId, 'member');
      await vi.waitFor(() => expect(cache.get(caller.subscriberId, 'sandbox')).toBeUndefined());
      cache.keep(caller.subscriberId, 'sandbox', [organisation.id], before);
      expect(cache.get(caller.subscriberId, 'sandbox')).toBeUndefined();
      cache.keep(caller.subscriberId, 'sandbox', [organisation.id], cache.mark());
      expect(cache.get(caller.subscriberId, 'sandbox')).toEqual([organisation.id]);
      // The listening connection lost: nothing served until it listens again, then it starts empty.
      await gatewayPool().query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
          WHERE application_name = 'rsg-billing-payers' AND datname = current_database()`,
      );
      await vi.waitFor(() => expect(cache.serving).toBe(false));
      expect(cache.get(caller.subscriberId, 'sandbox')).toBeUndefined();
      await vi.waitFor(() => expect(cache.serving).toBe(true), { timeout: 5_000 });
      expect(cache.get(caller.subscriberId, 'sandbox')).toBeUndefined();
    } finally {
      await cache.close();
    }
  });
});

describe('the charge barrier in the fee statement', () => {
  it('dates a fee again under the barrier when its month closed between the clock reading and the barrier', async () => {
    let now = new Date('2027-07-31T11:59:59.999Z'); // 31 July 23:59:59.999 NZST
    const fees = feesOf(gateway, 'sandbox', { clock: { now: () => now } });
    const caller = await apiCaller(gateway, 'sandbox');
    const organisation = await organisationOf(gateway, 'sandbox', caller.subscriberId);
    const pool = gateway.runtime.environments.sandbox.pool;
    // A month end closing July holds the barrier exclusively.
    const monthEnd = await pool.connect();
    try {
      await monthEnd.query('BEGIN');
      await monthEnd.query('SELECT pg_advisory_xact_lock($1)', [CHARGE_BARRIER_LOCK]);
      // The charge reads the clock (still July), then its statement waits at the barrier.
      const charging = withTransaction(pool, (tx) => fees.charge(tx, { ...search, caller }));
      await vi.waitFor(async () => {
        const waiting = await pool.query(
          `SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted
              AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
        );
        expect(waiting.rowCount).toBe(1);
      });
      now = new Date('2027-07-31T12:00:00.250Z'); // 1 August 00:00:00.250 NZST
      await monthEnd.query(
        `INSERT INTO month_end_runs (period, period_end, ran_at, invoices, fees, state)
         VALUES ('2027-07', $1, $1, 0, 0, 'closed')`,
        [now],
      );
      await monthEnd.query('COMMIT');
      const fee = (await charging)!;
      expect(fee.chargedAt).toEqual(now);
      const row = await pool.query<{ charged_at: Date; billing_period: string }>(
        'SELECT charged_at, billing_period FROM fee_records WHERE id = $1',
        [fee.id],
      );
      expect(row.rows[0]).toEqual({ charged_at: now, billing_period: '2027-08' });
      expect(periodOf(row.rows[0]!.charged_at)).toBe('2027-08');
      expect(fee.organisationId).toBe(organisation.id);
    } finally {
      monthEnd.release();
    }
  });
});

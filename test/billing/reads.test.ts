import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { periodEnd } from '../../src/billing/domain/invoice-month.ts';
import { identityDirectory } from '../../src/billing/store/directory.ts';
import { listFeeRecords } from '../../src/billing/store/fee-records.ts';
import { runMonthEnd } from '../../src/billing/store/month-end.ts';
import { withTransaction } from '../../src/platform/db/pool.ts';
import { setClock } from '../../src/platform/environment-clocks.ts';
import { RuleError } from '../../src/platform/errors.ts';
import { type TestGateway, testGateway } from '../support/runtime.ts';
import { apiCaller, feesOf, organisationOf } from './support/api.ts';

let gateway: TestGateway;
beforeAll(async () => {
  gateway = await testGateway({ clockMode: 'virtual' });
  await setClock(gateway.runtime.gateway.pool, 'sandbox', '2026-10-20T00:00:00Z');
  // The runtime's clocks follow a change by a notice; read it now, not when the notice arrives.
  await gateway.runtime.clocks.reload();
});
afterAll(() => gateway?.close());

const sandbox = () => gateway.runtime.environments.sandbox.pool;

describe('the reads for the registers', () => {
  it('list an organisation’s fees newest first, by status, request id and billing reference, a page at a time', async () => {
    const caller = await apiCaller(gateway, 'sandbox');
    const organisation = await organisationOf(gateway, 'sandbox', caller.subscriberId);
    const ppsr = feesOf(gateway, 'sandbox');
    const nzbn = feesOf(gateway, 'sandbox', { service: 'nzbn' });
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) {
      if (i === 2) {
        // The first two fees are October's: October's month end invoices them.
        await setClock(gateway.runtime.gateway.pool, 'sandbox', '2026-11-02T00:00:00Z');
        // The runtime's clocks follow a change by a notice; read it now, not when the notice arrives.
        await gateway.runtime.clocks.reload();
        const closed = await runMonthEnd(sandbox(), {
          period: '2026-10',
          now: periodEnd('2026-11'),
          directory: identityDirectory(gateway.runtime.gateway.pool),
        });
        expect([closed.invoices, closed.fees]).toEqual([1, 2]);
      }
      const fee = await withTransaction(sandbox(), (tx) =>
        ppsr.charge(tx, {
          operation: 'PPSR_02',
          feeCode: 'PPSR_SEARCH_MOTOR_VEHICLE',
          caller: { ...caller },
          requestId: `req-${i}`,
          billingReference: i % 2 === 0 ? 'even' : 'odd',
        }),
      );
      ids.push(fee!.id);
    }
    // A fee charged on the website, for the organisation explicitly.
    await withTransaction(sandbox(), (tx) =>
      ppsr.charge(tx, {
        operation: 'PPSR_17',
        feeCode: 'PPSR_REGISTRATION',
        channel: 'Web',
        payer: { organisationId: organisation.id, userId: caller.subscriberId, subscriptionId: null },
      }),
    );
    await withTransaction(sandbox(), (tx) =>
      nzbn.charge(tx, { operation: 'createOrganisationPart', feeCode: 'NZBN_ORGANISATION_PART', caller }),
    );
    const all = await ppsr.list(caller, {});
    expect(all.total).toBe(6);
    expect(all.records[0]).toMatchObject({
      feeCode: 'PPSR_REGISTRATION',
      channel: 'Web',
      amountCents: 1600,
      gstCents: 240,
      subscriptionId: null,
    });
    expect(all.records.slice(1).map((r) => r.requestId)).toEqual([
      'req-4',
      'req-3',
      'req-2',
      'req-1',
      'req-0',
    ]);
    expect(all.records.every((r) => r.service === 'ppsr')).toBe(true);

    const invoiced = await ppsr.list(caller, { feeStatus: 'Invoiced' });
    const invoiceId = invoiced.records[0]?.invoiceId;
    expect(invoiceId).toEqual(expect.any(Number));
    expect(invoiced.records.map((r) => [r.requestId, r.feeStatus, r.invoiceId, r.billingPeriod])).toEqual([
      ['req-1', 'Invoiced', invoiceId, '2026-10'],
      ['req-0', 'Invoiced', invoiceId, '2026-10'],
    ]);
    expect((await ppsr.list(caller, { feeStatus: 'Unbilled' })).records.map((r) => r.billingPeriod)).toEqual(
      Array(4).fill('2026-11'),
    );
    expect((await ppsr.list(caller, { feeStatus: 'Unbilled' })).total).toBe(4);
    expect((await ppsr.list(caller, { requestId: 'req-3' })).records.map((r) => r.id)).toEqual([ids[3]]);
    expect((await ppsr.list(caller, { billingReference: 'even' })).records.map((r) => r.requestId)).toEqual([
      'req-4',
      'req-2',
      'req-0',
    ]);
    const second = await ppsr.list(caller, { page: 2, pageSize: 4 });
    expect(second).toMatchObject({ page: 2, pageSize: 4, total: 6 });
    expect(second.records.map((r) => r.requestId)).toEqual(['req-1', 'req-0']);
    expect((await ppsr.list(caller, { page: 3, pageSize: 4 })).records).toEqual([]);
    // Every register's fees, for the portal: the nzbn fee too.
    expect((await listFeeRecords(sandbox(), { organisationId: organisation.id })).total).toBe(7);
    // Another organisation sees none of them.
    const stranger = await apiCaller(gateway, 'sandbox');
    expect((await ppsr.list(stranger, {})).total).toBe(0);
  });

  it('refuse bad paging and statuses, naming the field', async () => {
    const organisationId = '00000000-0000-4000-8000-000000000001';
    for (const [query, field] of [
      [{ page: 0 }, 'page'],
      [{ pageSize: 501 }, 'pageSize'],
      [{ pageSize: 1.5 }, 'pageSize'],
      [{ feeStatus: 'Paid' }, 'feeStatus'],
    ] as const) {
      const error = await listFeeRecords(sandbox(), { organisationId, ...(query as object) }).catch((e) => e);
      expect(error).toBeInstanceOf(RuleError);
      expect((error as RuleError).field).toBe(field);
    }
  });
});

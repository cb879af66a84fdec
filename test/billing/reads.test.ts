import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listFeeRecords } from '../../src/billing/store/fee-records.ts';
import { withTransaction } from '../../src/platform/db/pool.ts';
import { RuleError } from '../../src/platform/errors.ts';
import { type TestGateway, testGateway } from '../support/runtime.ts';
import { apiCaller, feesOf, organisationOf } from './support.ts';

let gateway: TestGateway;
beforeAll(async () => {
  gateway = await testGateway();
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
    // Two fees invoiced (as the month end does; the invoices table is not this test's subject, so its
    // foreign key, where it exists, is not enforced in this one transaction).
    await withTransaction(sandbox(), async (tx) => {
      await tx.query('SET LOCAL session_replication_role = replica');
      await tx.query('UPDATE fee_records SET invoice_id = 41 WHERE id = ANY($1::bigint[])', [
        [ids[0], ids[1]],
      ]);
    });

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
    expect(invoiced.records.map((r) => [r.requestId, r.feeStatus, r.invoiceId])).toEqual([
      ['req-1', 'Invoiced', 41],
      ['req-0', 'Invoiced', 41],
    ]);
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

import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { identityDirectory } from '../../../src/billing/store/directory.ts';
import { closeDueMonths } from '../../../src/billing/store/month-end.ts';
import { rsg } from '../../support/cli.ts';
import { type PpsrTest, ppsrTest, registration, requestId } from './support/api.ts';

/**
 * Reconciliation: a fee of SEC_43 names the invoice it went to once its month is invoiced, and the
 * invoice breaks down by transaction (request id, billing reference) as CSV.
 */
let test: PpsrTest;
beforeAll(async () => {
  test = await ppsrTest();
}, 120_000);
afterAll(async () => test?.close());

interface Fee {
  requestId: string;
  billingReference: string | null;
  feeStatus: string;
  invoiceNumber: string | null;
  amount: number;
}

describe('reconciliation', () => {
  it('a fee names its invoice once invoiced; the invoice lists its transactions', async () => {
    const id = requestId();
    const created = await test.call('POST', '/financing-statements', {
      body: registration(),
      headers: { 'api-business-govt-nz-Request-Id': id, 'Billing-Reference': 'Matter 2291' },
    });
    expect(created.statusCode, created.body).toBe(201);
    const before = (await test.call('GET', `/customer-organisation-fees?request-id=${id}`)).json();
    expect(before.fees).toMatchObject([{ requestId: id, feeStatus: 'Unbilled', invoiceNumber: null }]);

    const sandbox = test.gateway.runtime.environments.sandbox.pool;
    await closeDueMonths(
      sandbox,
      new Date(Date.now() + 40 * 24 * 3600 * 1000),
      identityDirectory(test.gateway.runtime.gateway.pool),
    );
    const after = (await test.call('GET', `/customer-organisation-fees?request-id=${id}`)).json();
    const [fee] = after.fees as Fee[];
    expect(fee).toMatchObject({ requestId: id, feeStatus: 'Invoiced', billingReference: 'Matter 2291' });
    expect(fee!.invoiceNumber).toMatch(/^INV-\d{6}$/);
    const invoiced = (await test.call('GET', '/customer-organisation-fees?fee-status=Invoiced')).json();
    expect((invoiced.fees as Fee[]).map((f) => f.requestId)).toContain(id);

    const shown = await rsg(
      ['invoices', 'show', fee!.invoiceNumber!, '--environment', 'sandbox', '--transactions', '-'],
      { urls: test.gateway.urls },
    );
    expect(shown.code, shown.stderr).toBe(0);
    const rows = parse(shown.stdout, { columns: true }) as Record<string, string>[];
    const mine = rows.find((row) => row.request_id === id);
    expect(mine).toMatchObject({
      document: fee!.invoiceNumber,
      service: 'ppsr',
      billing_reference: 'Matter 2291',
      net_nzd: fee!.amount.toFixed(2),
    });
    expect(mine!.object).toMatch(/^financing-statement:[A-Z0-9]{16}$/);
    expect(rows.at(-1)!.line).toBe('TOTAL');
  });
});

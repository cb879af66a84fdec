import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { periodOf, periodStart } from '../../src/billing/domain/invoice-month.ts';
import { identityDirectory } from '../../src/billing/store/directory.ts';
import { closeDueMonths } from '../../src/billing/store/month-end.ts';
import { createSubscription } from '../../src/gateway/operations/subscriptions.ts';
import { addOrganisation } from '../../src/identity/operations/organisations.ts';
import { addMember } from '../../src/identity/store/memberships.ts';
import { listOutbox } from '../../src/platform/mail.ts';
import { insertFees } from '../billing/support/invoices.ts';
import { type TestGateway, testGateway } from '../support/runtime.ts';
import { signedInUser } from './support/api.ts';

let gateway: TestGateway;
let member: Awaited<ReturnType<typeof signedInUser>>;
let operator: Awaited<ReturnType<typeof signedInUser>>;
let outsider: Awaited<ReturnType<typeof signedInUser>>;
let organisationId: string;

beforeAll(async () => {
  gateway = await testGateway();
  member = await signedInUser(gateway);
  operator = await signedInUser(gateway, { operator: true });
  outsider = await signedInUser(gateway);
  const pool = gateway.runtime.gateway.pool;
  const organisation = await addOrganisation(pool, {
    environment: 'production',
    identifier: 'portal-billing',
    name: 'Pōhutukawa Traders',
  });
  organisationId = organisation.id;
  await addMember(pool, organisation.id, member.user.id, 'member');
});
afterAll(() => gateway?.close());

describe('billing in the portal', () => {
  it('says how an organisation is made in each environment, as Sandbox access does', async () => {
    const { client } = await signedInUser(gateway);
    const empty = await client.get('/portal/billing');
    expect(empty.body).toContain('You belong to no organisation yet.');
    expect(empty.body).not.toContain('An operator adds organisations');
    expect(empty.body).toContain('href="/portal/sandbox#organisations"');
    expect(empty.body).toContain('action="/portal/sandbox/personal-organisation"');
    expect(empty.body).toContain('href="/portal/sandbox#production"');
    expect(empty.body).toMatch(/Production:<\/strong> ask for one[\s\S]*an operator approves/);
    // Both ways exist where the page points: the sandbox form and the production request.
    const sandbox = await client.get('/portal/sandbox');
    expect(sandbox.body).toContain('id="organisations"');
    expect(sandbox.body).toContain('action="/portal/sandbox/organisations"');
    expect(sandbox.body).toContain('id="production"');
    expect(sandbox.body).toContain('action="/portal/access-requests"');
    const made = await client.submit('/portal/billing', '/portal/sandbox/personal-organisation', {
      next: '/portal/billing',
    });
    expect(made.headers.location).toBe('/portal/billing');
    const after = await client.get('/portal/billing');
    expect(after.body).not.toContain('You belong to no organisation yet.');
    expect(after.body).not.toContain('action="/portal/sandbox/personal-organisation"');
    expect(after.body).toContain('href="/portal/sandbox#production"');
    // A member of a production organisation only is told how to get a sandbox one.
    const production = (await member.client.get('/portal/billing')).body;
    expect(production).toContain('action="/portal/sandbox/personal-organisation"');
    expect(production).not.toContain('href="/portal/sandbox#production"');
  });

  it('a member requests a direct debit authority; an operator approves it on the approvals page', async () => {
    const page = await member.client.get('/portal/billing');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Pōhutukawa Traders');
    expect(page.body).toContain('<span class="badge">none</span>');
    expect(page.body).toContain('Request a direct debit authority');
    expect(page.body).toContain('aria-current="page">Billing');

    const missing = await member.client.submit('/portal/billing', '/portal/billing/authorities', {
      organisation: organisationId,
      accountName: 'Pōhutukawa Traders Ltd',
      accountNumber: '',
    });
    expect(missing.statusCode).toBe(400);
    expect(missing.body).toContain('accountNumber');
    const stranger = await outsider.client.submit('/portal/billing', '/portal/billing/authorities', {
      organisation: organisationId,
      accountName: 'Someone else',
      accountNumber: '12-3456-0123456-00',
    });
    expect(stranger.statusCode).toBe(400);
    expect(stranger.body).toContain('organisation: must be an organisation you are a member of');

    const requested = await member.client.submit('/portal/billing', '/portal/billing/authorities', {
      organisation: organisationId,
      accountName: 'Pōhutukawa Traders Ltd',
      accountNumber: '12-3456-0123456-00',
    });
    expect(requested.statusCode).toBe(303);
    expect(requested.headers.location).toBe('/portal/billing?requested=requested');
    const after = await member.client.get('/portal/billing?requested=requested');
    expect(after.body).toContain('state-requested');
    expect(after.body).not.toContain('Request a direct debit authority');
    expect(await listOutbox(gateway.runtime.gateway.pool, { to: operator.email })).toHaveLength(1);

    // A second request while one is waiting: 409, nothing written.
    const twice = await member.client.submit('/portal/billing/', '/portal/billing/authorities', {
      organisation: organisationId,
      accountName: 'Again',
      accountNumber: '12-3456-0123456-00',
    });
    expect(twice.statusCode).toBe(409);

    const queue = await operator.client.get('/portal/operator/approvals');
    expect(queue.statusCode).toBe(200);
    expect(queue.body).toContain('Direct debit authorities');
    expect(queue.body).toContain('Pōhutukawa Traders');
    expect(queue.body).toContain(member.email);
    const action = /action="(\/portal\/operator\/authorities\/production\/[0-9a-f-]+)"/.exec(queue.body)![1]!;
    const refused = await member.client.submit('/portal/billing', action, { decision: 'approve' });
    expect(refused.statusCode).toBe(403);
    const bad = await operator.client.submit('/portal/operator/approvals', action, { decision: 'maybe' });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('decision: must be approve or decline');
    const approved = await operator.client.submit('/portal/operator/approvals', action, {
      decision: 'approve',
      note: 'bank confirmed',
    });
    expect(approved.statusCode).toBe(303);
    expect(approved.headers.location).toBe('/portal/operator/approvals?authority=approved');
    const [mail] = await listOutbox(gateway.runtime.gateway.pool, { to: member.email });
    expect(mail!.subject).toBe('Direct debit authority for Pōhutukawa Traders approved');
    expect(mail!.text).toContain('bank confirmed');
    expect((await member.client.get('/portal/billing')).body).toContain('state-approved');
    const again = await operator.client.submit('/portal/operator/approvals', action, { decision: 'decline' });
    expect(again.statusCode).toBe(409);
  });

  it('lists the organisation’s invoices with CSV and PDF downloads, to its members only', async () => {
    const production = gateway.runtime.environments.production.pool;
    await insertFees(production, [
      { organisationId, chargedAt: new Date('2025-06-10T00:00:00Z'), amountCents: 150 },
      { organisationId, chargedAt: new Date('2025-06-11T00:00:00Z'), amountCents: 1200, feeCode: 'REGISTER' },
    ]);
    await closeDueMonths(production, new Date(), identityDirectory(gateway.runtime.gateway.pool));
    const page = await member.client.get('/portal/billing');
    expect(page.body).toContain('INV-000001');
    expect(page.body).toContain('June 2025');
    expect(page.body).toContain('NZ$15.53');
    const url = '/portal/billing/production/invoices/INV-000001';
    const view = await member.client.get(url);
    expect(view.statusCode).toBe(200);
    expect(view.body).toContain('Tax invoice INV-000001');
    expect(view.body).toContain('REGISTER fee');
    const csv = await member.client.get(`${url}/csv`);
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(csv.headers['content-disposition']).toBe('attachment; filename="INV-000001.csv"');
    expect(csv.body.trim().split('\n').at(-1)).toMatch(/TOTAL,,,,,2,,13\.50,2\.03,15\.53$/);
    expect(view.body).toContain(`href="${url}/transactions-csv"`);
    const transactions = await member.client.get(`${url}/transactions-csv`);
    expect(transactions.statusCode).toBe(200);
    expect(transactions.headers['content-disposition']).toBe(
      'attachment; filename="INV-000001-transactions.csv"',
    );
    const rows = transactions.body.trim().split('\n');
    expect(rows).toHaveLength(4);
    expect(rows[0]).toBe(
      'document,line,charged,service,operation,fee_code,description,channel,request_id,billing_reference,object,net_nzd',
    );
    expect(rows.at(-1)).toBe('INV-000001,TOTAL,,,,,,,,,,13.50');
    const pdf = await member.client.get(`${url}/pdf`);
    expect(pdf.statusCode).toBe(200);
    expect(pdf.headers['content-type']).toBe('application/pdf');
    expect(pdf.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
    // Operators may open it; anyone else gets the same 404 as for a number that does not exist.
    expect((await operator.client.get(`${url}/csv`)).statusCode).toBe(200);
    for (const [client, target] of [
      [outsider.client, url],
      [outsider.client, `${url}/pdf`],
      [outsider.client, `${url}/transactions-csv`],
      [member.client, '/portal/billing/production/invoices/INV-000999'],
      [member.client, '/portal/billing/production/invoices/garbage'],
      [member.client, '/portal/billing/staging/invoices/INV-000001'],
    ] as const) {
      const response = await client.get(target);
      expect(response.statusCode, target).toBe(404);
    }
  });

  it('shows a subscription’s fees of the month so far on its usage page', async () => {
    const pool = gateway.runtime.gateway.pool;
    const { subscriptionId } = await createSubscription(pool, {
      userId: member.user.id,
      productId: 'production-ppsr',
      state: 'active',
    });
    const now = new Date();
    const month = periodStart(periodOf(now));
    await insertFees(gateway.runtime.environments.production.pool, [
      { organisationId, subscriptionId, chargedAt: month, amountCents: 150 },
      {
        organisationId,
        subscriptionId,
        chargedAt: now,
        amountCents: 1200,
        feeCode: 'REGISTER',
      },
      // Last month's: not on the page.
      {
        organisationId,
        subscriptionId,
        chargedAt: new Date(month.getTime() - 1),
        amountCents: 999,
      },
    ]);
    const page = await member.client.get(`/portal/subscriptions/${subscriptionId}/usage`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toMatch(/Fees in [A-Z][a-z]+ \d{4} so far/);
    expect(page.body).toContain('2 fees: NZ$13.50 + GST NZ$2.03');
    expect(page.body).toContain('REGISTER fee');
    expect(page.body).not.toContain('9.99');
  });
});

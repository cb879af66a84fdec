import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { listInvoices } from '../../src/billing/store/invoices.ts';
import { advanceClock, setClock } from '../../src/platform/environment-clocks.ts';
import { listOutbox } from '../../src/platform/mail.ts';
import { type JobsHandle, startJobs } from '../../src/runtime.ts';
import { type TestGateway, testGateway } from '../support/runtime.ts';
import { insertFees, organisationWithOwner } from './support/invoices.ts';

let t: TestGateway;
let jobs: JobsHandle;

beforeAll(async () => {
  t = await testGateway({ clockMode: 'virtual' });
  // 30 November 2026, 23:00 in New Zealand (NZDT).
  await setClock(t.runtime.gateway.pool, 'sandbox', '2026-11-30T10:00:00Z');
  // The runtime's clocks follow a change by a notice; read it now, not when the notice arrives.
  await t.runtime.clocks.reload();
  jobs = await startJobs(t.runtime, 'http://127.0.0.1:8080');
});
afterAll(async () => {
  await jobs?.stop();
  await t?.close();
});

describe('the month-end job', () => {
  it('runs when the sandbox clock passes a month end, and mails each invoice to the billing contact', async () => {
    const gateway = t.runtime.gateway.pool;
    const sandbox = t.runtime.environments.sandbox.pool;
    const withContact = await organisationWithOwner(gateway, 'Billing Contact Ltd');
    const ownersOnly = await organisationWithOwner(gateway, 'Owners Only Ltd');
    await sandbox.query('INSERT INTO billing_accounts (organisation_id, billing_email) VALUES ($1, $2)', [
      withContact.id,
      'accounts@contact.example.test',
    ]);
    await insertFees(sandbox, [
      { organisationId: withContact.id, chargedAt: new Date('2026-11-30T10:59:59.999Z'), amountCents: 200 },
      {
        organisationId: ownersOnly.id,
        chargedAt: new Date('2026-11-12T00:00:00Z'),
        amountCents: 1000,
        channel: 'Web',
      },
    ]);
    // Nothing due yet: November has not ended on the sandbox clock.
    await jobs.settle();
    expect(await listInvoices(sandbox)).toEqual([]);

    await advanceClock(gateway, 'sandbox', '2h');
    await vi.waitFor(async () => expect(await listInvoices(sandbox, { period: '2026-11' })).toHaveLength(2), {
      timeout: 10_000,
    });
    const invoices = await listInvoices(sandbox, { period: '2026-11' });
    expect(invoices.map((invoice) => [invoice.organisationName, invoice.totalCents]).sort()).toEqual([
      ['Billing Contact Ltd', 230],
      ['Owners Only Ltd', 1150],
    ]);
    // Production runs on real time: nothing there.
    expect(await listInvoices(t.runtime.environments.production.pool)).toEqual([]);

    await vi.waitFor(
      async () => {
        const contact = await listOutbox(gateway, { to: 'accounts@contact.example.test' });
        expect(contact).toHaveLength(1);
        const owner = await listOutbox(gateway, { to: ownersOnly.ownerEmail });
        expect(owner).toHaveLength(1);
      },
      { timeout: 10_000 },
    );
    const [mail] = await listOutbox(gateway, { to: 'accounts@contact.example.test' });
    const invoice = invoices.find((candidate) => candidate.organisationId === withContact.id)!;
    expect(mail!.subject).toBe(`Tax invoice ${invoice.reference} for November 2026: NZ$2.30`);
    expect(mail!.text).toContain('GST (15%): NZ$0.30');
    expect(mail!.text).toContain('http://127.0.0.1:8080/portal/billing');
    // The owner of the other organisation did not get this one.
    expect(await listOutbox(gateway, { to: withContact.ownerEmail })).toEqual([]);

    // Settling again sends nothing twice.
    await jobs.settle();
    expect(await listOutbox(gateway, { to: 'accounts@contact.example.test' })).toHaveLength(1);
  });
});

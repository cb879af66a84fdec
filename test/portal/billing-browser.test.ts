import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { periodOf, periodStart } from '../../src/billing/domain/invoice-month.ts';
import { identityDirectory } from '../../src/billing/store/directory.ts';
import { closeDueMonths } from '../../src/billing/store/month-end.ts';
import { createSubscription } from '../../src/gateway/operations/subscriptions.ts';
import { addOrganisation } from '../../src/identity/operations/organisations.ts';
import { addUser, setPassword } from '../../src/identity/operations/users.ts';
import { addMember } from '../../src/identity/store/memberships.ts';
import { insertFees } from '../billing/support/invoices.ts';
import { type TestGateway, testGateway } from '../support/runtime.ts';
import { uniqueEmail } from './support/api.ts';
import {
  CHROMIUM,
  expectLabelledControls,
  freePort,
  hasChromium,
  launchChromium,
  screenshot,
} from './support/browser.ts';

type Browser = Awaited<ReturnType<typeof launchChromium>>;
type Page = Awaited<ReturnType<Browser['newPage']>>;

if (!hasChromium) {
  console.warn(`portal billing browser test skipped: ${CHROMIUM} is absent (apt-get install -y chromium)`);
}

describe.skipIf(!hasChromium)('billing pages in Chromium', { timeout: 120_000 }, () => {
  let gateway: TestGateway;
  let browser: Browser;
  let base: string;
  let member: Page;
  let operator: Page;
  const memberEmail = uniqueEmail();
  const operatorEmail = uniqueEmail();
  let subscriptionId = '';

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    gateway = await testGateway({ env: { PORT: String(port), RSG_PUBLIC_URL: base } });
    await gateway.app.listen({ port, host: '127.0.0.1' });
    const pool = gateway.runtime.gateway.pool;
    const user = await addUser(pool, { email: memberEmail, name: 'Mere Member' });
    await setPassword(pool, user.id, 'members pay the fees');
    const admin = await addUser(pool, { email: operatorEmail, name: 'Olive Operator', isOperator: true });
    await setPassword(pool, admin.id, 'operators approve things');
    const organisation = await addOrganisation(pool, {
      environment: 'production',
      identifier: 'kowhai',
      name: 'Kōwhai Holdings',
    });
    await addMember(pool, organisation.id, user.id, 'owner');
    subscriptionId = (
      await createSubscription(pool, { userId: user.id, productId: 'production-ppsr', state: 'active' })
    ).subscriptionId;
    // Last year's fees, invoiced; and this month's so far.
    const production = gateway.runtime.environments.production.pool;
    await insertFees(production, [
      {
        organisationId: organisation.id,
        chargedAt: new Date('2025-09-30T10:59:59.999Z'),
        amountCents: 150,
        subscriptionId,
      },
      {
        organisationId: organisation.id,
        chargedAt: new Date('2025-09-12T01:00:00Z'),
        amountCents: 150,
        subscriptionId,
      },
      {
        organisationId: organisation.id,
        chargedAt: new Date('2025-09-13T01:00:00Z'),
        amountCents: 1200,
        feeCode: 'REGISTER',
        channel: 'Web',
      },
    ]);
    await closeDueMonths(production, new Date(), identityDirectory(pool));
    const now = new Date();
    await insertFees(production, [
      {
        organisationId: organisation.id,
        chargedAt: periodStart(periodOf(now)),
        amountCents: 150,
        subscriptionId,
      },
      {
        organisationId: organisation.id,
        chargedAt: now,
        amountCents: 1200,
        feeCode: 'REGISTER',
        subscriptionId,
      },
    ]);
    browser = await launchChromium();
    member = await (await browser.newContext()).newPage();
    operator = await (await browser.newContext()).newPage();
  });

  afterAll(async () => {
    await browser?.close();
    await gateway?.close();
  });

  const signIn = async (page: Page, email: string, password: string) => {
    await page.goto(`${base}/portal/signin`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => !url.pathname.endsWith('/signin'));
  };

  it('a member requests an authority, the operator approves it; invoices, downloads and fees of the month', async () => {
    await signIn(member, memberEmail, 'members pay the fees');
    await member.getByRole('navigation', { name: 'Portal' }).getByRole('link', { name: 'Billing' }).click();
    await member.getByRole('heading', { name: /Kōwhai Holdings/ }).waitFor();
    await expectLabelledControls(member);
    await screenshot(member, 'billing');
    await member.getByLabel('Account name').fill('Kōwhai Holdings Ltd');
    await member.getByLabel('Bank account number').fill('12-3456-0123456-00');
    await member.getByRole('button', { name: 'Request a direct debit authority' }).click();
    await member.getByText('The authority is requested').waitFor();
    await screenshot(member, 'billing-requested');

    await signIn(operator, operatorEmail, 'operators approve things');
    await operator.goto(`${base}/portal/operator/approvals`);
    await operator.getByRole('heading', { name: 'Direct debit authorities' }).waitFor();
    await expectLabelledControls(operator);
    await screenshot(operator, 'approvals-authorities');
    await operator.getByLabel('Note to the member (optional)').fill('Bank confirmed the authority');
    await operator.getByRole('button', { name: 'Approve the authority for Kōwhai Holdings' }).click();
    await operator.getByText('The authority was approved').waitFor();

    await member.reload();
    await member.locator('.state-approved').waitFor();
    await member.getByRole('link', { name: 'INV-000001', exact: true }).click();
    await member.getByRole('heading', { name: 'Tax invoice INV-000001' }).waitFor();
    const body = await member.content();
    expect(body).toContain('September 2025');
    expect(body).toContain('NZ$17.25');
    await screenshot(member, 'invoice');
    const [pdf] = await Promise.all([
      member.waitForEvent('download'),
      member.getByRole('link', { name: 'Download PDF' }).click(),
    ]);
    expect(pdf.suggestedFilename()).toBe('INV-000001.pdf');
    const [csv] = await Promise.all([
      member.waitForEvent('download'),
      member.getByRole('link', { name: 'Download CSV' }).click(),
    ]);
    expect(csv.suggestedFilename()).toBe('INV-000001.csv');

    await member.goto(`${base}/portal/subscriptions/${subscriptionId}/usage`);
    await member.getByRole('heading', { name: /Fees in .* so far/ }).waitFor();
    expect(await member.content()).toContain('2 fees: NZ$13.50 + GST NZ$2.03');
    await screenshot(member, 'usage-fees');
    // A phone's width: the tables fold into labelled blocks.
    await member.setViewportSize({ width: 380, height: 800 });
    await member.goto(`${base}/portal/billing`);
    await screenshot(member, 'billing-phone');
  });
});

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUser, setPassword } from '../../src/identity/operations/users.ts';
import { type TestGateway, testGateway } from '../support/runtime.ts';
import {
  CHROMIUM,
  expectPathsUnbroken,
  freePort,
  GUIDE_WIDTH,
  guideScreenshot,
  hasChromium,
  launchChromium,
} from './support/browser.ts';

type Browser = Awaited<ReturnType<typeof launchChromium>>;
type Page = Awaited<ReturnType<Browser['newPage']>>;

if (!hasChromium) {
  console.warn(`portal guide screenshots skipped: ${CHROMIUM} is absent (apt-get install -y chromium)`);
}

/**
 * Every portal page photographed for docs/guide/portal.md (docs/guide/portal/<name>.png), walked as a
 * new user and an operator would: the offers register's x-organisation made in place and sent by the
 * reference's try-it, Try it with an extra header, the products table at a laptop's width, My mail.
 */
describe.skipIf(!hasChromium)('the portal, page by page, for the guide', { timeout: 240_000 }, () => {
  let gateway: TestGateway;
  let browser: Browser;
  let base: string;
  let user: Page;
  let operator: Page;

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    gateway = await testGateway({ env: { PORT: String(port), RSG_PUBLIC_URL: base } });
    await gateway.app.listen({ port, host: '127.0.0.1' });
    const pool = gateway.runtime.gateway.pool;
    const admin = await addUser(pool, {
      email: 'olive@example.test',
      name: 'Olive Operator',
      isOperator: true,
    });
    await setPassword(pool, admin.id, 'operators approve things');
    browser = await launchChromium();
    const viewport = { width: GUIDE_WIDTH, height: 900 };
    user = await (await browser.newContext({ viewport })).newPage();
    operator = await (await browser.newContext({ viewport })).newPage();
  });

  afterAll(async () => {
    await browser?.close();
    await gateway?.close();
  });

  const nav = (page: Page, name: string) =>
    page.getByRole('navigation', { name: 'Portal' }).getByRole('link', { name, exact: true }).click();

  it('the guide page shows every picture the test takes, each once', () => {
    const taken = [
      ...readFileSync(fileURLToPath(import.meta.url), 'utf8').matchAll(/guideScreenshot\(\w+, '([a-z-]+)'/g),
    ]
      .map((match) => match[1])
      .concat(['sandbox-access', 'clients', 'billing', 'bulk-data', 'data-requests', 'account']);
    const shown = [
      ...readFileSync('docs/guide/portal.md', 'utf8').matchAll(/\]\(portal\/([a-z-]+)\.png\)/g),
    ].map((match) => match[1]);
    expect([...shown].sort()).toEqual([...new Set(taken)].sort());
    expect(new Set(shown).size).toBe(shown.length);
  });

  it('signed out: landing, search, products, a product, sign up and sign in', async () => {
    await user.goto(`${base}/portal`);
    await guideScreenshot(user, 'landing');
    await user.goto(`${base}/portal/search?q=offers`);
    await guideScreenshot(user, 'search');
    await user.goto(`${base}/portal/products`);
    await guideScreenshot(user, 'products');
    await user.goto(`${base}/portal/products/production-market-rent`);
    await user.locator('#api-reference[data-ready="true"]').waitFor({ timeout: 60_000 });
    await guideScreenshot(user, 'product-production', { top: true });
    await user.goto(`${base}/portal/signin`);
    await guideScreenshot(user, 'sign-in');
    await user.goto(`${base}/portal/signup`);
    await guideScreenshot(user, 'sign-up');
  });

  it('the products table reads at 1366 px: no path wrapped inside a segment', async () => {
    await user.setViewportSize({ width: GUIDE_WIDTH, height: 900 });
    await user.goto(`${base}/portal/products`);
    await expectPathsUnbroken(user, 'products');
    // Every base address on one line at this width.
    const lines = await user.$$eval('td[data-label="Service"] code.path', (codes) =>
      codes.map((code) => new Set([...code.getClientRects()].map((r) => Math.round(r.top))).size),
    );
    expect(lines.length).toBe(10);
    expect(lines).toEqual(Array(10).fill(1));
  });

  it('a new user: the offers register’s organisation made in place and sent by the reference’s try-it', async () => {
    await user.goto(`${base}/portal/signup`);
    await user.getByLabel('Email').fill('ada@example.test');
    await user.getByLabel('Name').fill('Ada Builder');
    await user.getByLabel('Password').fill('building on the registers');
    await user.getByRole('button', { name: 'Create account' }).click();
    await user.waitForURL(`${base}/portal/subscriptions`);
    await user.goto(`${base}/portal`);
    const offers = user.locator('article:has(#register-disclose)');
    await offers.getByRole('button', { name: 'Create my sandbox organisation' }).click();
    await user.waitForURL(`${base}/portal`);
    const organisation = (await offers.locator('code.organisation').textContent())?.trim() ?? '';
    expect(organisation).toMatch(/^sandbox-[0-9a-f]{12}$/);
    expect(await offers.locator('pre').first().textContent()).toContain(
      `-H "x-organisation: ${organisation}"`,
    );
    await guideScreenshot(user, 'landing-signed-in');

    await user.goto(`${base}/portal/products`);
    await user.getByRole('button', { name: 'Subscribe to Offers register (sandbox)' }).click();
    const key = (await user.locator('#key-primary').textContent())?.trim() ?? '';
    expect(key.length).toBeGreaterThan(20);
    await guideScreenshot(user, 'subscribed');
    await nav(user, 'My subscriptions');
    await guideScreenshot(user, 'subscriptions');
    await user.getByRole('link', { name: 'Usage' }).first().click();
    await guideScreenshot(user, 'usage');
    await user.goto(`${base}/portal/subscriptions`);
    await user
      .getByRole('link', { name: /Regenerate secondary key/ })
      .first()
      .click();
    await guideScreenshot(user, 'regenerate');

    await user.goto(`${base}/portal/products/sandbox-disclose`);
    await user.locator('#api-reference[data-ready="true"]').waitFor({ timeout: 60_000 });
    await user.getByText('Your key for this product is filled in').waitFor();
    const block = user.locator('.opblock-get:has(.opblock-summary-path[data-path="/offers"])').first();
    await block.locator('.opblock-summary-control').click();
    const call = user.waitForRequest((request) =>
      request.url().startsWith(`${base}/sandbox/companies-office/disclose-register/v1/offers`),
    );
    await block.getByRole('button', { name: 'Execute' }).click();
    const sent = await call;
    expect(sent.headers()['ocp-apim-subscription-key']).toBe(key);
    expect(sent.headers()['x-organisation']).toBe(organisation);
    await expect
      .poll(() => block.locator('.live-responses-table tbody .response-col_status').first().textContent())
      .toContain('200');
    // The call as sent (its curl, with x-organisation) and its answer, at the top of the screen.
    await block
      .locator('.curl-command')
      .first()
      .evaluate((element) => element.scrollIntoView());
    await guideScreenshot(user, 'product-reference', { top: true });

    // Try it: the organisation in the first header row, sent with the call.
    await user.goto(`${base}/portal/try?service=disclose`);
    expect(await user.getByLabel('Header 1 value').inputValue()).toBe(organisation);
    await user.getByLabel('Path after the API').fill('/offers?page-size=2');
    await user.getByLabel('Your sandbox subscription key').fill(key);
    await user.getByRole('button', { name: 'Send' }).click();
    await user.locator('#try-status').waitFor();
    expect(await user.locator('#try-status').textContent()).toBe('200');
    await guideScreenshot(user, 'try-it');
  });

  it('the user’s other pages: sandbox access, clients, billing, bulk data, data requests, account', async () => {
    for (const [label, name] of [
      ['Sandbox access', 'sandbox-access'],
      ['OAuth clients', 'clients'],
      ['Billing', 'billing'],
      ['Bulk data', 'bulk-data'],
      ['Data requests', 'data-requests'],
      ['Account', 'account'],
    ] as const) {
      await nav(user, label);
      await user.waitForURL((url) => url.pathname !== '/portal/try');
      await guideScreenshot(user, name);
    }
    await user.goto(`${base}/portal/products`);
    await user
      .getByRole('button', { name: 'Request subscription to Business number register (production)' })
      .click();
    await user.getByText('You will get a mail when it is decided').waitFor();
    await guideScreenshot(user, 'subscription-requested');
  });

  it('an operator: approvals, outbox, data requests; the user reads the decision under My mail', async () => {
    await operator.goto(`${base}/portal/signin`);
    await operator.getByLabel('Email').fill('olive@example.test');
    await operator.getByLabel('Password').fill('operators approve things');
    await operator.getByRole('button', { name: 'Sign in' }).click();
    await operator.waitForURL((url) => !url.pathname.endsWith('/signin'));
    await operator.goto(`${base}/portal`);
    await guideScreenshot(operator, 'landing-operator');
    await nav(operator, 'Approvals');
    await guideScreenshot(operator, 'approvals');
    await operator.getByRole('button', { name: /^Approve ada@example.test/ }).click();
    await operator.getByText('The request was approved').waitFor();
    await nav(operator, 'Answer data requests');
    await guideScreenshot(operator, 'operator-data-requests');
    await nav(operator, 'Outbox');
    await guideScreenshot(operator, 'outbox');

    await nav(user, 'My mail');
    await user.getByText('Your subscription to Business number register (production) was approved').waitFor();
    await guideScreenshot(user, 'my-mail');
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSubscription } from '../../src/gateway/operations/subscriptions.ts';
import { addUser, setPassword } from '../../src/identity/operations/users.ts';
import { seedBusinessNumbers } from '../support/business-numbers.ts';
import { type TestGateway, testGateway } from '../support/runtime.ts';
import { uniqueEmail } from './support/api.ts';
import {
  CHROMIUM,
  expectAccessible,
  freePort,
  hasChromium,
  launchChromium,
  screenshots,
} from './support/browser.ts';

type Browser = Awaited<ReturnType<typeof launchChromium>>;

if (!hasChromium) {
  console.warn(`portal inspector browser test skipped: ${CHROMIUM} is absent (apt-get install -y chromium)`);
}

/** The request inspector's pages in Chromium: axe, desktop and phone width (no sideways scrolling). */
describe.skipIf(!hasChromium)('the request inspector in Chromium', { timeout: 120_000 }, () => {
  let gateway: TestGateway;
  let browser: Browser;
  let base: string;
  const email = uniqueEmail();
  const password = 'inspect every call';
  let subscriptionId = '';
  let key = '';

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    gateway = await testGateway({ env: { PORT: String(port), RSG_PUBLIC_URL: base } });
    await gateway.app.listen({ port, host: '127.0.0.1' });
    await seedBusinessNumbers(gateway, 5);
    const pool = gateway.runtime.gateway.pool;
    const user = await addUser(pool, { email, name: 'Ira Inspector' });
    await setPassword(pool, user.id, password);
    const created = await createSubscription(pool, {
      userId: user.id,
      productId: 'sandbox-nzbn',
      state: 'active',
    });
    subscriptionId = created.subscriptionId;
    key = created.primaryKey;
    const headers = { 'Ocp-Apim-Subscription-Key': created.primaryKey };
    await gateway.app.inject({ url: '/sandbox/nzbn/v5/entities/9429000001007', headers });
    await gateway.app.inject({ url: '/sandbox/nzbn/v5/entities/12', headers });
    await gateway.app.inject({
      method: 'POST',
      url: '/sandbox/nzbn/v5/watchlists',
      headers,
      payload: { name: 'A watchlist with a rather long name to see how it wraps', channel: 'PUSH' },
    });
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await gateway?.close();
  });

  it('lists the calls and shows one with copy as curl', async () => {
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${base}/portal/signin`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => !url.pathname.endsWith('/signin'));
    await page.goto(`${base}/portal/subscriptions`);
    await page.getByRole('link', { name: /Inspector/ }).click();
    await page.getByRole('heading', { name: /Request inspector/ }).waitFor();
    expect(await page.getByRole('row').count()).toBeGreaterThanOrEqual(4);
    await expectAccessible(page, 'inspector');
    await screenshots(page, 'inspector');
    await page.getByRole('link', { name: /POST/ }).first().click();
    await page.getByRole('heading', { name: 'Copy as curl' }).waitFor();
    const curl = await page.locator('#curl').textContent();
    expect(curl).toContain('curl -X POST');
    expect(curl).toContain('$RSG_KEY');
    await expectAccessible(page, 'inspector-call');
    await screenshots(page, 'inspector-call');
    expect(page.url()).toContain(subscriptionId);
  });

  it('sets a fault scenario on the subscription, and its calls meet it', async () => {
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${base}/portal/signin`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => !url.pathname.endsWith('/signin'));
    await page.goto(`${base}/portal/subscriptions`);
    await page.getByRole('link', { name: /Fault scenario/ }).click();
    await page.getByRole('heading', { name: /Fault scenario of sandbox-nzbn/ }).waitFor();
    await page.getByLabel('Scenario', { exact: true }).selectOption('maintenance');
    await page.getByLabel(/^Value/).fill('45');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved: the next call meets').waitFor();
    // The page says what this scenario does with its own value, not the form's default.
    await page.getByText('its window ending in 45 seconds').waitFor();
    await expectAccessible(page, 'scenario');
    await screenshots(page, 'scenario');
    const answer = await gateway.app.inject({
      url: '/sandbox/nzbn/v5/entities/9429000001007',
      headers: { 'Ocp-Apim-Subscription-Key': key },
    });
    expect(answer.statusCode).toBe(503);
    expect(answer.headers['retry-after']).toBe('45');
    await page.getByRole('button', { name: 'Clear the scenario' }).click();
    await page.getByText('Cleared: calls meet the register again.').waitFor();
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listProducts } from '../../src/gateway/store/products.ts';
import { mayAct } from '../../src/identity/store/authorities.ts';
import { organisationsOf } from '../../src/identity/store/memberships.ts';
import { realClock } from '../../src/platform/clock.ts';
import { operationsOf } from '../../src/portal/domain/reference-document.ts';
import { CLAIMABLE } from '../../src/portal/domain/sandbox.ts';
import { seedNzbn } from '../../src/services/nzbn/sandbox/seed.ts';
import { type TestGateway, testGateway } from '../support/runtime.ts';
import { uniqueEmail } from './support/api.ts';
import {
  ARTIFACTS,
  CHROMIUM,
  expectAccessible,
  freePort,
  hasChromium,
  launchChromium,
  screenshots,
} from './support/browser.ts';

type Browser = Awaited<ReturnType<typeof launchChromium>>;
type Page = Awaited<ReturnType<Browser['newPage']>>;

if (!hasChromium) console.warn(`portal reference browser tests skipped: ${CHROMIUM} is absent`);

/** The API reference (Swagger UI from the npm package) in Chromium, with the portal's CSP on. */
describe.skipIf(!hasChromium)('the API reference in Chromium', { timeout: 180_000 }, () => {
  let gateway: TestGateway;
  let browser: Browser;
  let base: string;
  let page: Page;
  const problems: string[] = [];
  const outside: string[] = [];
  let key = '';

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    gateway = await testGateway({ env: { PORT: String(port), RSG_PUBLIC_URL: base } });
    await gateway.app.listen({ port, host: '127.0.0.1' });
    // The fixed test cases (and a few generated entities): the documents' examples name them.
    await seedNzbn(
      {
        database: gateway.runtime.environments.sandbox,
        scale: 'small',
        clock: realClock,
        log: () => {},
        identity: { grantOperatorsAuthority: async () => {} },
      },
      { entities: 20 },
    );
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    // A CSP refusal or a script error shows up on the console; any request off this site is a failure.
    page.on('console', (message) => {
      if (message.type() === 'error' && !/status of 40\d/.test(message.text())) problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(String(error)));
    page.on('request', (request) => {
      if (!request.url().startsWith(base) && !request.url().startsWith('data:')) outside.push(request.url());
    });
  });

  afterAll(async () => {
    await browser?.close();
    await gateway?.close();
  });

  const ready = async () => {
    await page.locator('#api-reference[data-ready="true"]').waitFor({ timeout: 60_000 });
  };

  it('renders every operation of every product, offline, without a CSP refusal', async () => {
    const products = await listProducts(gateway.runtime.gateway.pool);
    expect(products).toHaveLength(10);
    for (const product of products) {
      const document = (await (await fetch(`${base}/portal/products/${product.id}/openapi.json`)).json()) as {
        webhooks?: Record<string, object>;
      };
      const expected = operationsOf(document);
      await page.goto(`${base}/portal/products/${product.id}`);
      await ready();
      const shown = page.locator('.opblock .opblock-summary-path');
      await expect.poll(() => shown.count(), { timeout: 20_000 }).toBeGreaterThanOrEqual(expected.length);
      // Webhooks (the business number register's watchlist notification) are drawn as operations too.
      const webhooks = Object.values(document.webhooks ?? {}).flatMap((item) => Object.keys(item as object));
      expect(await page.locator('.opblock').count()).toBe(expected.length + webhooks.length);
      // Every operation drawn, read in one call (a locator count per operation was a round trip each).
      const drawn = new Set(
        await page.$$eval('.opblock', (blocks) =>
          blocks.map((block) => {
            const method = /opblock-(get|put|post|delete|patch|head|options)\b/.exec(block.className)?.[1];
            const path = block.querySelector('.opblock-summary-path')?.getAttribute('data-path');
            return `${method} ${path}`;
          }),
        ),
      );
      const missing = expected.filter((operation) => !drawn.has(`${operation.method} ${operation.path}`));
      expect(missing, product.id).toEqual([]);
      // The prepared document titles every response; nothing says "Default Response".
      expect(await page.locator('text=Default Response').count()).toBe(0);
    }
    expect(problems).toEqual([]);
    expect(outside).toEqual([]);
  });

  it('signs up, subscribes, and try-it calls the sandbox with the pre-filled key and the example value', async () => {
    await page.goto(`${base}/portal/signup`);
    await page.getByLabel('Email').fill(uniqueEmail());
    await page.getByLabel('Name').fill('Rita Reader');
    await page.getByLabel('Password').fill('reading the reference');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL(`${base}/portal/subscriptions`);
    await page.goto(`${base}/portal/products`);
    await page.getByRole('button', { name: 'Subscribe to Business number register (sandbox)' }).click();
    key = (await page.locator('#key-primary').textContent())?.trim() ?? '';
    expect(key.length).toBeGreaterThan(20);

    // The product now says it is subscribed instead of offering Subscribe again.
    await page.goto(`${base}/portal/products`);
    expect(
      await page.getByRole('button', { name: 'Subscribe to Business number register (sandbox)' }).count(),
    ).toBe(0);
    await page.getByText('Subscribed').first().waitFor();

    await page.goto(`${base}/portal/products/sandbox-nzbn`);
    await ready();
    await page.getByText('Your key for this product is filled in').waitFor();
    const block = page.locator('.opblock-get:has(.opblock-summary-path[data-path="/entities/{nzbn}"])');
    await block.locator('.opblock-summary-control').click();
    // The example from the sandbox's fixed test cases is already in the field.
    await expect.poll(() => block.locator('input[placeholder="nzbn"]').inputValue()).toMatch(/^\d{13}$/);
    const call = page.waitForRequest((request) =>
      request.url().startsWith(`${base}/sandbox/nzbn/v5/entities/`),
    );
    await block.getByRole('button', { name: 'Execute' }).click();
    const sent = await call;
    expect(sent.headers()['ocp-apim-subscription-key']).toBe(key);
    await expect
      .poll(() => block.locator('.live-responses-table tbody .response-col_status').first().textContent())
      .toContain('200');
    await expectAccessible(page, 'product reference');
    await screenshots(page, 'reference-try-it');
    await block.screenshot({ path: `${ARTIFACTS}/portal-reference-operation-desktop.png` });
    await page.setViewportSize({ width: 375, height: 800 });
    await block.screenshot({ path: `${ARTIFACTS}/portal-reference-operation-phone.png` });
    await page.setViewportSize({ width: 1280, height: 900 });
    expect(problems).toEqual([]);
    expect(outside).toEqual([]);
  });

  it('the landing page: GET / leads to it, five register cards whose quick start works, a search over every operation', async () => {
    await page.goto(`${base}/`);
    expect(new URL(page.url()).pathname).toBe('/portal');
    expect(await page.title()).toBe('Developer portal — Register Services Gateway');
    expect(await page.locator('link[rel=icon]').getAttribute('href')).toMatch(
      /^\/portal\/assets\/favicon\.svg/,
    );
    expect(await page.locator('article.register').count()).toBe(5);
    // The business number register's curl quick start, run as written (the key from the environment).
    const card = page.locator('article.register', {
      has: page.getByRole('heading', { name: 'Business number register' }),
    });
    const curl = (await card.locator('pre').first().textContent()) ?? '';
    const url = /"(http[^"]+)"$/.exec(curl)?.[1] ?? '';
    expect(url.startsWith(`${base}/sandbox/nzbn/v5/`)).toBe(true);
    expect((await fetch(url, { headers: { 'Ocp-Apim-Subscription-Key': key } })).status).toBe(200);
    await expectAccessible(page, 'landing');
    await screenshots(page, 'landing');

    await page.getByLabel('Search every operation of every register').fill('entities addresses');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL(/\/portal\/search\?q=/);
    const rows = page.locator('tbody tr');
    expect(await rows.count()).toBeGreaterThan(0);
    for (const text of await rows.allTextContents()) expect(text.toLowerCase()).toContain('addresses');
    await page.getByText('/nzbn/v5/entities/{nzbn}/addresses').first().waitFor();
    await expectAccessible(page, 'search');
    await screenshots(page, 'search');
    // A result opens its operation in the reference.
    await page.getByRole('link', { name: 'get /nzbn/v5/entities/{nzbn}/addresses' }).click();
    await ready();
    const opened = page.locator(
      '.opblock-get.is-open .opblock-summary-path[data-path="/entities/{nzbn}/addresses"]',
    );
    await expect.poll(() => opened.count()).toBe(1);
    await page.goBack();
    // Operations of every built register are found.
    for (const [words, path] of [
      ['statistics', '/tenancy-services/market-rent/v2/statistics'],
      ['ppsr', '/ppsr/v2/'],
    ] as const) {
      await page.goto(`${base}/portal/search?q=${encodeURIComponent(words)}`);
      await page.getByText(path).first().waitFor();
    }
    expect(problems).toEqual([]);
  });

  it('self-service sandbox access: claim the test businesses, create and join an organisation', async () => {
    await page.goto(`${base}/portal`);
    await page
      .getByRole('navigation', { name: 'Portal' })
      .getByRole('link', { name: 'Sandbox access' })
      .click();
    await expectAccessible(page, 'sandbox access');
    await screenshots(page, 'sandbox-access');
    await page.getByRole('button', { name: 'Claim authority over the test businesses' }).click();
    await page.getByText('You now hold business authority').waitFor();
    const pool = gateway.runtime.gateway.pool;
    const user = (
      await pool.query<{ id: string }>('SELECT user_id AS id FROM authorities WHERE granted_by = user_id')
    ).rows[0];
    expect(user).toBeDefined();
    for (const fixture of CLAIMABLE) {
      const object = { environment: 'sandbox' as const, service: 'nzbn', kind: 'entity', id: fixture.nzbn };
      expect(await mayAct(pool, object, { userId: user!.id })).toBe(true);
    }
    expect(await page.getByRole('button', { name: 'Claim authority over the test businesses' }).count()).toBe(
      0,
    );

    await page.getByLabel('Identifier', { exact: true }).fill('rita-builds');
    await page.getByLabel('Name', { exact: true }).fill('Rita Builds Ltd');
    await page.getByRole('button', { name: 'Create the organisation and join it' }).click();
    await page.getByText('exists and you are its owner').waitFor();
    const mine = await organisationsOf(pool, user!.id);
    expect(mine.map((o) => [o.environment, o.identifier, o.role])).toEqual([
      ['sandbox', 'rita-builds', 'owner'],
    ]);
    // The same identifier again: a clear refusal naming the field, nothing written.
    await page.getByLabel('Identifier', { exact: true }).fill('rita-builds');
    await page.getByRole('button', { name: 'Create the organisation and join it' }).click();
    await page.getByText('identifier: the sandbox organisation rita-builds exists already').waitFor();
    expect(await organisationsOf(pool, user!.id)).toHaveLength(1);
    await screenshots(page, 'sandbox-access-done');
    expect(problems).toEqual([]);
  });

  it('every page passes axe-core and reads on a phone without sideways scrolling', async () => {
    const pages = [
      '/portal',
      '/portal/products',
      '/portal/products/sandbox-market-rent',
      '/portal/subscriptions',
      '/portal/sandbox',
      '/portal/try',
      '/portal/clients',
      '/portal/billing',
      '/portal/account',
      '/portal/search?q=entities',
      '/portal/no-such-page',
    ];
    for (const address of pages) {
      await page.goto(`${base}${address}`);
      if (address.startsWith('/portal/products/')) await ready();
      const name = `page${address.replace(/[^a-z]+/g, '-')}`;
      await screenshots(page, name);
      await expectAccessible(page, name);
    }
    const anonymous = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    for (const address of ['/portal/signin', '/portal/signup', '/portal', '/portal/products']) {
      await anonymous.goto(`${base}${address}`);
      const name = `anonymous${address.replace(/[^a-z]+/g, '-')}`;
      await screenshots(anonymous, name);
      await expectAccessible(anonymous, name);
    }
    await anonymous.close();
    expect(problems.filter((text) => !text.includes('404'))).toEqual([]);
  });

  it('signing out forgets the kept key', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${base}/portal`);
    const kept = await page.evaluate<number>(
      "Object.keys(window.localStorage).filter((name) => name.startsWith('rsg-portal-key:')).length",
    );
    expect(kept).toBe(0);
  });
});

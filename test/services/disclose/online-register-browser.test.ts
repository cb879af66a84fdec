import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS, CHROMIUM, freePort, hasChromium, launchChromium } from '../../portal/support/browser.ts';
import { type DiscloseGateway, discloseGateway } from './support/api.ts';

type Browser = Awaited<ReturnType<typeof launchChromium>>;

if (!hasChromium) console.warn(`online register browser tests skipped: ${CHROMIUM} is absent`);

/** The online register's pages in Debian's Chromium: what `registerUrl` points at, no key needed. */
describe.skipIf(!hasChromium)('the online register in Chromium', { timeout: 120_000 }, () => {
  let d: DiscloseGateway;
  let browser: Browser;
  let base: string;

  beforeAll(async () => {
    d = await discloseGateway();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    await d.gateway.app.listen({ port, host: '127.0.0.1' });
    browser = await launchChromium();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await d?.close();
  });

  /** The page an API answer's registerUrl names, on the listening server. */
  const pageOf = async (apiPath: string) => {
    const registerUrl = new URL((await d.get(apiPath)).json().registerUrl as string);
    return `${base}${registerUrl.pathname}${registerUrl.search}`;
  };

  it('an offer: its facts, documents that download, versions and funds', async () => {
    const offer = (await d.get('/offer/OFR10001')).json();
    const page = await (await browser.newContext()).newPage();
    const response = await page.goto(await pageOf('/offer/OFR10001'));
    expect(response?.status()).toBe(200);
    expect(await page.locator('h1').textContent()).toBe(offer.name);
    // Every document and every fund, not only the API's first 10.
    expect(await page.locator('section:has(h2:text("Documents")) tbody tr').count()).toBe(11);
    expect(await page.locator('section:has(h2:text("Funds")) li').count()).toBe(11);
    const href = await page
      .locator('section:has(h2:text("Documents")) tbody tr a')
      .first()
      .getAttribute('href');
    const download = await page.request.get(`${base}${href}`);
    expect(download.status()).toBe(200);
    expect(download.headers()['content-type']).toBe('application/pdf');
    await page.screenshot({ path: path.join(ARTIFACTS, 'disclose-offer.png'), fullPage: true });

    await page.locator('ol.versions a', { hasText: 'OFR10001-v1' }).click();
    await page.waitForURL(/version=OFR10001-v1/);
    expect(await page.locator('main').textContent()).toContain('a historic version');

    await page.goto(await pageOf('/offer/OFR10001'));
    await page.locator('section:has(h2:text("Funds")) a', { hasText: 'Fund' }).first().click();
    await page.waitForURL(/\/online-register\/fund\/FND10001$/);
    expect(
      await page.locator('section:has(h2:text("Full portfolio holdings")) tbody tr').count(),
    ).toBeGreaterThan(10);
    await page.screenshot({ path: path.join(ARTIFACTS, 'disclose-fund.png'), fullPage: true });
  });

  it('a scheme and a fund at an offer version are the pages their answers name; an unknown number is a 404 page', async () => {
    const page = await (await browser.newContext()).newPage();
    expect((await page.goto(await pageOf('/scheme/SCH10000')))?.status()).toBe(200);
    expect(await page.locator('main').textContent()).toContain('Manager');
    expect((await page.goto(await pageOf('/fund/FND10001?version=OFR10001-v1')))?.status()).toBe(200);
    expect(await page.locator('main').textContent()).toContain('FND10001-v1');
    const missing = await page.goto(
      `${base}/sandbox/companies-office/disclose-register/v1/online-register/offer/OFR99999`,
    );
    expect(missing?.status()).toBe(404);
    expect(await page.locator('h1').textContent()).toBe('Not on the register');
  });
});

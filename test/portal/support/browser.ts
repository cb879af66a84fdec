import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { freePort } from '../../support/ports.ts';

/**
 * Debian's Chromium driven by playwright-core (no browser is ever downloaded). Playwright gives each
 * launch a fresh temporary user-data-dir; the flags keep the browser off the network.
 */
export const CHROMIUM = '/usr/bin/chromium';
export const hasChromium = existsSync(CHROMIUM);
export const ARTIFACTS = path.resolve('test-artifacts');

export async function launchChromium(): Promise<Browser> {
  await mkdir(ARTIFACTS, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--headless',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-quic',
      '--no-first-run',
    ],
  });
}

export { freePort };

/** A full-page screenshot; every page photographed is also checked with axe-core. */
export async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(ARTIFACTS, `portal-${name}.png`), fullPage: true });
  await expectAccessible(page, name);
}

/** Every visible form control has an accessible name (a label, aria-label or aria-labelledby). */
export async function expectLabelledControls(page: Page): Promise<void> {
  // A string, evaluated in the page: the test program is compiled without the DOM library.
  const unlabelled = await page.evaluate<
    string[]
  >(`[...document.querySelectorAll('input, select, textarea, button')]
    .filter((control) => control.type !== 'hidden')
    .filter((control) => !(control.labels?.length || control.getAttribute('aria-label') ||
      control.getAttribute('aria-labelledby') || (control.tagName === 'BUTTON' && control.textContent.trim())))
    .map((control) => control.outerHTML.slice(0, 120))`);
  expect(unlabelled).toEqual([]);
}

/** A tiny OAuth redirect target on 127.0.0.1 that keeps the query of each request. */
export async function callbackServer(): Promise<{
  server: Server;
  url: string;
  received: URLSearchParams[];
}> {
  const received: URLSearchParams[] = [];
  const server = createHttpServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    if (url.pathname === '/callback') received.push(url.searchParams);
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end('<!doctype html><title>Callback</title><p>Signed in; you can close this window.</p>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { server, url: `http://127.0.0.1:${port}/callback`, received };
}

export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export function claimsOf(jwt: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString('utf8'));
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * axe-core run in the page (evaluated through the browser's protocol, so the pages' CSP stays on):
 * no serious or critical violation. Returns the rule ids of the lesser ones.
 */
export async function expectAccessible(page: Page, name: string): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate<{ id: string; impact: string; nodes: number; help: string }[]>(
    `axe.run(document, { resultTypes: ['violations'] }).then((result) => result.violations.map((v) =>
      ({ id: v.id, impact: v.impact, nodes: v.nodes.length, help: v.help + ' — ' + v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ') })))`,
  );
  const bad = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  if (process.env.RSG_AXE_DEBUG && bad.length) {
    const nodes = await page.evaluate<string>(
      `axe.run(document, { resultTypes: ['violations'] }).then((r) => JSON.stringify(r.violations.map((v) => [v.id, v.nodes.map((n) => n.target.join(' ') + ' :: ' + (n.any[0]?.message ?? '') + n.html.slice(0, 200))])))`,
    );
    console.log(nodes);
  }
  expect(bad, `axe on ${name}`).toEqual([]);
  return violations.map((v) => v.id);
}

/** A full-page screenshot at desktop width and at phone width (then back to desktop). */
export async function screenshots(page: Page, name: string): Promise<void> {
  await page.setViewportSize({ width: 1280, height: 900 });
  await screenshot(page, `${name}-desktop`);
  await page.screenshot({ path: path.join(ARTIFACTS, `portal-${name}-desktop-top.png`) });
  await page.setViewportSize({ width: 375, height: 800 });
  await screenshot(page, `${name}-phone`);
  await page.screenshot({ path: path.join(ARTIFACTS, `portal-${name}-phone-top.png`) });
  const sideways = await page.evaluate<boolean>(
    'document.documentElement.scrollWidth > document.documentElement.clientWidth + 1',
  );
  expect(sideways, `${name} scrolls sideways on a phone`).toBe(false);
  await page.setViewportSize({ width: 1280, height: 900 });
}

/** The guide's screenshots: docs/guide/portal/<name>.png, at a laptop's width (docs/guide/portal.md). */
export const GUIDE_SHOTS = path.resolve('docs/guide/portal');
export const GUIDE_WIDTH = 1366;

/**
 * A screenshot for the guide, at 1366 × 900: the whole page, or only the first screen (`top`) for the
 * long ones (the API reference). Checked like every photographed page: axe-core, labelled controls, and
 * no API path wrapped inside a segment.
 */
export async function guideScreenshot(
  page: Page,
  name: string,
  options: { top?: boolean } = {},
): Promise<void> {
  await mkdir(GUIDE_SHOTS, { recursive: true });
  await page.setViewportSize({ width: GUIDE_WIDTH, height: 900 });
  await expectPathsUnbroken(page, name);
  await page.screenshot({ path: path.join(GUIDE_SHOTS, `${name}.png`), fullPage: !options.top });
  await expectAccessible(page, name);
  // Swagger UI names some buttons by title only (axe accepts it); the portal's own pages use labels.
  if ((await page.locator('#api-reference').count()) === 0) await expectLabelledControls(page);
}

/**
 * Every API path (`pathCode`) breaks only between its segments: the text of no segment spans two lines
 * (measured on the text itself, so a hyphen break inside `tenancy-services` counts), and the page does
 * not scroll sideways.
 */
export async function expectPathsUnbroken(page: Page, name: string): Promise<void> {
  const broken = await page.evaluate<
    string[]
  >(`[...document.querySelectorAll('code.path')].flatMap((code) => {
    const walker = document.createTreeWalker(code, NodeFilter.SHOW_TEXT);
    const wrapped = [];
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const range = document.createRange();
      range.selectNodeContents(node);
      const lines = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
      if (lines.size > 1) wrapped.push(code.textContent + ' at ' + node.textContent);
    }
    return wrapped;
  })`);
  expect(broken, `${name}: paths wrapped mid-word`).toEqual([]);
  const sideways = await page.evaluate<boolean>(
    'document.documentElement.scrollWidth > document.documentElement.clientWidth + 1',
  );
  expect(sideways, `${name} scrolls sideways`).toBe(false);
}

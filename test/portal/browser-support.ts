import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer } from 'node:net';
import path from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { expect } from 'vitest';

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

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

export async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(ARTIFACTS, `portal-${name}.png`), fullPage: true });
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

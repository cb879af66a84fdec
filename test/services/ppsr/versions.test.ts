import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setClock } from '../../../src/platform/environment-clocks.ts';
import { type PpsrTest, ppsrTest, registration } from './support/api.ts';

/**
 * PPSR_55, a statement's versions: ETag and Last-Modified, 304 for If-None-Match and If-Modified-Since,
 * and new validators when the statement gets a version or when the day makes it Expired. On a virtual
 * sandbox clock, so the day can pass the statement's expiry date.
 */
let test: PpsrTest;
beforeAll(async () => {
  test = await ppsrTest({ env: { RSG_SANDBOX_CLOCK: 'virtual' } });
}, 120_000);
afterAll(async () => test?.close());

/** Moves the sandbox clock and waits until this process reads it. */
const clockAt = async (iso: string) => {
  await setClock(test.gateway.runtime.gateway.pool, 'sandbox', iso);
  await test.gateway.runtime.clocks.reload();
};

const read = (path: string, headers: Record<string, string> = {}) =>
  test.call('GET', path, { token: null, headers });

/** The answer's validators, after checking it answers 304 with an empty body to each of them. */
async function validators(path: string) {
  const first = await read(path);
  expect(first.statusCode, first.body).toBe(200);
  const etag = String(first.headers.etag);
  const lastModified = String(first.headers['last-modified']);
  expect(etag).toMatch(/^"[^"]+"$/);
  expect(first.headers['last-modified']).toBeDefined();
  const conditions: Record<string, string>[] = [
    { 'if-none-match': etag },
    { 'if-modified-since': lastModified },
  ];
  for (const headers of conditions) {
    const again = await read(path, headers);
    expect(again.statusCode, JSON.stringify(headers)).toBe(304);
    expect(again.body).toBe('');
    expect(again.headers.etag).toBe(etag);
  }
  return { etag, lastModified, body: first.json() };
}

/** Both conditions on `old` validators: the list changed, so 200 with the current ETag. */
async function changedSince(path: string, old: { etag: string; lastModified: string }, etag: string) {
  const conditions: Record<string, string>[] = [
    { 'if-none-match': old.etag },
    { 'if-modified-since': old.lastModified },
  ];
  for (const headers of conditions) {
    const response = await read(path, headers);
    expect(response.statusCode, JSON.stringify(headers)).toBe(200);
    expect(response.headers.etag).toBe(etag);
  }
}

describe('PPSR_55 GET /financing-statements/{registrationNumber}/versions', () => {
  it('carries validators that move with each version and with the status the day gives it', async () => {
    // 10 March 2026, 13:00 in New Zealand (NZDT, +13).
    await clockAt('2026-03-10T00:00:00Z');
    const created = await test.call('POST', '/financing-statements', {
      token: null,
      body: registration({ expiryDate: '2026-03-11' }),
    });
    expect(created.statusCode, created.body).toBe(201);
    const number = created.json().registrationNumber as string;
    const path = `/financing-statements/${number}/versions`;

    const registered = await validators(path);
    // The time of the statement's current version, as its own read gives it.
    expect(registered.lastModified).toBe(created.headers['last-modified']);
    expect(registered.body.versions.map((v: { status: string }) => v.status)).toEqual(['Registered']);

    // A new version: a new ETag, a later Last-Modified.
    await clockAt('2026-03-10T01:00:00Z');
    const amended = await test.call('PUT', `/financing-statements/${number}`, {
      token: null,
      body: { ...registration(), collaterals: [{ collateralType: 'AAPP' }] },
    });
    expect(amended.statusCode, amended.body).toBe(200);
    const twice = await validators(path);
    expect(twice.etag).not.toBe(registered.etag);
    expect(twice.lastModified).toBe(amended.headers['last-modified']);
    expect(Date.parse(twice.lastModified)).toBeGreaterThan(Date.parse(registered.lastModified));
    await changedSince(path, registered, twice.etag);

    // Still in force on its expiry date: nothing changed.
    await clockAt('2026-03-11T10:59:00Z');
    expect((await read(path, { 'if-none-match': twice.etag })).statusCode).toBe(304);
    expect((await read(path, { 'if-modified-since': twice.lastModified })).statusCode).toBe(304);

    // From New Zealand midnight after the expiry date the statement is Expired, with no new version.
    await clockAt('2026-03-12T00:00:00Z');
    const expired = await validators(path);
    expect(expired.body.versions.map((v: { status: string }) => v.status)).toEqual(['Registered', 'Expired']);
    expect(expired.etag).not.toBe(twice.etag);
    expect(expired.lastModified).toBe('Wed, 11 Mar 2026 11:00:00 GMT');
    await changedSince(path, twice, expired.etag);
  });

  it('is 404 for a statement nobody registered, whatever the conditions', async () => {
    const response = await read('/financing-statements/FH04R729A8ND9224/versions', { 'if-none-match': '*' });
    expect(response.statusCode).toBe(404);
  });
});

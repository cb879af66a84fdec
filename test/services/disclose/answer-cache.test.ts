import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { withIsinCheckDigit } from '../../../src/services/disclose/domain/isin.ts';
import { AnswerCache, RECORD_CHANNEL } from '../../../src/services/disclose/store/answer-cache.ts';
import { type DiscloseGateway, discloseGateway } from './support/api.ts';

let d: DiscloseGateway;
beforeAll(async () => {
  d = await discloseGateway();
}, 120_000);
afterAll(() => d?.close());

describe('the kept detail answers', () => {
  it('answer byte for byte as before, with the same ETag and Last-Modified, whatever the Host', async () => {
    const first = await d.get('/offer/OFR10001');
    expect(first.statusCode).toBe(200);
    // Served from memory once the cache listens; the answer does not change.
    for (let i = 0; i < 5; i++) {
      const again = await d.get('/offer/OFR10001');
      expect(again.body).toBe(first.body);
      expect(again.headers.etag).toBe(first.headers.etag);
      expect(again.headers['last-modified']).toBe(first.headers['last-modified']);
    }
    // Another Host is the same answer: registerUrl is on the public base URL, never the request's host.
    const elsewhere = await d.get('/offer/OFR10001', { host: 'register.example:8443' });
    expect(elsewhere.body).toBe(first.body);
    expect(elsewhere.json().registerUrl).toBe(
      `${d.gateway.runtime.publicUrl.base}/sandbox/companies-office/disclose-register/v1/online-register/offer/OFR10001`,
    );
    expect((await d.get('/offer/OFR10001')).body).toBe(first.body);
    const conditional = await d.get('/offer/OFR10001', { 'if-none-match': first.headers.etag as string });
    expect(conditional.statusCode).toBe(304);
    const scheme = await d.get('/scheme/SCH10000');
    expect((await d.get('/scheme/SCH10000')).body).toBe(scheme.body);
  });

  it('a historic version is kept apart from the current one', async () => {
    const current = (await d.get('/offer/OFR10001')).json();
    const older = current.versions.at(-1).versionId as string;
    const historic = await d.get(`/offer/OFR10001?version=${older}`);
    expect(historic.json().versionId).toBe(older);
    expect((await d.get(`/offer/OFR10001?version=${older}`)).body).toBe(historic.body);
    expect((await d.get('/offer/OFR10001')).json().versionId).toBe(current.versionId);
  });

  it('a change by SQL, outside the register’s code, reaches the answer (trigger notice)', async () => {
    const before = (await d.get('/offer/OFR10002')).json();
    await d.gateway.runtime.environments.sandbox.pool.query(
      `UPDATE disclose_offer_versions SET document = jsonb_set(document, '{name}', '"Renamed by an operator"')
        WHERE offer_number = 'OFR10002' AND version = $1`,
      [Number(String(before.versionId).split('-v')[1])],
    );
    // The notice is delivered asynchronously.
    await vi.waitFor(
      async () => expect((await d.get('/offer/OFR10002')).json().name).toBe('Renamed by an operator'),
      { timeout: 5_000, interval: 20 },
    );
  });

  it('a filing is seen by the next read at once (the writer drops its process’s answers)', async () => {
    const offer = await d.get('/offer/OFR10001');
    const fund = await d.get('/offer/OFR10001/fund/FND10001');
    const each = 25;
    const filed = await d.call('PUT', '/offer/OFR10001/fund/FND10001/submit-fph-compliance', {
      body: {
        periodEndDate: '2026-03-31',
        holdings: Array.from({ length: 4 }, (_, i) => ({
          assetName: `Holding ${i}`,
          assetType: 'INTERNATIONAL_EQUITIES',
          isin: withIsinCheckDigit(`NZ${String(200_000_000 + i)}`),
          value: 1000 + i,
          percentageOfFund: each,
          currency: 'NZD',
        })),
      },
      headers: { 'if-match': fund.headers.etag as string },
    });
    expect(filed.statusCode, filed.body).toBe(200);
    const after = await d.get('/offer/OFR10001');
    // The offer's last change is the filing's (its body, and so its ETag, does not change).
    expect(after.headers['last-modified']).not.toBe(offer.headers['last-modified']);
    expect(after.body).toBe(offer.body);
  });
});

describe('AnswerCache', () => {
  const answer = (text: string) => ({ text, etag: `"${text}"`, lastModified: new Date(0) });

  it('serves only while listening; a notice drops everything; an answer made across a notice is not kept', async () => {
    const url = d.gateway.runtime.environments.sandbox.url;
    const cache = new AnswerCache(url, 2);
    try {
      expect(cache.get('a')).toBeUndefined(); // opens the listening connection
      expect(cache.keep('a', answer('a'), cache.mark()).text).toBe('a');
      expect(cache.kept).toBe(0); // not listening yet: nothing kept
      await vi.waitFor(() => expect(cache.serving).toBe(true), { timeout: 5_000, interval: 20 });
      cache.keep('a', answer('a'), cache.mark());
      expect(cache.get('a')?.text).toBe('a');
      // The least recently read goes first.
      cache.keep('b', answer('b'), cache.mark());
      cache.get('a');
      cache.keep('c', answer('c'), cache.mark());
      expect(cache.get('b')).toBeUndefined();
      expect(cache.get('a')?.text).toBe('a');
      // A notice from any writer drops every answer; one made while it came is sent but not kept.
      const mark = cache.mark();
      const seen = cache.notices();
      await d.gateway.runtime.environments.sandbox.pool.query('SELECT pg_notify($1, $2)', [
        RECORD_CHANNEL,
        '*',
      ]);
      await cache.echo(seen);
      expect(cache.notices()).toBeGreaterThan(seen);
      expect(cache.get('a')).toBeUndefined();
      cache.keep('d', answer('d'), mark);
      expect(cache.get('d')).toBeUndefined();
    } finally {
      await cache.close();
    }
    expect(cache.get('a')).toBeUndefined();
  });

  it('keeps nothing and opens no connection with a size of 0', async () => {
    const cache = new AnswerCache(d.gateway.runtime.environments.sandbox.url, 0);
    expect(cache.get('a')).toBeUndefined();
    cache.keep('a', answer('a'), cache.mark());
    expect(cache.serving).toBe(false);
    expect(cache.get('a')).toBeUndefined();
    await cache.close();
  });
});

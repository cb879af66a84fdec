import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSubscription } from '../../src/gateway/operations/subscriptions.ts';
import { callsOf, countCalls, everyCallAsText } from '../../src/gateway/store/inspector.ts';
import { addUser } from '../../src/identity/operations/users.ts';
import { setClock } from '../../src/platform/environment-clocks.ts';
import { startJobs } from '../../src/runtime.ts';
import { signedInUser } from '../portal/support/api.ts';
import { type DiscloseGateway, discloseGateway } from '../services/disclose/support/api.ts';
import { Receiver } from '../services/nzbn/support/watchlists.ts';
import { seedBusinessNumbers } from '../support/business-numbers.ts';
import { clientCredentialsToken } from '../support/oauth.ts';
import { testGateway } from '../support/runtime.ts';

/**
 * The request inspector end to end: real calls with keys (header and query), an OAuth token, a
 * secured interests PIN (header and body), a signed document URL, a watchlist's authorization token and
 * webhook secret; then every stored row is read as text and none of those values may be in it. The
 * bound (500 per subscription), who sees the page (its owner; anyone else the 404 of no such
 * subscription) and production's metadata only.
 */
let d: DiscloseGateway;
const secrets = new Map<string, string>();
const remember = (what: string, value: unknown) => {
  expect(typeof value === 'string' && value.length >= 4, what).toBe(true);
  secrets.set(what, value as string);
};

const NZBN = '/sandbox/nzbn/v5';
const PPSR = '/sandbox/ppsr/v2';
const FIXTURE_COMPANY = '9429000001007';
let owner: Awaited<ReturnType<typeof signedInUser>>;
let ppsr: { subscriptionId: string; primaryKey: string };
let nzbn: { subscriptionId: string; primaryKey: string };

beforeAll(async () => {
  d = await discloseGateway();
  await seedBusinessNumbers(d.gateway, 10);
  owner = await signedInUser(d.gateway);
  const pool = d.gateway.runtime.gateway.pool;
  ppsr = await createSubscription(pool, {
    userId: owner.user.id,
    productId: 'sandbox-ppsr',
    state: 'active',
  });
  nzbn = await createSubscription(pool, {
    userId: owner.user.id,
    productId: 'sandbox-nzbn',
    state: 'active',
  });
  remember('disclose key', d.key);
  remember('ppsr key', ppsr.primaryKey);
  remember('nzbn key', nzbn.primaryKey);
}, 180_000);
afterAll(() => d?.close());

describe('the request inspector', () => {
  it('records real calls and never stores a secret', async () => {
    const app = d.gateway.app;
    // A signed document URL in an answer's Location (the offers register's documents).
    const list = await d.get('/scheme/SCH10000/governing-documents');
    const href = (list.json().items[0] as { href: string }).href;
    const redirect = await d.get(href.replace(/^.*\/companies-office\/disclose-register\/v1/, ''));
    expect(redirect.statusCode).toBe(302);
    remember('document signature', new URL(String(redirect.headers.location)).searchParams.get('signature'));

    // A PIN in the header and in the body, the key in the query string.
    const pin = '73918264';
    remember('financing statement PIN', pin);
    const withPin = await app.inject({
      method: 'PUT',
      url: `${PPSR}/financing-statements/FS0000000001?subscription-key=${ppsr.primaryKey}`,
      headers: { 'Financing-Statement-PIN': pin, 'content-type': 'application/json' },
      payload: JSON.stringify({ pin, debtorPin: '55512345', note: `pin ${pin}` }),
    });
    remember('debtor PIN', '55512345');
    expect(withPin.statusCode).toBeGreaterThanOrEqual(400);
    expect(withPin.statusCode).toBeLessThan(500);

    // An OAuth token (client credentials) with the key in the header.
    const token = await clientCredentialsToken(d.gateway, owner.user.id);
    remember('access token', token);
    const read = await app.inject({
      url: `${NZBN}/entities/${FIXTURE_COMPANY}`,
      headers: { 'Ocp-Apim-Subscription-Key': nzbn.primaryKey, authorization: `Bearer ${token}` },
    });
    expect(read.statusCode).toBe(200);

    // A push watchlist: its authorization token, an endpoint with a token, and the webhook secret.
    const authorizationToken = `wl-${randomBytes(12).toString('hex')}`;
    remember('watchlist authorization token', authorizationToken);
    const endpointToken = `hook-${randomBytes(8).toString('hex')}`;
    remember('endpoint token', endpointToken);
    const created = await app.inject({
      method: 'POST',
      url: `${NZBN}/watchlists?subscription-key=${nzbn.primaryKey}`,
      payload: {
        name: 'Suppliers',
        channel: 'PUSH',
        pushEndpoint: `https://receiver.example.com/hooks?token=${endpointToken}`,
        authorizationToken: `Bearer ${authorizationToken}`,
        adminEmailAddress: 'admin@example.com',
        changeEventTypes: ['ENTITY_NAME'],
        nzbns: [FIXTURE_COMPANY],
      },
    });
    expect(created.statusCode, created.body).toBe(201);
    remember('webhook secret', created.json().webhookSecret);

    // A refusal with a reason.
    const refused = await app.inject({ url: `${NZBN}/entities/12?subscription-key=${nzbn.primaryKey}` });
    expect(refused.statusCode).toBe(400);

    await d.gateway.runtime.inspector.flush();
    const rows = await everyCallAsText(d.gateway.runtime.gateway.pool);
    expect(rows.length).toBeGreaterThanOrEqual(6);
    expect(secrets.size).toBeGreaterThanOrEqual(10);
    const all = rows.join('\n');
    const found = [...secrets].filter(
      ([, value]) => all.includes(value) || all.includes(encodeURIComponent(value)),
    );
    expect(found.map(([what]) => what)).toEqual([]);
    // What was kept is really there: the calls, their bodies and the reason of the refusal.
    expect(all).toContain('financing-statements/FS0000000001');
    expect(all).toContain('[REDACTED]');
    expect(all).toContain('Suppliers');
    const nzbnCalls = await callsOf(d.gateway.runtime.gateway.pool, nzbn.subscriptionId, new Date(0), 10);
    const refusal = nzbnCalls.find((c) => c.status === 400)!;
    expect(refusal.reason).toMatch(/nzbn/i);
    expect(refusal.responseBody).toContain('errorCode');
    // The answer's headers, read after it was sent.
    expect(refusal.responseHeaders['content-type']).toMatch(/^application\/json/);
    expect(refusal.requestHeaders['ocp-apim-subscription-key'] ?? refusal.url).toMatch(/REDACTED/);
  });

  it('shows the calls to their owner only, with copy as curl', async () => {
    const page = await owner.client.get(`/portal/subscriptions/${ppsr.subscriptionId}/inspector`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('financing-statements');
    const link = /href="(\/portal\/subscriptions\/[^"]+\/inspector\/\d+)"/.exec(page.body)![1]!;
    const detail = await owner.client.get(link);
    expect(detail.statusCode).toBe(200);
    expect(detail.body).toContain('curl -X PUT');
    expect(detail.body).toContain('$RSG_KEY');
    expect(detail.body).toContain('financing-statement-pin: $RSG_PIN');
    for (const [what, value] of secrets) expect(detail.body.includes(value), what).toBe(false);

    const nzbnPage = await owner.client.get(`/portal/subscriptions/${nzbn.subscriptionId}/inspector`);
    expect(nzbnPage.body).toContain('Watchlist push deliveries');

    const other = await signedInUser(d.gateway);
    const foreign = await other.client.get(`/portal/subscriptions/${ppsr.subscriptionId}/inspector`);
    expect(foreign.statusCode).toBe(404);
    const foreignCall = await other.client.get(link);
    expect(foreignCall.statusCode).toBe(404);
    // Another subscription's id with this call's number: not found either.
    const mixed = await owner.client.get(link.replace(ppsr.subscriptionId, nzbn.subscriptionId));
    expect(mixed.statusCode).toBe(404);
    const list = await owner.client.get('/portal/subscriptions');
    expect(list.body).toContain(`/portal/subscriptions/${ppsr.subscriptionId}/inspector`);
  });

  it('keeps production calls without bodies', async () => {
    const pool = d.gateway.runtime.gateway.pool;
    const production = await createSubscription(pool, {
      userId: owner.user.id,
      productId: 'production-nzbn',
      state: 'active',
    });
    const answer = await d.gateway.app.inject({
      method: 'POST',
      url: '/gateway/nzbn/v5/watchlists',
      headers: { 'Ocp-Apim-Subscription-Key': production.primaryKey, 'content-type': 'application/json' },
      payload: JSON.stringify({ name: 'a body that must not be kept' }),
    });
    expect(answer.statusCode, answer.body).toBeGreaterThanOrEqual(400);
    expect(answer.statusCode, answer.body).not.toBe(401);
    await d.gateway.runtime.inspector.flush();
    const [call] = await callsOf(pool, production.subscriptionId, new Date(0), 10);
    expect(call).toMatchObject({ bodiesKept: false, requestBody: null, responseBody: null, method: 'POST' });
    expect(call!.reason).toBeTruthy();
    expect(JSON.stringify(call)).not.toContain('must not be kept');
  });

  it('keeps its bound: the newest 500 calls of a subscription', async () => {
    const pool = d.gateway.runtime.gateway.pool;
    const { subscriptionId, primaryKey } = await createSubscription(pool, {
      userId: owner.user.id,
      productId: 'sandbox-nzbn',
      state: 'active',
    });
    for (let i = 0; i < 520; i++) {
      await d.gateway.app.inject({
        url: `${NZBN}/entities/${i}`,
        headers: { 'Ocp-Apim-Subscription-Key': primaryKey },
      });
      // Written in several batches, as a running gateway does.
      if (i % 200 === 199) await d.gateway.runtime.inspector.flush();
    }
    await d.gateway.runtime.inspector.flush();
    expect(await countCalls(pool, subscriptionId)).toBe(500);
    const newest = await callsOf(pool, subscriptionId, new Date(0), 1);
    expect(newest[0]!.url).toBe(`${NZBN}/entities/519`);
    const kept = await callsOf(pool, subscriptionId, new Date(0), 500);
    expect(kept.at(-1)!.url).toBe(`${NZBN}/entities/20`);
    // A body past the bound is cut, and what is cut is marked (another subscription: this one is at its
    // rate limit).
    const fresh = await createSubscription(pool, {
      userId: owner.user.id,
      productId: 'sandbox-nzbn',
      state: 'active',
    });
    const large = await d.gateway.app.inject({
      method: 'POST',
      url: `${NZBN}/watchlists`,
      headers: { 'Ocp-Apim-Subscription-Key': fresh.primaryKey },
      payload: { name: 'x'.repeat(100_000), channel: 'PUSH', authorizationToken: 'Bearer kept-out-1234' },
    });
    expect(large.statusCode).toBe(400);
    await d.gateway.runtime.inspector.flush();
    const [cut] = await callsOf(pool, fresh.subscriptionId, new Date(0), 1);
    expect(cut!.requestBody!.length).toBeLessThan(17 * 1024);
    expect(cut!.requestBody).toContain('[cut');
    expect(JSON.stringify(cut)).not.toContain('kept-out-1234');
    expect(await countCalls(pool, subscriptionId)).toBe(500);
  }, 120_000);

  it('shows a watchlist push delivery with every attempt and its answer', async () => {
    const clock = d.gateway.runtime.clocks.for('sandbox');
    const receiver = await new Receiver(() => clock.now()).start();
    const jobs = await startJobs(d.gateway.runtime, 'http://127.0.0.1:8080');
    try {
      const endpoint = receiver.endpoint();
      const created = await d.gateway.app.inject({
        method: 'POST',
        url: `${NZBN}/watchlists`,
        headers: { 'Ocp-Apim-Subscription-Key': nzbn.primaryKey },
        payload: {
          name: 'Pushed',
          channel: 'PUSH',
          pushEndpoint: endpoint,
          adminEmailAddress: 'admin@example.com',
          changeEventTypes: ['ALL'],
          nzbns: [FIXTURE_COMPANY],
        },
      });
      expect(created.statusCode, created.body).toBe(201);
      remember('second webhook secret', created.json().webhookSecret);
      // The first attempt is answered 503; the retry, 20 minutes later, 200.
      receiver.answer = () => 503;
      const sent = await d.gateway.app.inject({
        method: 'POST',
        url: `${NZBN}/watchlists/${created.json().watchlistId}/action-send-test-notification`,
        headers: { 'Ocp-Apim-Subscription-Key': nzbn.primaryKey },
        payload: { text: 'hello' },
      });
      expect(sent.statusCode, sent.body).toBe(201);
      await jobs.settle();
      expect(receiver.on(new URL(endpoint).pathname)).toHaveLength(1);
      receiver.answer = () => 200;
      await setClock(
        d.gateway.runtime.gateway.pool,
        'sandbox',
        new Date(clock.now().getTime() + 21 * 60_000).toISOString(),
      );
      await d.gateway.runtime.clocks.reload();
      await jobs.settle();
      expect(receiver.on(new URL(endpoint).pathname)).toHaveLength(2);
      const page = await owner.client.get(`/portal/subscriptions/${nzbn.subscriptionId}/inspector`);
      const section = page.body.slice(page.body.indexOf('Watchlist push deliveries'));
      expect(section).toContain('Pushed');
      expect(section).toContain('HTTP 503');
      expect(section).toContain('HTTP 200 (delivered)');
      for (const [what, value] of secrets) expect(page.body.includes(value), what).toBe(false);
    } finally {
      await jobs.stop();
      await receiver.close();
    }
  }, 120_000);
});

describe('the request inspector with production bodies turned on', () => {
  it('keeps production bodies, redacted, when RSG_INSPECTOR_PRODUCTION_BODIES=on', async () => {
    const gateway = await testGateway({ env: { RSG_INSPECTOR_PRODUCTION_BODIES: 'on' } });
    try {
      const user = await addUser(gateway.runtime.gateway.pool, {
        email: `${randomBytes(4).toString('hex')}@example.test`,
      });
      const production = await createSubscription(gateway.runtime.gateway.pool, {
        userId: user.id,
        productId: 'production-nzbn',
        state: 'active',
      });
      const token = `Bearer prod-${randomBytes(8).toString('hex')}`;
      const answer = await gateway.app.inject({
        method: 'POST',
        url: '/gateway/nzbn/v5/watchlists',
        headers: { 'Ocp-Apim-Subscription-Key': production.primaryKey },
        payload: { name: 'a kept production body', channel: 'PUSH', authorizationToken: token },
      });
      expect(answer.statusCode).toBe(400);
      await gateway.runtime.inspector.flush();
      const [call] = await callsOf(gateway.runtime.gateway.pool, production.subscriptionId, new Date(0), 1);
      expect(call).toMatchObject({ bodiesKept: true, environment: 'production' });
      expect(call!.requestBody).toContain('a kept production body');
      expect(call!.responseBody).toContain('errorCode');
      const rows = (await everyCallAsText(gateway.runtime.gateway.pool)).join('\n');
      expect(rows).not.toContain(token.slice('Bearer '.length));
      expect(rows).not.toContain(production.primaryKey);
    } finally {
      await gateway.close();
    }
  }, 120_000);
});

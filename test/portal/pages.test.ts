import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateProduct } from '../../src/gateway/store/products.ts';
import { mayAct } from '../../src/identity/store/authorities.ts';
import { organisationsOf } from '../../src/identity/store/memberships.ts';
import { listOutbox } from '../../src/platform/mail.ts';
import { CLAIMABLE } from '../../src/portal/domain/sandbox.ts';
import { FIXTURE_CASES } from '../../src/services/nzbn/sandbox/fixtures.ts';
import { servicesWithEcho } from '../support/echo-service.ts';
import { type TestGateway, testGateway } from '../support/runtime.ts';
import { csrfOf, PortalClient, signedInUser } from './support/api.ts';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await testGateway({ app: { services: servicesWithEcho(['nzbn']) } });
});
afterAll(() => gateway?.close());

const keyOn = (body: string, slot: 'primary' | 'secondary') =>
  new RegExp(`id="key-${slot}"[^>]*>([^<]+)<`).exec(body)?.[1];
const echo = (key: string) =>
  gateway.app.inject({ url: '/sandbox/nzbn/v5/echo', headers: { 'Ocp-Apim-Subscription-Key': key } });

describe('products and API reference', () => {
  it('lists the ten products with their limits, to anyone', async () => {
    const response = await new PortalClient(gateway.app).get('/portal/products');
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-security-policy']).toContain("default-src 'none'");
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.body.match(/<a href="\/portal\/products\/(sandbox|production)-[a-z-]+">/g)).toHaveLength(
      10,
    );
    expect(response.body).toContain('300 calls per minute');
    expect(response.body).toContain('1,000,000 calls per day');
    expect(response.body).toContain('an operator approves');
    expect(response.body).toContain('Sign in to subscribe');
  });

  it('gives a product page the reference (Swagger UI from the package) and its prepared document', async () => {
    const client = new PortalClient(gateway.app);
    const response = await client.get('/portal/products/sandbox-market-rent');
    expect(response.statusCode).toBe(200);
    expect(response.body).toContain('data-spec="/portal/products/sandbox-market-rent/openapi.json"');
    const script = /src="(\/portal\/assets\/swagger-ui\/[^"]+\.js)"/.exec(response.body)?.[1];
    const style = /href="(\/portal\/assets\/swagger-ui\/[^"]+\.css)"/.exec(response.body)?.[1];
    expect((await client.get(script!)).body).toContain('SwaggerUIBundle');
    expect((await client.get(style!)).headers['content-type']).toContain('text/css');
    const prepared = await client.get('/portal/products/sandbox-market-rent/openapi.json');
    expect(prepared.statusCode).toBe(200);
    const document = prepared.json();
    expect(Object.keys(document.paths)).toContain('/statistics');
    expect(document.servers[0].url).toBe('/sandbox/tenancy-services/market-rent/v2');
    expect(document.info.description).toContain('### Conditional requests');
    expect(JSON.stringify(document)).not.toContain('Default Response');
    expect((await client.get('/portal/products/nope/openapi.json')).statusCode).toBe(404);
  });

  it('leads GET / to the portal; the landing page has the five registers and the search finds operations', async () => {
    const client = new PortalClient(gateway.app);
    const root = await client.get('/');
    expect(root.statusCode).toBe(302);
    expect(root.headers.location).toBe('/portal');
    const landing = await client.get('/portal');
    expect(landing.body.match(/<article class="card register"/g)).toHaveLength(5);
    expect(landing.body).toContain('<title>Developer portal — Register Services Gateway</title>');
    expect(landing.body).not.toContain('For operators');
    const found = await client.get('/portal/search?q=STATISTICS');
    expect(found.statusCode).toBe(200);
    expect(found.body).toContain('market-rent/</span><wbr><span>v2/</span><wbr><span>statistics');
    const none = await client.get('/portal/search?q=no-such-operation-anywhere');
    expect(none.body).toContain('No operation matches.');
    const odd = await client.get(`/portal/search?q=${'x'.repeat(5000)}&q=y`);
    expect(odd.statusCode).toBe(200);
    const operator = await signedInUser(gateway, { operator: true });
    const panel = await operator.client.get('/portal');
    expect(panel.body).toContain('Sandbox clock');
    expect(panel.body).toContain('Sandbox maintenance window');
  });

  it("the claimable test businesses are the business number register's fixed test cases meant for updates", () => {
    const forUpdates = FIXTURE_CASES.filter((fixture) => fixture.sandboxOperatorHasAuthority);
    expect(CLAIMABLE.map((c) => c.nzbn)).toEqual(forUpdates.map((f) => f.nzbn));
    for (const fixture of forUpdates) {
      expect(CLAIMABLE.find((c) => c.nzbn === fixture.nzbn)!.title).toContain(
        String(fixture.overrides.entityName),
      );
    }
  });

  it('sandbox organisations: bad identifiers are 4xx naming the field, and nothing is written', async () => {
    const { client, user } = await signedInUser(gateway);
    for (const identifier of ['', 'has space', 'x'.repeat(65), 'ümlaut']) {
      const response = await client.submit('/portal/sandbox', '/portal/sandbox/organisations', {
        identifier,
      });
      expect(response.statusCode).toBe(400);
      expect(response.body).toContain('identifier:');
    }
    expect(await organisationsOf(gateway.runtime.gateway.pool, user.id)).toEqual([]);
    const made = await client.submit('/portal/sandbox', '/portal/sandbox/organisations', {
      identifier: ['first-one', 'second'],
      name: 'First',
    });
    expect(made.statusCode).toBe(201);
    expect((await organisationsOf(gateway.runtime.gateway.pool, user.id)).map((o) => o.identifier)).toEqual([
      'first-one',
    ]);
    expect((await new PortalClient(gateway.app).get('/portal/sandbox')).statusCode).toBe(303);
  });

  it('production access goes to the operators: a request, the queue, approve or decline, a mail', async () => {
    const pool = gateway.runtime.gateway.pool;
    const { client, user, email } = await signedInUser(gateway);
    const ask = (form: Record<string, string>) =>
      client.submit('/portal/sandbox', '/portal/access-requests', form);
    expect((await ask({ kind: 'organisation', subject: 'has space' })).statusCode).toBe(400);
    expect((await ask({ kind: 'authority', subject: '12345' })).statusCode).toBe(400);
    expect((await ask({ kind: 'staging', subject: 'x' })).statusCode).toBe(400);
    const organisation = `acme-${randomUUID().slice(0, 8)}`;
    expect((await ask({ kind: 'organisation', subject: organisation, name: 'Acme' })).statusCode).toBe(201);
    const again = await ask({ kind: 'organisation', subject: organisation, name: 'Acme' });
    expect(again.statusCode).toBe(200);
    expect(again.body).toContain('already waiting');
    expect((await ask({ kind: 'authority', subject: '9429000003025' })).statusCode).toBe(201);
    // Nothing happens before an operator decides.
    expect(await organisationsOf(pool, user.id)).toEqual([]);

    const operator = await signedInUser(gateway, { operator: true });
    const queue = await operator.client.get('/portal/operator/approvals');
    const ids = [...queue.body.matchAll(/action="\/portal\/operator\/access\/([0-9a-f-]{36})"/g)].map(
      (m) => m[1]!,
    );
    const forUser = ids.filter((id) => queue.body.includes(id));
    expect(forUser.length).toBeGreaterThanOrEqual(2);
    const rowOf = (id: string) => queue.body.slice(queue.body.indexOf(id) - 600, queue.body.indexOf(id));
    const orgId = forUser.find((id) => rowOf(id).includes(organisation))!;
    const authId = forUser.find((id) => rowOf(id).includes('9429000003025') && rowOf(id).includes(email))!;
    const decide = (id: string, decision: string) =>
      operator.client.submit('/portal/operator/approvals', `/portal/operator/access/${id}`, { decision });
    expect((await decide(orgId, 'maybe')).statusCode).toBe(400);
    expect((await decide(orgId, 'approve')).statusCode).toBe(303);
    expect((await organisationsOf(pool, user.id)).map((o) => [o.environment, o.identifier, o.role])).toEqual([
      ['production', organisation, 'owner'],
    ]);
    expect((await decide(authId, 'decline')).statusCode).toBe(303);
    const production = {
      environment: 'production' as const,
      service: 'nzbn',
      kind: 'entity',
      id: '9429000003025',
    };
    expect(await mayAct(pool, production, { userId: user.id })).toBe(false);
    expect((await decide(orgId, 'approve')).statusCode).toBe(404);
    const mails = await listOutbox(pool, { to: email });
    expect(mails.map((m) => m.subject)).toEqual(
      expect.arrayContaining([
        'Your production organisation request was approved',
        'Your production authority request was declined',
      ]),
    );
    const mine = await client.get('/portal/sandbox');
    expect(mine.body).toContain('state-approved');
    expect(mine.body).toContain('state-declined');
  });

  it('answers unknown products and pages with an HTML 404', async () => {
    const client = new PortalClient(gateway.app);
    for (const url of ['/portal/products/nope', '/portal/products/%00%ff', '/portal/no-such-page']) {
      const response = await client.get(url);
      // A malformed escape is refused by Fastify's router itself (400), before any portal code runs.
      expect(response.statusCode).toBe(url.includes('%') ? 400 : 404);
      if (response.statusCode === 404) expect(response.headers['content-type']).toContain('text/html');
    }
  });
});

describe('subscriptions and keys', () => {
  it('subscribes to a sandbox product at once and shows the keys only on that page', async () => {
    const { client } = await signedInUser(gateway);
    const response = await client.submit('/portal/products', '/portal/subscriptions', {
      productId: 'sandbox-nzbn',
    });
    expect(response.statusCode).toBe(201);
    const primary = keyOn(response.body, 'primary')!;
    const secondary = keyOn(response.body, 'secondary')!;
    expect((await echo(primary)).statusCode).toBe(200);
    expect((await echo(secondary)).statusCode).toBe(200);
    const mine = await client.get('/portal/subscriptions');
    expect(mine.body).toContain('sandbox-nzbn');
    expect(mine.body).not.toContain(primary);
    expect(mine.body).toContain(primary.slice(-4));
    const twice = await client.submit('/portal/subscriptions', '/portal/subscriptions', {
      productId: 'sandbox-nzbn',
    });
    expect(twice.statusCode).toBe(409);
  });

  it('regenerates the primary key: the old one is refused at once, the secondary still works', async () => {
    const { client } = await signedInUser(gateway);
    const created = await client.submit('/portal/products', '/portal/subscriptions', {
      productId: 'sandbox-nzbn',
    });
    const old = keyOn(created.body, 'primary')!;
    const secondary = keyOn(created.body, 'secondary')!;
    const id = /id="subscription-([0-9a-f-]{36})"/.exec(
      (await client.get('/portal/subscriptions')).body,
    )![1]!;
    const regenerated = await client.submit('/portal/subscriptions', `/portal/subscriptions/${id}/keys`, {
      slot: 'primary',
    });
    expect(regenerated.statusCode).toBe(200);
    const fresh = keyOn(regenerated.body, 'primary')!;
    expect(keyOn(regenerated.body, 'secondary')).toBeUndefined();
    expect((await echo(old)).statusCode).toBe(401);
    expect((await echo(fresh)).statusCode).toBe(200);
    expect((await echo(secondary)).statusCode).toBe(200);
  });

  it('sets a sandbox subscription’s fault scenario: its calls meet it until it is cleared; only the owner may', async () => {
    const { client } = await signedInUser(gateway);
    const created = await client.submit('/portal/products', '/portal/subscriptions', {
      productId: 'sandbox-nzbn',
    });
    const key = keyOn(created.body, 'primary')!;
    const list = (await client.get('/portal/subscriptions')).body;
    const id = /id="subscription-([0-9a-f-]{36})"/.exec(list)![1]!;
    expect(list).toContain(`href="/portal/subscriptions/${id}/scenario"`);
    const page = await client.get(`/portal/subscriptions/${id}/scenario`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('No scenario: calls meet the register as usual.');
    expect(page.body).toContain('<code>flaky=PERCENT</code>');
    // The business number register has no platform timeout to rehearse.
    expect(page.body).not.toContain('value="timeout"');
    const scenarioUrl = `/portal/subscriptions/${id}/scenario`;
    const saved = await client.submit(scenarioUrl, scenarioUrl, { kind: 'throttled', value: '7' });
    expect(saved.statusCode).toBe(200);
    expect(saved.body).toContain('Saved: the next call meets <code>throttled=7</code>.');
    const throttled = await echo(key);
    expect(throttled.statusCode).toBe(429);
    expect(throttled.headers['retry-after']).toBe('7');
    expect((await client.get('/portal/subscriptions')).body).toContain('scenario: throttled=7');

    const bad = await client.submit(scenarioUrl, scenarioUrl, { kind: 'slow', value: '0' });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('the value must be a whole number from 1 to 120000');
    const other = await signedInUser(gateway);
    expect((await other.client.get(scenarioUrl)).statusCode).toBe(404);
    expect(
      (await other.client.submit('/portal/subscriptions', scenarioUrl, { kind: 'none' })).statusCode,
    ).toBe(404);
    expect((await echo(key)).statusCode).toBe(429);

    const cleared = await client.submit(scenarioUrl, scenarioUrl, { kind: 'none' });
    expect(cleared.body).toContain('Cleared: calls meet the register again.');
    expect((await echo(key)).statusCode).toBe(200);
  });

  it("refuses another user's subscription and bad ids with 4xx", async () => {
    const owner = await signedInUser(gateway);
    await owner.client.submit('/portal/products', '/portal/subscriptions', {
      productId: 'sandbox-market-rent',
    });
    const id = /id="subscription-([0-9a-f-]{36})"/.exec(
      (await owner.client.get('/portal/subscriptions')).body,
    )![1]!;
    const { client } = await signedInUser(gateway);
    const attempts: [string, Record<string, string | string[]>][] = [
      [`/portal/subscriptions/${id}/keys`, { slot: 'primary' }],
      ['/portal/subscriptions/not-a-uuid/keys', { slot: 'primary' }],
      [`/portal/subscriptions/${id}/keys`, { slot: 'tertiary' }],
      ['/portal/subscriptions', { productId: 'sandbox-nope' }],
      ['/portal/subscriptions', { productId: ['x'.repeat(9000), 'sandbox-nzbn'] }],
    ];
    for (const [url, form] of attempts) {
      const response = await client.submit('/portal/subscriptions', url, form);
      expect(response.statusCode).toBeGreaterThanOrEqual(400);
      expect(response.statusCode).toBeLessThan(500);
    }
    expect((await client.get(`/portal/subscriptions/${id}/usage`)).statusCode).toBe(404);
  });

  it('production: requested, then an operator approves; the requester is told by mail and gets keys', async () => {
    const { client, email } = await signedInUser(gateway);
    const requested = await client.submit('/portal/products', '/portal/subscriptions', {
      productId: 'production-nzbn',
    });
    expect(requested.statusCode).toBe(201);
    expect(requested.body).toContain('waiting for an operator');
    expect(keyOn(requested.body, 'primary')).toBeUndefined();
    const operator = await signedInUser(gateway, { operator: true });
    const queue = await operator.client.get('/portal/operator/approvals');
    expect(queue.body).toContain(email);
    const id = new RegExp(
      `id="request-([0-9a-f-]{36})"><td[^>]*>[^<]*</td>\\s*<td[^>]*>Person<br><code>${email}`,
    ).exec(queue.body)![1]!;
    const decided = await operator.client.request({
      url: `/portal/operator/approvals/${id}`,
      form: { csrf: csrfOf(queue.body), decision: 'approve', reason: 'Welcome' },
    });
    expect(decided.statusCode).toBe(303);
    const [mail] = await listOutbox(gateway.runtime.gateway.pool, { to: email });
    expect(mail?.subject).toBe('Your subscription to Business number register (production) was approved');
    expect(mail?.text).toContain('Note from the operator: Welcome');
    const mine = await client.get('/portal/subscriptions');
    expect(mine.body).toContain('Get my keys');
    const keys = await client.submit('/portal/subscriptions', `/portal/subscriptions/${id}/keys`, {
      slot: 'both',
    });
    const key = keyOn(keys.body, 'primary')!;
    const call = await gateway.app.inject({
      url: '/gateway/nzbn/v5/echo',
      headers: { 'Ocp-Apim-Subscription-Key': key },
    });
    expect(call.statusCode).toBe(200);
  });

  it('an operator rejects; the requester is told by mail', async () => {
    await updateProduct(gateway.runtime.gateway.pool, 'sandbox-iponz', { approvalRequired: true });
    const { client, email } = await signedInUser(gateway);
    await client.submit('/portal/products', '/portal/subscriptions', { productId: 'sandbox-iponz' });
    const operator = await signedInUser(gateway, { operator: true });
    const queue = await operator.client.get('/portal/operator/approvals');
    const id = new RegExp(
      `id="request-([0-9a-f-]{36})"><td[^>]*>[^<]*</td>\\s*<td[^>]*>Person<br><code>${email}`,
    ).exec(queue.body)![1]!;
    const bad = await operator.client.submit(
      '/portal/operator/approvals',
      `/portal/operator/approvals/${id}`,
      {
        decision: 'maybe',
      },
    );
    expect(bad.statusCode).toBe(400);
    await operator.client.submit('/portal/operator/approvals', `/portal/operator/approvals/${id}`, {
      decision: 'reject',
    });
    const [mail] = await listOutbox(gateway.runtime.gateway.pool, { to: email });
    expect(mail?.subject).toContain('was declined');
    expect((await client.get('/portal/subscriptions')).body).toContain('state-cancelled');
    const outbox = await operator.client.get('/portal/operator/outbox');
    expect(outbox.statusCode).toBe(200);
    expect(outbox.body).toContain(email);
    expect(outbox.body).toContain('kept in the outbox');
  });
});

describe('who may open what', () => {
  it('sends anonymous visitors to sign in, and refuses operator pages to subscribers', async () => {
    const anonymous = new PortalClient(gateway.app);
    for (const url of [
      '/portal/subscriptions',
      '/portal/clients',
      '/portal/try',
      '/portal/operator/outbox',
    ]) {
      const response = await anonymous.get(url);
      expect(response.statusCode).toBe(303);
      expect(response.headers.location).toBe(`/portal/signin?next=${encodeURIComponent(url)}`);
    }
    const { client } = await signedInUser(gateway);
    for (const url of ['/portal/operator/approvals', '/portal/operator/outbox']) {
      const response = await client.get(url);
      expect(response.statusCode).toBe(403);
      expect(response.body).toContain('Only operators');
    }
    const token = csrfOf((await client.get('/portal/subscriptions')).body);
    const post = await client.request({
      url: '/portal/operator/approvals/00000000-0000-0000-0000-000000000000',
      form: { csrf: token, decision: 'approve' },
    });
    expect(post.statusCode).toBe(403);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestGateway, testGateway } from '../support/runtime.ts';
import { csrfOf, PortalClient, signedInUser } from './support/api.ts';

/** The offers register's x-organisation in the landing page's quick starts, the reference and Try it. */
let gateway: TestGateway;
beforeAll(async () => {
  gateway = await testGateway();
});
afterAll(() => gateway?.close());

const card = (body: string, id: string) => {
  const start = body.indexOf(`id="register-${id}"`);
  return body.slice(start, body.indexOf('</article>', start));
};
const unescaped = (text: string) => text.replaceAll('&#34;', '"').replaceAll('&#39;', "'");
const keyOn = (body: string) => /id="key-primary"[^>]*>([^<]+)</.exec(body)?.[1];

describe('x-organisation in the quick starts', () => {
  it('tells a signed-out reader what value to use and where to get it', async () => {
    const landing = await new PortalClient(gateway.app).get('/portal');
    const offers = unescaped(card(landing.body, 'disclose'));
    expect(offers).toContain('-H "x-organisation: $RSG_ORGANISATION"');
    expect(offers).toContain('organisation: process.env.RSG_ORGANISATION!');
    expect(offers).toContain('the identifier of a sandbox');
    expect(offers).toContain('href="/portal/signup"');
    expect(offers).toContain('organisation-required');
    // The other registers need no organisation.
    expect(card(landing.body, 'nzbn')).not.toContain('x-organisation');
  });

  it('offers a signed-in user without one to make it in place, then fills it in; the call works as written', async () => {
    const { client, user } = await signedInUser(gateway);
    const before = await client.get('/portal');
    const offers = card(before.body, 'disclose');
    expect(offers).toContain('action="/portal/sandbox/personal-organisation"');
    expect(offers).toContain('Create my sandbox organisation');
    const made = await client.request({
      url: '/portal/sandbox/personal-organisation',
      form: { csrf: csrfOf(before.body), next: '/portal' },
    });
    expect(made.statusCode).toBe(303);
    expect(made.headers.location).toBe('/portal');
    const after = await client.get('/portal');
    const identifier = /<code class="organisation">([^<]+)<\/code>/.exec(card(after.body, 'disclose'))?.[1];
    expect(identifier).toMatch(/^sandbox-[0-9a-f]{12}$/);
    const curl = unescaped(/<pre tabindex="0">(curl [^<]+)<\/pre>/.exec(card(after.body, 'disclose'))![1]!);
    expect(curl).toContain(`-H "x-organisation: ${identifier}"`);
    expect(unescaped(card(after.body, 'disclose'))).toContain(`organisation: '${identifier}'`);
    expect(card(after.body, 'disclose')).not.toContain('Create my sandbox organisation');

    // The quick start as written, with a sandbox key of the user's.
    const key = keyOn(
      (await client.submit('/portal/products', '/portal/subscriptions', { productId: 'sandbox-disclose' }))
        .body,
    )!;
    const url = new URL(/"(https?:\/\/[^"]+)"$/.exec(curl)![1]!);
    const call = (headers: Record<string, string>) =>
      gateway.app.inject({ method: 'GET', url: url.pathname + url.search, headers });
    const withOrganisation = await call({ 'ocp-apim-subscription-key': key, 'x-organisation': identifier! });
    // The test gateway's sandbox is not seeded: the register answers (404 for the fixture), not 400.
    expect([200, 404], withOrganisation.body.slice(0, 300)).toContain(withOrganisation.statusCode);
    expect(withOrganisation.body).not.toContain('organisation-required');
    const without = await call({ 'ocp-apim-subscription-key': key });
    expect(without.statusCode).toBe(400);
    expect(without.body).toContain('organisation-required');

    // The reference's try-it sends it (reference.js reads data-organisation), and Try it fills the first row.
    const product = await client.get('/portal/products/sandbox-disclose');
    expect(product.body).toContain(`data-organisation="${identifier}"`);
    expect((await client.get('/portal/products/sandbox-nzbn')).body).not.toContain('data-organisation');
    const tryPage = await client.get('/portal/try?service=disclose');
    expect(tryPage.body).toMatch(/id="header-name-1"[^>]*value="x-organisation"/);
    expect(tryPage.body).toMatch(new RegExp(`id="header-value-1"[^>]*value="${identifier}"`));
    expect(user.id).toBeDefined();
  });

  it('making the organisation twice keeps one, and next stays in the portal', async () => {
    const { client } = await signedInUser(gateway);
    for (const next of ['//evil.example/', '/portal/products/sandbox-disclose']) {
      const page = await client.get('/portal');
      const made = await client.request({
        url: '/portal/sandbox/personal-organisation',
        form: { csrf: csrfOf(page.body), next },
      });
      expect(made.statusCode).toBe(303);
      expect(made.headers.location).toBe(next.startsWith('//') ? '/portal/sandbox' : next);
    }
    const sandbox = await client.get('/portal/sandbox');
    expect(sandbox.body.match(/<li><code>sandbox-[0-9a-f]{12}<\/code>/g)).toHaveLength(1);
    const anonymous = await new PortalClient(gateway.app).get('/portal/signin');
    const refused = await new PortalClient(gateway.app).request({
      url: '/portal/sandbox/personal-organisation',
      form: { csrf: csrfOf(anonymous.body), next: '/portal' },
    });
    expect(refused.statusCode).not.toBe(303);
  });
});

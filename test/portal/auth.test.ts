import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { safeNext } from '../../src/portal/domain/next.ts';
import { type TestGateway, testGateway } from '../support/runtime.ts';
import { csrfOf, PortalClient, signedInUser, uniqueEmail } from './support/api.ts';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await testGateway();
});
afterAll(() => gateway?.close());

describe('sign up, sign in, sign out', () => {
  it('signs up with a hashed password and an HttpOnly, SameSite=Lax session cookie', async () => {
    const client = new PortalClient(gateway.app);
    const email = uniqueEmail();
    const response = await client.signUp(email, 'correct horse battery', 'Ada');
    expect(response.headers.location).toBe('/portal/subscriptions');
    const cookie = String(response.headers['set-cookie']);
    expect(cookie).toMatch(/^rsg_portal=[A-Za-z0-9_-]{43};/);
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Lax');
    expect(cookie).not.toContain('Secure');
    const account = await client.get('/portal/account');
    expect(account.statusCode).toBe(200);
    expect(account.body).toContain(email);
    const stored = await gateway.runtime.gateway.pool.query(
      'SELECT password_hash FROM users WHERE lower(email) = $1',
      [email],
    );
    expect(stored.rows[0].password_hash).toMatch(/^scrypt\$/);
    const sessions = await gateway.runtime.gateway.pool.query('SELECT id_hash FROM portal_sessions');
    const plain = client.cookies.get('rsg_portal')!;
    expect(sessions.rows.map((r) => r.id_hash.toString('base64url'))).not.toContain(plain);
  });

  it('refuses a second account with the same email and bad input, with 4xx pages', async () => {
    const client = new PortalClient(gateway.app);
    const email = uniqueEmail();
    await client.signUp(email);
    const other = new PortalClient(gateway.app);
    const again = await other.submit('/portal/signup', '/portal/signup', {
      email: email.toUpperCase(),
      name: 'X',
      password: 'another long password',
    });
    expect(again.statusCode).toBe(409);
    expect(again.body).toContain('exists already');
    const cases = [
      { email: 'not-an-email', name: 'X', password: 'long enough password' },
      { email: uniqueEmail(), name: '', password: 'long enough password' },
      { email: uniqueEmail(), name: 'X', password: 'short' },
      { email: ['a@b.c', 'd@e.f'], name: ['x'], password: ['p'.repeat(5000)] },
    ];
    for (const form of cases) {
      const response = await other.submit('/portal/signup', '/portal/signup', form);
      expect(response.statusCode).toBe(400);
      expect(response.headers['content-type']).toContain('text/html');
    }
  });

  it('renews the session at sign-in: a new id, and the old one is dead', async () => {
    const { email, password } = await signedInUser(gateway);
    const client = new PortalClient(gateway.app);
    const form = await client.get('/portal/signin');
    const anonymous = client.cookies.get('rsg_portal')!;
    expect(anonymous).toBeTruthy();
    const response = await client.request({
      url: '/portal/signin',
      form: { csrf: csrfOf(form.body), email, password },
    });
    expect(response.statusCode).toBe(303);
    const signedIn = client.cookies.get('rsg_portal')!;
    expect(signedIn).not.toBe(anonymous);
    expect((await client.get('/portal/subscriptions')).statusCode).toBe(200);
    const planted = await gateway.app.inject({
      url: '/portal/subscriptions',
      headers: { cookie: `rsg_portal=${anonymous}` },
    });
    expect(planted.statusCode).toBe(303);
    expect(planted.headers.location).toBe('/portal/signin?next=%2Fportal%2Fsubscriptions');
  });

  it('signs out: the session ends on the server too', async () => {
    const { client } = await signedInUser(gateway);
    const cookie = client.cookieHeader;
    const page = await client.get('/portal/subscriptions');
    const out = await client.request({ url: '/portal/signout', form: { csrf: csrfOf(page.body) } });
    expect(out.statusCode).toBe(303);
    const replay = await gateway.app.inject({ url: '/portal/subscriptions', headers: { cookie } });
    expect(replay.statusCode).toBe(303);
  });

  it('refuses a wrong password with 401, then throttles with 429 and Retry-After', async () => {
    const { email } = await signedInUser(gateway);
    const client = new PortalClient(gateway.app);
    const first = await client.signIn(email, 'wrong password!');
    expect(first.statusCode).toBe(401);
    expect(first.body).toContain('The email or password is wrong.');
    let last = first;
    for (let i = 0; i < 10; i++) last = await client.signIn(email, 'wrong password!');
    expect(last.statusCode).toBe(429);
    expect(Number(last.headers['retry-after'])).toBeGreaterThan(0);
    expect(last.body).toContain('Too many attempts');
  });

  it('lets a user set a new password (the current one is required)', async () => {
    const { client, email, password } = await signedInUser(gateway);
    const wrong = await client.submit('/portal/account', '/portal/account/password', {
      current: 'not my password',
      password: 'a brand new password',
    });
    expect(wrong.statusCode).toBe(401);
    const ok = await client.submit('/portal/account', '/portal/account/password', {
      current: password,
      password: 'a brand new password',
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.body).toContain('Your password was saved.');
    const fresh = new PortalClient(gateway.app);
    expect((await fresh.signIn(email, password)).statusCode).toBe(401);
    expect((await fresh.signIn(email, 'a brand new password')).statusCode).toBe(303);
  });
});

// Two fresh gateways (six databases, migrated) and 22 sign-ups: some 6 s on a quiet machine, past the
// default 30 s on a busy one.
describe('sign-up throttle', { timeout: 120_000 }, () => {
  it('refuses the 21st sign-up from one address within an hour, in this gateway only', async () => {
    // With REDIS_URL set both gateways share one Redis: the counters must still be their own.
    const mine = await testGateway();
    const theirs = await testGateway();
    try {
      const client = new PortalClient(mine.app);
      for (let i = 0; i < 20; i++) await new PortalClient(mine.app).signUp(uniqueEmail());
      const refused = await client.submit('/portal/signup', '/portal/signup', {
        email: uniqueEmail(),
        name: 'One Too Many',
        password: 'correct horse battery',
      });
      expect(refused.statusCode).toBe(429);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      await new PortalClient(theirs.app).signUp(uniqueEmail());
    } finally {
      await mine.close();
      await theirs.close();
    }
  });
});

describe('CSRF', () => {
  it('refuses a form without a token, with a token of another session, or without a session', async () => {
    const { client } = await signedInUser(gateway);
    const other = await signedInUser(gateway);
    const otherToken = csrfOf((await other.client.get('/portal/subscriptions')).body);
    const forms: Record<string, string | string[]>[] = [
      {},
      { csrf: '' },
      { csrf: otherToken },
      { csrf: ['a', 'b'] },
    ];
    for (const form of forms) {
      const response = await client.request({
        url: '/portal/subscriptions',
        form: { productId: 'sandbox-nzbn', ...form },
      });
      expect(response.statusCode).toBe(403);
      expect(response.body).toContain('This form has expired');
    }
    const anonymous = await gateway.app.inject({
      method: 'POST',
      url: '/portal/signin',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'email=a@b.c&password=x&csrf=abc',
    });
    expect(anonymous.statusCode).toBe(403);
    const mine = (await client.get('/portal/subscriptions')).body;
    const ok = await client.request({
      url: '/portal/subscriptions',
      form: { productId: 'sandbox-nzbn', csrf: csrfOf(mine) },
    });
    expect(ok.statusCode).toBe(201);
  });
});

describe('no open redirects', () => {
  it.each([
    ['https://evil.example/', ''],
    ['//evil.example/x', ''],
    ['/\\evil.example', ''],
    ['javascript:alert(1)', ''],
    ['/portal/%0d%0aSet-Cookie:x', '/portal/%0d%0aSet-Cookie:x'],
    ['/portal/clients?tab=1', '/portal/clients?tab=1'],
    ['/portal', '/portal'],
    ['/portal/a/../clients', '/portal/clients'],
    // Same origin, but not a portal page.
    ['/portal/../oauth2/auth', ''],
    ['/oauth2/auth', ''],
    ['/portalx', ''],
    [' /portal', ''],
    // Targets that become protocol-relative (another host) only once normalised.
    ['/.//evil.example', ''],
    ['/..//evil.example', ''],
    ['/%2e%2e//evil.example', ''],
    ['/%2E//evil.example', ''],
    ['/x/..//evil.example/path', ''],
    ['/portal/..//evil.example', ''],
    ['/portal/%2e%2e/%2e%2e//evil.example', ''],
  ])('safeNext(%j) → %j', (next, expected) => {
    expect(safeNext(next, '')).toBe(expected);
  });

  it('after sign-in, follows a same-site next and ignores an off-site one', async () => {
    const { email, password } = await signedInUser(gateway);
    const offsite = await new PortalClient(gateway.app).signIn(email, password, 'https://evil.example/');
    expect(offsite.headers.location).toBe('/portal/subscriptions');
    const protocolRelative = await new PortalClient(gateway.app).signIn(email, password, '//evil.example');
    expect(protocolRelative.headers.location).toBe('/portal/subscriptions');
    const local = await new PortalClient(gateway.app).signIn(email, password, '/portal/clients');
    expect(local.headers.location).toBe('/portal/clients');
    const form = await new PortalClient(gateway.app).get('/portal/signin?next=https://evil.example');
    expect(form.body).not.toContain('evil.example');
  });

  it.each(['/.//evil.example', '/..//evil.example', '/%2e%2e//evil.example', '/x/..//evil.example/path'])(
    'sign-in and sign-up with next=%s stay on this site, by GET and by POST',
    async (next) => {
      const { email, password } = await signedInUser(gateway);
      const signedIn = new PortalClient(gateway.app);
      const posted = await signedIn.signIn(email, password, next);
      expect(posted.statusCode).toBe(303);
      expect(posted.headers.location).toBe('/portal/subscriptions');
      // Already signed in: the GET forms redirect at once, to the fallback.
      for (const page of ['/portal/signin', '/portal/signup']) {
        const got = await signedIn.get(`${page}?next=${encodeURIComponent(next)}`);
        expect(got.statusCode).toBe(303);
        expect(got.headers.location).toBe('/portal');
      }
      const anonymous = await new PortalClient(gateway.app).get(
        `/portal/signin?next=${encodeURIComponent(next)}`,
      );
      expect(anonymous.body).not.toContain('evil.example');
    },
  );
});

describe('secure cookies', () => {
  it('marks the cookie Secure and __Host- when the public address is https', async () => {
    const secure = await testGateway({ env: { RSG_PUBLIC_URL: 'https://portal.example' } });
    try {
      const response = await secure.app.inject({ url: '/portal/signin' });
      const cookie = String(response.headers['set-cookie']);
      expect(cookie).toMatch(/^__Host-rsg_portal=/);
      expect(cookie).toContain('Secure');
      expect(cookie).toContain('Path=/');
    } finally {
      await secure.close();
    }
  });
});

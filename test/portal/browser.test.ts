import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateProduct } from '../../src/gateway/store/products.ts';
import { grantAuthority } from '../../src/identity/operations/authorities.ts';
import { addUser, setPassword } from '../../src/identity/operations/users.ts';
import { findUserByEmail } from '../../src/identity/store/users.ts';
import { servicesWithEcho } from '../support/echo-service.ts';
import { type TestGateway, testGateway } from '../support/runtime.ts';
import { uniqueEmail } from './support/api.ts';
import {
  CHROMIUM,
  callbackServer,
  claimsOf,
  expectLabelledControls,
  freePort,
  hasChromium,
  launchChromium,
  pkce,
  screenshot,
} from './support/browser.ts';

type Browser = Awaited<ReturnType<typeof launchChromium>>;
type Page = Awaited<ReturnType<Browser['newPage']>>;

const SANDBOX_SCOPE = 'https://api.business.govt.nz/sandbox/.default';
const USER_PASSWORD = 'a walk in the sandbox';
const OPERATOR_PASSWORD = 'operators approve things';

if (!hasChromium) {
  console.warn(`portal browser tests skipped: ${CHROMIUM} is absent (apt-get install -y chromium)`);
}

describe.skipIf(!hasChromium)('the portal in Chromium', { timeout: 120_000 }, () => {
  let gateway: TestGateway;
  let browser: Browser;
  let base: string;
  let user: Page;
  let operator: Page;
  const email = uniqueEmail();
  const operatorEmail = uniqueEmail();
  let key = '';

  beforeAll(async () => {
    // The issuer must be the address the browser uses, so the port is chosen before the app is built.
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    gateway = await testGateway({
      env: { PORT: String(port), RSG_PUBLIC_URL: base },
      app: { services: servicesWithEcho(['nzbn']) },
    });
    await gateway.app.listen({ port, host: '127.0.0.1' });
    const pool = gateway.runtime.gateway.pool;
    // The sandbox is open by default; requiring approval here makes the approval path testable.
    await updateProduct(pool, 'sandbox-nzbn', { approvalRequired: true });
    const admin = await addUser(pool, { email: operatorEmail, name: 'Olive Operator', isOperator: true });
    await setPassword(pool, admin.id, OPERATOR_PASSWORD);
    browser = await launchChromium();
    user = await (await browser.newContext()).newPage();
    operator = await (await browser.newContext()).newPage();
  });

  afterAll(async () => {
    spa?.callback.server.close();
    await browser?.close();
    await gateway?.close();
  });

  const echo = (subscriptionKey: string, token?: string) =>
    fetch(`${base}/sandbox/nzbn/v5/echo`, {
      headers: {
        'Ocp-Apim-Subscription-Key': subscriptionKey,
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
    });

  it('sign up → request a sandbox subscription → operator approves → copy the key → a sandbox call works', async () => {
    await user.goto(`${base}/portal`);
    await screenshot(user, 'home');
    await user.getByRole('navigation', { name: 'Portal' }).getByRole('link', { name: 'Sign up' }).click();
    await expectLabelledControls(user);
    await user.getByLabel('Email').fill(email);
    await user.getByLabel('Name').fill('Sam Subscriber');
    await user.getByLabel('Password').fill(USER_PASSWORD);
    await screenshot(user, 'sign-up');
    await user.getByRole('button', { name: 'Create account' }).click();
    // Sign-up and sign-in land on the same page.
    await user.waitForURL(`${base}/portal/subscriptions`);
    await user.getByRole('navigation', { name: 'Portal' }).getByRole('link', { name: 'Products' }).click();
    await screenshot(user, 'products');
    await user.getByRole('link', { name: 'Business number register (sandbox)' }).click();
    // The product page's API reference: one visible heading, named so.
    const reference = user.getByRole('heading', { name: 'API reference' });
    await reference.waitFor({ state: 'visible' });
    expect(await reference.count()).toBe(1);
    expect(await reference.textContent()).toMatch(/^API reference/);
    await screenshot(user, 'product-reference');
    await user
      .getByRole('button', { name: 'Request subscription to Business number register (sandbox)' })
      .click();
    await user.getByText('is waiting for an operator').waitFor();

    await operator.goto(`${base}/portal/signin`);
    await operator.getByLabel('Email').fill(operatorEmail);
    await operator.getByLabel('Password').fill(OPERATOR_PASSWORD);
    await operator.getByRole('button', { name: 'Sign in' }).click();
    await operator
      .getByRole('navigation', { name: 'Portal' })
      .getByRole('link', { name: 'Approvals' })
      .click();
    await expectLabelledControls(operator);
    await screenshot(operator, 'approvals');
    await operator
      .getByRole('button', { name: `Approve ${email} for Business number register (sandbox)` })
      .click();
    await operator.getByText('The request was approved').waitFor();
    await operator.getByRole('navigation', { name: 'Portal' }).getByRole('link', { name: 'Outbox' }).click();
    await operator
      .getByText(`Your subscription to Business number register (sandbox) was approved`)
      .first()
      .waitFor();
    await screenshot(operator, 'outbox');

    await user
      .getByRole('navigation', { name: 'Portal' })
      .getByRole('link', { name: 'My subscriptions' })
      .click();
    await user.getByRole('button', { name: 'Get my keys' }).click();
    key = (await user.locator('#key-primary').textContent())?.trim() ?? '';
    expect(key).toMatch(/^[0-9a-f]{32}$|^[A-Za-z0-9_-]{20,}$/);
    await screenshot(user, 'keys-shown-once');
    expect((await echo(key)).status).toBe(200);
    await user
      .getByRole('navigation', { name: 'Portal' })
      .getByRole('link', { name: 'My subscriptions' })
      .click();
    expect(await user.content()).not.toContain(key);
    await screenshot(user, 'subscriptions');

    await user.getByRole('navigation', { name: 'Portal' }).getByRole('link', { name: 'Try it' }).click();
    await expectLabelledControls(user);
    await user.getByLabel('Path after the API').fill('/echo');
    await user.getByLabel('Your sandbox subscription key').fill(key);
    await user.getByRole('button', { name: 'Send' }).click();
    expect(await user.locator('#try-status').textContent()).toBe('200');
    await screenshot(user, 'try-it');

    await user.goto(`${base}/portal/subscriptions`);
    await user.getByRole('link', { name: 'Usage' }).click();
    await user.locator('svg.chart').waitFor();
    expect(await user.locator('table caption').first().textContent()).toBe('Calls per day (UTC)');
    await screenshot(user, 'usage');
  });

  it('regenerate the primary key → asked first → the old key is refused', async () => {
    await user.goto(`${base}/portal/subscriptions`);
    await user.getByRole('link', { name: 'Regenerate primary key of sandbox-nzbn' }).click();
    // The confirmation page says the old key stops at once; cancelling keeps it.
    await user.getByText('The old primary key stops working at once').waitFor();
    await screenshot(user, 'regenerate-confirm');
    await user.getByRole('link', { name: 'Cancel: keep the old key' }).click();
    expect((await echo(key)).status).toBe(200);
    await user.getByRole('link', { name: 'Regenerate primary key of sandbox-nzbn' }).click();
    await user.getByRole('button', { name: 'Regenerate the primary key now' }).click();
    const fresh = (await user.locator('#key-primary').textContent())?.trim() ?? '';
    expect(fresh).not.toBe(key);
    expect((await echo(key)).status).toBe(401);
    expect((await echo(fresh)).status).toBe(200);
    key = fresh;
  });

  it('register a client → client-credentials token → a call with the bearer token works', async () => {
    await user.goto(`${base}/portal/clients`);
    await expectLabelledControls(user);
    await user.getByLabel('Name').fill('Nightly batch');
    await user.getByRole('button', { name: 'Register client' }).click();
    const clientId = (await user.locator('#client-id').textContent())?.trim() ?? '';
    const secret = (await user.locator('#client-secret').textContent())?.trim() ?? '';
    await screenshot(user, 'client-registered');
    const token = await fetch(`${base}/oauth2/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`,
      },
      body: new URLSearchParams({ grant_type: 'client_credentials', scope: SANDBOX_SCOPE }),
    });
    expect(token.status).toBe(200);
    const accessToken = ((await token.json()) as { access_token: string }).access_token;
    const call = await echo(key, accessToken);
    expect(call.status).toBe(200);
    expect(((await call.json()) as { caller: { token: { clientId: string } } }).caller.token.clientId).toBe(
      clientId,
    );
  });

  let spa: { clientId: string; callback: Awaited<ReturnType<typeof callbackServer>> } | undefined;

  /** Authorization code + PKCE in a fresh browser context: sign in, allow, and return the code. */
  async function consent(options: { timeout: number; shots?: boolean }) {
    const { clientId, callback } = spa!;
    const { verifier, challenge } = pkce();
    const authorize = new URL(`${base}/oauth2/auth`);
    for (const [name, value] of Object.entries({
      client_id: clientId,
      response_type: 'code',
      redirect_uri: callback.url,
      scope: `openid ${SANDBOX_SCOPE}`,
      state: 'state-123',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    })) {
      authorize.searchParams.set(name, value);
    }
    const context = await browser.newContext();
    try {
      const login = await context.newPage();
      await login.goto(authorize.href);
      await login.getByLabel('Email').fill(email);
      await login.getByLabel('Password').fill(USER_PASSWORD);
      if (options.shots) await screenshot(login, 'oauth-sign-in');
      await login.getByRole('button', { name: 'Sign in' }).click();
      await login.getByRole('button', { name: 'Allow' }).waitFor();
      if (options.shots) await screenshot(login, 'oauth-consent');
      await login.getByRole('button', { name: 'Allow' }).click();
      await login.waitForURL((url) => url.href.startsWith(callback.url), { timeout: options.timeout });
      const answer = callback.received.at(-1)!;
      expect(answer.get('state')).toBe('state-123');
      return { code: answer.get('code')!, verifier };
    } finally {
      await context.close();
    }
  }

  it('three-legged: sign in through the consent page → a token that carries the user’s authority', async () => {
    const pool = gateway.runtime.gateway.pool;
    const account = (await findUserByEmail(pool, email))!;
    const entity = { environment: 'sandbox', service: 'nzbn', kind: 'entity', id: '9429041234567' } as const;
    await grantAuthority(pool, entity, { userId: account.id });
    const callback = await callbackServer();
    await user.goto(`${base}/portal/clients`);
    await user.getByLabel('Name').fill('Single-page app');
    await user.getByLabel('Client credentials', { exact: false }).uncheck();
    await user.getByLabel('Authorization code with PKCE', { exact: false }).check();
    await user.getByLabel('Public: a browser or mobile app', { exact: false }).check();
    await user.getByLabel('Redirect URIs, one per line').fill(callback.url);
    await user.getByRole('button', { name: 'Register client' }).click();
    const clientId = (await user.locator('#client-id').textContent())?.trim() ?? '';
    expect(clientId).toMatch(/^sbx_/);
    await screenshot(user, 'clients');
    spa = { clientId, callback };

    // The pages' own content security policy stays on: its form-action names the client's redirect origin.
    const { code, verifier } = await consent({ timeout: 30_000, shots: true });
    const token = await fetch(`${base}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        redirect_uri: callback.url,
        client_id: clientId,
        code_verifier: verifier,
      }),
    });
    const body = (await token.json()) as { access_token: string };
    expect(token.status).toBe(200);
    const claims = claimsOf(body.access_token);
    expect(claims.sub).toBe(account.id);
    expect(claims.aud).toBe('https://api.business.govt.nz/sandbox');
    expect(claims.authorities).toContain('nzbn:entity:9429041234567');
    expect((await echo(key, body.access_token)).status).toBe(200);
  });

  it('is readable on a phone and usable with the keyboard', async () => {
    const phone = await (await browser.newContext({ viewport: { width: 390, height: 844 } })).newPage();
    await phone.goto(`${base}/portal/products`);
    const overflow = await phone.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
    expect(overflow).toBeLessThanOrEqual(0);
    await screenshot(phone, 'products-phone');
    await phone.keyboard.press('Tab');
    expect(await phone.evaluate<string | undefined>('document.activeElement?.textContent')).toBe(
      'Skip to content',
    );
    await phone.goto(`${base}/portal/signin`);
    await phone.locator('#email').focus();
    await phone.keyboard.type(email);
    await phone.keyboard.press('Tab');
    await phone.keyboard.type(USER_PASSWORD);
    await phone.keyboard.press('Enter');
    await phone.waitForURL(`${base}/portal/subscriptions`);
    await screenshot(phone, 'subscriptions-phone');
  });
});

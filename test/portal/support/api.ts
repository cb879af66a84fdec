import { randomBytes } from 'node:crypto';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { addUser, setPassword } from '../../../src/identity/operations/users.ts';
import type { TestGateway } from '../../support/runtime.ts';

/** A cookie-keeping client for the portal over app.inject, with form helpers. */
export class PortalClient {
  readonly cookies = new Map<string, string>();

  constructor(private readonly app: FastifyInstance) {}

  get cookieHeader(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  async request(options: {
    method?: 'GET' | 'POST';
    url: string;
    form?: Record<string, string | string[]>;
    headers?: Record<string, string>;
  }): Promise<LightMyRequestResponse> {
    const body = options.form ? new URLSearchParams() : undefined;
    for (const [name, value] of Object.entries(options.form ?? {})) {
      for (const item of Array.isArray(value) ? value : [value]) body!.append(name, item);
    }
    const response = await this.app.inject({
      method: options.method ?? (body ? 'POST' : 'GET'),
      url: options.url,
      headers: {
        ...(this.cookies.size ? { cookie: this.cookieHeader } : {}),
        ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        ...options.headers,
      },
      ...(body ? { payload: body.toString() } : {}),
    });
    for (const cookie of response.cookies as { name: string; value: string; expires?: Date }[]) {
      if (!cookie.value || (cookie.expires && cookie.expires.getTime() < Date.now()))
        this.cookies.delete(cookie.name);
      else this.cookies.set(cookie.name, cookie.value);
    }
    return response;
  }

  get(url: string) {
    return this.request({ url });
  }

  /** GETs `pageUrl`, then posts `form` with the page's CSRF token to `action`. */
  async submit(pageUrl: string, action: string, form: Record<string, string | string[]>) {
    const page = await this.get(pageUrl);
    return this.request({ url: action, form: { csrf: csrfOf(page.body), ...form } });
  }

  async signUp(email: string, password = 'correct horse battery', name = 'Test Person') {
    const response = await this.submit('/portal/signup', '/portal/signup', { email, name, password });
    expect(response.statusCode).toBe(303);
    return response;
  }

  async signIn(email: string, password: string, next?: string) {
    return this.submit('/portal/signin', '/portal/signin', { email, password, ...(next ? { next } : {}) });
  }
}

export function csrfOf(body: string): string {
  const match = /name="csrf" value="([^"]+)"/.exec(body);
  if (!match) throw new Error('no CSRF token on the page');
  return match[1]!;
}

/** A user with a password, optionally an operator; returns a signed-in client. */
export async function signedInUser(gateway: TestGateway, options: { operator?: boolean } = {}) {
  const pool = gateway.runtime.gateway.pool;
  const email = `${randomBytes(4).toString('hex')}@example.test`;
  const password = 'a long enough password';
  const user = await addUser(pool, { email, name: 'Person', isOperator: options.operator ?? false });
  await setPassword(pool, user.id, password);
  const client = new PortalClient(gateway.app);
  const response = await client.signIn(email, password);
  expect(response.statusCode).toBe(303);
  return { user, email, password, client };
}

export const uniqueEmail = () => `${randomBytes(5).toString('hex')}@example.test`;

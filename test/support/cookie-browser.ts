import type { LightMyRequestResponse } from 'fastify';
import type { TestGateway } from './runtime.ts';

/** A browser in miniature for inject-driven sign-in flows: remembers cookies, follows nothing by itself. */
export class CookieBrowser {
  private readonly jar = new Map<string, string>();
  constructor(private readonly gateway: TestGateway) {}

  private remember(response: LightMyRequestResponse) {
    for (const cookie of response.cookies as { name: string; value: string }[]) {
      if (cookie.value === '') this.jar.delete(cookie.name);
      else this.jar.set(cookie.name, cookie.value);
    }
    return response;
  }

  private cookie() {
    return [...this.jar].map(([n, v]) => `${n}=${v}`).join('; ');
  }

  async get(url: string) {
    return this.remember(await this.gateway.app.inject({ url, headers: { cookie: this.cookie() } }));
  }

  async post(url: string, form: Record<string, string>) {
    return this.remember(
      await this.gateway.app.inject({
        method: 'POST',
        url,
        headers: { cookie: this.cookie(), 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams(form).toString(),
      }),
    );
  }
}

/** The path of a redirect, without scheme and host. */
export const location = (response: LightMyRequestResponse) =>
  String(response.headers.location ?? '').replace(/^https?:\/\/[^/]+/, '');

/** The CSRF token of the first form on a page. */
export const csrfOf = (body: string) => /name="csrf" value="([^"]+)"/.exec(body)![1]!;

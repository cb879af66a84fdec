import { expect } from 'vitest';
import { OpenApi } from '../../../support/openapi.ts';
import { BASE, type DiscloseGateway } from './api.ts';

/** A link of an answer (`rel`, `href` from the gateway root, `count` for a list). */
export type Link = { rel: string; href: string; count?: number };

export const linkOf = (body: { links: Link[] }, rel: string): Link | undefined =>
  body.links.find((l) => l.rel === rel);

/**
 * Calls of the register from outside, at the published address, each answer checked against the
 * operation's published schema; a URL is a path under the register (`/offer/OFR10001`) or a link's
 * `href` from the gateway root.
 */
export async function outside(d: DiscloseGateway) {
  const api = await OpenApi.fetch(d.gateway.app, BASE);
  const local = (url: string) => (url.startsWith(BASE) ? url.slice(BASE.length) : url);
  const call = async (method: string, url: string, options: Parameters<DiscloseGateway['call']>[2] = {}) => {
    const response = await d.call(method, local(url), options);
    api.conformsUrl(method, `${BASE}${local(url)}`, response);
    return response;
  };
  const get = (url: string) => call('GET', url);
  return {
    call,
    get,
    /** Every item of a paginated list, following its `next` links. */
    async allItems<T>(href: string): Promise<T[]> {
      const items: T[] = [];
      for (let next: string | undefined = href; next; ) {
        const page = await get(next);
        expect(page.statusCode, page.body).toBe(200);
        items.push(...page.json().items);
        next = linkOf(page.json(), 'next')?.href;
      }
      return items;
    },
  };
}

export type Outside = Awaited<ReturnType<typeof outside>>;

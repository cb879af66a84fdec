import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE, type NzbnTest, nzbnTest } from './support/api.ts';

/**
 * PostgreSQL cannot store U+0000: every such value is a 400 naming the field, in the register's error
 * body, before anything is written, never a 500 from the database.
 */
let t: NzbnTest;
beforeAll(async () => {
  t = await nzbnTest();
});
afterAll(() => t?.close());

const E = FIXTURE.authority;
const fields = (body: { list: { field: string }[] }) => body.list.map((f) => f.field);

describe('the NUL character', () => {
  it('in a query parameter', async () => {
    for (const url of [
      '/entities/organisation-parts?name=a%00b',
      '/watchlists?name=%00',
      `/entities/${E}/organisation-parts?function=x%00`,
    ]) {
      const response = await t.call('GET', url, { token: t.owner.token });
      expect(response.statusCode, url).toBe(400);
      expect(response.json()).toMatchObject({ status: '400', errorCode: 'invalid-parameter' });
      expect(response.json().errorDescription).toContain('U+0000');
    }
    const parts = await t.call('GET', '/entities/organisation-parts?name=a%00b');
    expect(fields(parts.json())).toEqual(['name']);
  });

  it('in a body, nested or not, with nothing written', async () => {
    const before = (await t.call('GET', `/entities/${E}`, { token: t.owner.token })).headers.etag;
    const changes = async () =>
      (
        await t.gateway.runtime.environments.sandbox.pool.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM nzbn_change_events',
        )
      ).rows[0]!.n;
    const eventsBefore = await changes();
    const cases: [string, string, unknown, string][] = [
      ['POST', `/entities/${E}/trading-names`, { name: 'Kiwi\u0000 Traders' }, 'name'],
      ['POST', `/entities/${E}/websites`, { url: 'https://example.com/\u0000' }, 'url'],
      [
        'POST',
        '/watchlists',
        { name: 'Suppliers\u0000', channel: 'EMAIL', changeEventTypes: ['ALL'], nzbns: [FIXTURE.company] },
        'name',
      ],
      ['POST', '/entities', { entityName: 'A\u0000B', entityTypeCode: 'ST' }, 'entityName'],
    ];
    for (const [method, url, payload, field] of cases) {
      const response = await t.call(method as 'POST', url, { token: t.owner.token, payload });
      expect(response.statusCode, `${url} ${response.body}`).toBe(400);
      expect(fields(response.json())).toEqual([field]);
    }
    expect((await t.call('GET', `/entities/${E}`, { token: t.owner.token })).headers.etag).toBe(before);
    expect(await changes()).toBe(eventsBefore);
  });
});

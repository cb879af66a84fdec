import type { QueryResultRow } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE, type NzbnTest, nzbnTest } from './support/api.ts';
import { OpenApi } from './support/openapi.ts';

let t: NzbnTest;
let api: OpenApi;
beforeAll(async () => {
  t = await nzbnTest();
  api = await OpenApi.load(t);
});
afterAll(() => t?.close());

type Item = { nzbn: string; entityName: string; entityStatusCode: string; entityTypeCode: string };
const search = async (query: string) => {
  const response = await t.call('GET', `/entities?${query}`);
  api.conforms('GET', '/entities', response);
  return response;
};
const items = async (query: string): Promise<Item[]> => (await search(query)).json().items;
const sql = <T extends QueryResultRow>(text: string, values: unknown[] = []) =>
  t.gateway.runtime.environments.sandbox.pool.query<T>(text, values).then((r) => r.rows);

describe('search term', () => {
  it('matches the start of words of the name, whatever the case, in name order', async () => {
    const found = await items('search-term=Sandbox%20Test%20Compan');
    expect(found[0]!.nzbn).toBe(FIXTURE.company);
    expect(await items('search-term=SANDBOX%20test%20company')).toEqual(found);
    expect((await items('search-term=andbox%20est')).map((i) => i.nzbn)).not.toContain(FIXTURE.company);
    const names = (await items('search-term=sandbox&page-size=50')).map((i) => i.entityName.toUpperCase());
    expect(names).toEqual([...names].sort());
  });

  it('matches trading names, previous names, the source register number and the business number', async () => {
    const [traded] = await sql<{ nzbn: string; name: string }>(
      'SELECT nzbn, trading_names[1] AS name FROM nzbn_entities WHERE cardinality(trading_names) > 0 ORDER BY nzbn LIMIT 1',
    );
    expect(
      (await items(`search-term=${encodeURIComponent(traded!.name)}&page-size=50`)).map((i) => i.nzbn),
    ).toContain(traded!.nzbn);
    const company = (await t.call('GET', `/entities/${FIXTURE.company}`)).json();
    expect((await items(`search-term=${company.sourceRegisterUniqueIdentifier}`))[0]!.nzbn).toBe(
      FIXTURE.company,
    );
    expect((await items(`search-term=${FIXTURE.company}`)).map((i) => i.nzbn)).toEqual([FIXTURE.company]);
  });

  it('lists no trading names on an item whose entity keeps them private', async () => {
    const [hidden] = await sql<{ nzbn: string }>(
      `SELECT nzbn FROM nzbn_entities WHERE 'tradingNamePrivateInformation' = ANY(private_flags) ORDER BY nzbn LIMIT 1`,
    );
    const [item] = (await items(`search-term=${hidden!.nzbn}`)) as (Item & { tradingNames: unknown[] })[];
    expect(item!.tradingNames).toEqual([]);
  });

  it('refuses a missing or empty term naming the parameter', async () => {
    for (const query of ['', 'search-term=', 'search-term=%20-%20']) {
      const response = await search(query);
      expect(response.statusCode, query).toBe(400);
      expect(response.json().list[0].field).toBe('search-term');
    }
  });
});

describe('filters', () => {
  it('entity-status takes names, repeated or comma-joined, and codes; unknown names are 400', async () => {
    const liquidation = await items('search-term=sandbox%20status&entity-status=InLiquidation&page-size=50');
    expect(liquidation.map((i) => i.entityStatusCode).sort()).toEqual(['60', '61', '62', '63', '64', '65']);
    const joined = await items(
      'search-term=sandbox%20status&entity-status=Registered,RemovedClosed&page-size=50',
    );
    const repeated = await items(
      'search-term=sandbox%20status&entity-status=Registered&entity-status=removedclosed&page-size=50',
    );
    expect(joined.map((i) => i.entityStatusCode).sort()).toEqual(['50', '80', '91']);
    expect(repeated).toEqual(joined);
    const bad = await search('search-term=sandbox&entity-status=Sleeping');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().list).toEqual([
      { field: 'entity-status', message: 'unknown entity status "Sleeping"' },
    ]);
  });

  it('entity-type takes grouped names and codes; unknown types are 400', async () => {
    const companies = await items('search-term=sandbox%20test&entity-type=NZCompany&page-size=50');
    expect(new Set(companies.map((i) => i.entityTypeCode))).toEqual(new Set(['LTD', 'ULTD', 'COOP']));
    const traders = await items('search-term=sandbox&entity-type=SoleTrader,Trust&page-size=50');
    expect(new Set(traders.map((i) => i.entityTypeCode))).toEqual(new Set(['Sole_Trader', 'Trading_Trust']));
    expect((await search('search-term=sandbox&entity-type=Bank')).statusCode).toBe(400);
  });

  it('industry-code keeps entities with that classification; a malformed code is 400', async () => {
    const company = (await t.call('GET', `/entities/${FIXTURE.company}`)).json();
    const code = company.industryClassifications[0].classificationCode;
    const found = await items(`search-term=sandbox&industry-code=${code}&page-size=50`);
    expect(found.map((i) => i.nzbn)).toContain(FIXTURE.company);
    for (const item of found) {
      const classes = (await t.call('GET', `/entities/${item.nzbn}/industry-classifications`)).json();
      expect(classes.map((c: { classificationCode: string }) => c.classificationCode)).toContain(code);
    }
    expect((await search('search-term=sandbox&industry-code=I49')).statusCode).toBe(400);
  });
});

describe('paging', () => {
  it('pages are 0-based, disjoint and cover the matches; the envelope and links are published', async () => {
    const first = (await search('search-term=sandbox&page-size=7')).json();
    expect(first).toMatchObject({ page: 0, pageSize: 7, sortBy: 'entityName', sortOrder: 'ASC' });
    const total = first.totalItems;
    expect(total).toBe(40);
    const seen: string[] = [];
    for (let page = 0; page * 7 < total; page++) {
      const body = (await search(`search-term=sandbox&page-size=7&page=${page}`)).json();
      seen.push(...body.items.map((i: Item) => i.nzbn));
      const rels = body.links.map((l: { rel: string }) => l.rel);
      expect(rels.includes('next')).toBe((page + 1) * 7 < total);
      expect(rels.includes('prev')).toBe(page > 0);
    }
    expect(new Set(seen).size).toBe(total);
    expect(await items('search-term=sandbox&page-size=7&page=6')).toEqual([]);
  });

  it('defaults to 10 a page; page-size above 50, zero or a negative page are 400', async () => {
    expect((await search('search-term=sandbox')).json().pageSize).toBe(10);
    expect((await items('search-term=sandbox&page-size=50')).length).toBe(40);
    for (const query of ['page-size=51', 'page-size=0', 'page=-1', 'page=x']) {
      const response = await search(`search-term=sandbox&${query}`);
      expect(response.statusCode, query).toBe(400);
      expect(response.json().list[0].field).toBe(query.split('=')[0]);
    }
  });

  it('links never carry a subscription key given in the query', async () => {
    const response = await t.call('GET', `/entities?search-term=sandbox&subscription-key=${t.key}`, {
      key: null,
    });
    expect(response.statusCode).toBe(200);
    expect(response.body).not.toContain(t.key);
  });
});

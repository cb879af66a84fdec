import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXED_CLIENTS } from '../../../src/services/iponz/sandbox/fixtures.ts';
import { type IponzTest, iponzTest } from './support/api.ts';

/**
 * GET /clients against the seeded sandbox: the spec's five rules, each with its edge cases, on the fixed
 * clients (sandbox/fixtures.ts), and GET /clients/{client-id}.
 */
let t: IponzTest;
beforeAll(async () => {
  t = await iponzTest();
}, 120_000);
afterAll(async () => t?.close());

const search = async (query: string) => {
  const response = await t.call('GET', `/clients?${query}`);
  return response;
};
const names = async (query: string) => {
  const response = await search(query);
  expect(response.statusCode, response.body).toBe(200);
  return (response.json().clients as { name: string }[]).map((c) => c.name);
};
const idsOf = async (query: string) => {
  const response = await search(`${query}&page-size=100`);
  expect(response.statusCode, response.body).toBe(200);
  return (response.json().clients as { clientId: string }[]).map((c) => Number(c.clientId));
};
const fixture = (i: number) => FIXED_CLIENTS[i]!.clientId;

describe('rule 1: case-insensitive', () => {
  it('matches whatever the case of the term or the name', async () => {
    for (const term of ['kiwi widgets', 'KIWI WIDGETS', 'KiWi wIdGeTs'])
      expect(await idsOf(`name=${encodeURIComponent(term)}`)).toContain(fixture(0));
    expect(await idsOf('name=M%C4%93re%20T%C5%AB')).not.toContain(fixture(7)); // macrons are letters of their own
    expect(await idsOf('name=MERE%20T%C5%AAHOE')).toContain(fixture(7));
  });
});

describe('rule 2: name required, at least two characters', () => {
  it.each([
    ['', 'name'],
    ['address=Auckland', 'name'],
    ['name=', 'name'],
    ['name=a', 'name'],
    ['name=%25a%25', 'name'],
    ['name=%25%25', 'name'],
    ['name=%20x%20', 'name'],
  ])('%s is refused naming %s', async (query, field) => {
    const response = await search(query);
    expect(response.statusCode).toBe(400);
    expect(response.json().errors[0].field).toBe(field);
  });
  it('two characters are enough', async () => {
    expect(await idsOf('name=xy')).toContain(fixture(4));
    expect(await idsOf('name=XY')).toContain(fixture(4));
  });
});

describe('rule 3: % matches zero or more characters, punctuation and spaces included', () => {
  it('at both ends and inside', async () => {
    expect(await idsOf('name=%25kiwi%25')).toContain(fixture(0));
    expect(await idsOf('name=kiwi%25limited')).toContain(fixture(0));
    expect(await idsOf('name=kiwi%25%25widgets')).toContain(fixture(0));
    expect(await idsOf('name=kiwi%25widgets%25limited%25')).toContain(fixture(0));
  });
  it('across punctuation and spaces', async () => {
    expect(await idsOf(`name=${encodeURIComponent("o'brien%sons")}`)).toContain(fixture(3));
    expect(await idsOf(`name=${encodeURIComponent('obrien%sons')}`)).not.toContain(fixture(3));
    expect(await idsOf(`name=${encodeURIComponent('o%brien & sons (nz)')}`)).toContain(fixture(3));
    expect(await idsOf(`name=${encodeURIComponent('sons%ltd.')}`)).toContain(fixture(3));
  });
  it('_ is literal, not a wildcard', async () => {
    expect(await idsOf(`name=${encodeURIComponent('pure_honey')}`)).toContain(fixture(5));
    expect(await idsOf(`name=${encodeURIComponent('pure_')}`)).toContain(fixture(5));
    expect(await idsOf(`name=${encodeURIComponent('kiwi_widgets')}`)).not.toContain(fixture(0));
  });
});

describe('rule 4: results contain the name term', () => {
  it('every result contains it; a term in no name finds none', async () => {
    for (const name of await names('name=widgets')) expect(name.toLowerCase()).toContain('widgets');
    const none = await search('name=zzqqzzqq');
    expect(none.json()).toMatchObject({ totalResults: 0, clients: [] });
  });
});

describe('rule 5: address narrows, over three lines and the city of every type', () => {
  it.each([
    ['queen street', 0, 'physical line 1'],
    ['level 3', 0, 'physical line 2'],
    ['shortland', 0, 'postal line 2'],
    ['te aro', 0, 'service line 3'],
    ['wellington', 0, 'service city'],
    ['private bag', 1, 'postal line 1 (the only address)'],
    ['hamilton', 1, 'postal city'],
    ['riccarton mews', 2, 'service line 3'],
    ['queen st%auckland', 0, 'from a line to the city'],
  ])('%s finds fixture %i (%s)', async (address, index, _where) => {
    const name = encodeURIComponent(FIXED_CLIENTS[index]!.name.slice(0, 6));
    expect(await idsOf(`name=${name}&address=${encodeURIComponent(address)}`)).toContain(fixture(index));
  });
  it('narrows: a client without the address is left out, one without any address too', async () => {
    expect(await idsOf('name=widgets&address=hamilton')).not.toContain(fixture(0));
    expect(await idsOf('name=nowhere&address=%25a%25')).not.toContain(fixture(6));
    expect(await idsOf('name=nowhere')).toContain(fixture(6));
    expect(await idsOf('name=postal%20only&address=nelson')).toEqual([]);
  });
  it('a term never runs from one address into the next', async () => {
    // Fixture 0's physical address ends "auckland", its postal one begins "po box".
    expect(await idsOf('name=kiwi&address=auckland%25po%20box')).not.toContain(fixture(0));
    expect(await idsOf('name=kiwi&address=po%20box%25auckland')).toContain(fixture(0));
  });
  it('follows changes to the addresses (kept on the client row by triggers, migration 006)', async () => {
    const pool = t.gateway.runtime.environments.sandbox.pool;
    const id = fixture(0);
    await pool.query(
      `UPDATE iponz_client_addresses SET city = 'Invercargill',
      search_text = replace(search_text, 'wellington', 'invercargill') WHERE client_id = $1 AND address_type = 'service'`,
      [id],
    );
    try {
      expect(await idsOf('name=kiwi&address=invercargill')).toContain(id);
      expect(await idsOf('name=kiwi&address=te%20aro%25wellington')).not.toContain(id);
      await pool.query(
        `DELETE FROM iponz_client_addresses WHERE client_id = $1 AND address_type = 'service'`,
        [id],
      );
      expect(await idsOf('name=kiwi&address=invercargill')).not.toContain(id);
    } finally {
      await pool.query(
        `DELETE FROM iponz_client_addresses WHERE client_id = $1 AND address_type = 'service'`,
        [id],
      );
      await pool.query(
        `INSERT INTO iponz_client_addresses (client_id, address_type, line1, line2, line3, city, search_text)
         VALUES ($1, 'service', 'Widget Lawyers', '80 The Terrace', 'Te Aro', 'Wellington',
           'widget lawyers, 80 the terrace, te aro, wellington')`,
        [id],
      );
    }
    expect(await idsOf('name=kiwi&address=te%20aro%25wellington')).toContain(id);
  });
  it('an address of only % and spaces is refused naming address', async () => {
    const response = await search('name=kiwi&address=%25%20%25');
    expect(response.statusCode).toBe(400);
    expect(response.json().errors[0].field).toBe('address');
  });
});

describe('paging and the detail', () => {
  it('pages through every match once, in order', async () => {
    const all = await search('name=li&page-size=100');
    const total = all.json().totalResults as number;
    expect(total).toBeGreaterThan(10);
    const seen: string[] = [];
    for (let page = 1; (page - 1) * 7 < total; page++) {
      const response = await search(`name=li&page=${page}&page-size=7`);
      seen.push(...response.json().clients.map((c: { clientId: string }) => c.clientId));
    }
    expect(new Set(seen).size).toBe(total);
  });
  it('refuses bad paging naming the parameter', async () => {
    for (const [query, field] of [
      ['page=0', 'page'],
      ['page-size=101', 'page-size'],
      ['page-size=x', 'page-size'],
    ]) {
      const response = await search(`name=kiwi&${query}`);
      expect(response.statusCode).toBe(400);
      expect(response.json().errors[0].field).toBe(field);
    }
  });
  it('GET /clients/{client-id}', async () => {
    const response = await t.call('GET', `/clients/${fixture(0)}`);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({
      clientId: String(fixture(0)),
      name: 'Kiwi Widgets Limited',
      addresses: [
        { addressType: 'physical', addressLine1: '12 Queen Street', city: 'Auckland' },
        { addressType: 'postal' },
        { addressType: 'service', addressLine3: 'Te Aro' },
      ],
    });
    expect((await t.call('GET', '/clients/999999999')).statusCode).toBe(404);
    const bad = await t.call('GET', '/clients/01');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0].field).toBe('client-id');
  });
});

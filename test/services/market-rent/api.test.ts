import fc from 'fast-check';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seeded } from '../../../src/platform/random.ts';
import { ITEM_KEYS } from '../../../src/services/market-rent/domain/report.ts';
import { roundHalfAwayFromZero } from '../../../src/services/market-rent/domain/statistics.ts';
import { reserveWorkingMemory } from '../../../src/services/market-rent/engine/report.ts';
import { marketRentGeography } from '../../../src/services/market-rent/store/geography.ts';
import { StatisticsStore } from '../../../src/services/market-rent/store/statistics.ts';
import { subscriber, type TestGateway } from '../../support/runtime.ts';
import { BASE, type Bond, importInto, marketRentGateway, NOW } from './support/api.ts';

/**
 * The HTTP contract of /statistics and the area definitions, against bonds imported into a real
 * PostgreSQL; every statistic is checked against the straightforward SQL (percentile_cont, stddev_samp)
 * over the same bonds.
 */
const KAIKOURA = 308900; // SA2 in Kaikoura District (TA 54), Canterbury Region (13)
const RANGES = 308800; // Kaikoura Ranges, the district's other SA2
const JAN = 'period-ending=2026-01&num-months=1';

let gateway: TestGateway;
let get: Awaited<ReturnType<typeof marketRentGateway>>['get'];
let pool: pg.Pool;

function randomBonds(): Bond[] {
  const random = seeded('market-rent-api-test');
  const bonds: Bond[] = [];
  for (let i = 0; i < 60; i++) {
    const rent = random.chance(0.7) ? random.int(30, 70) * 10 : random.int(280, 720);
    bonds.push({
      id: `K${i}`,
      start: `2026-01-${String(random.int(1, 28)).padStart(2, '0')}`,
      sa2: KAIKOURA,
      dwelling: random.pick(['House', 'House', 'Flat', 'Apartment']),
      bedrooms: random.pick([1, 2, 3, 3, 4]),
      rent,
      bond: random.chance(0.8) ? rent * 4 : random.int(500, 3000),
      closed: random.chance(0.2) ? '2026-01-30' : null,
    });
  }
  // A December tenancy, still open: counts in nCurr at the end of January but is not lodged in it.
  bonds.push({ id: 'D1', start: '2025-12-10', sa2: KAIKOURA, bedrooms: 3, rent: 500 });
  // The suppression boundary: five three-bedroom houses, four two-bedroom flats.
  for (let i = 0; i < 5; i++)
    bonds.push({ id: `R5-${i}`, start: '2026-01-05', sa2: RANGES, bedrooms: 3, rent: 400 + 10 * i });
  for (let i = 0; i < 4; i++) {
    bonds.push({
      id: `R4-${i}`,
      start: '2026-01-06',
      sa2: RANGES,
      dwelling: 'Flat',
      bedrooms: 2,
      rent: 300 + 10 * i,
    });
  }
  return bonds;
}

beforeAll(async () => {
  ({ gateway, get } = await marketRentGateway());
  pool = gateway.runtime.environments.sandbox.pool;
  await importInto(gateway, randomBonds());
});
afterAll(() => gateway?.close());

/** The published figures of the bonds matching `where`, computed by PostgreSQL directly. */
async function sqlFigures(where: string) {
  const { rows } = await pool.query(`
    SELECT count(*)::int AS n, avg(weekly_rent)::float8 AS mean,
      percentile_cont(0.25) WITHIN GROUP (ORDER BY weekly_rent) AS lq,
      percentile_cont(0.5) WITHIN GROUP (ORDER BY weekly_rent) AS med,
      percentile_cont(0.75) WITHIN GROUP (ORDER BY weekly_rent) AS uq,
      stddev_samp(weekly_rent)::float8 AS sd, avg(bond_amount::float8 / weekly_rent) AS brr,
      avg(ln(weekly_rent::float8)) AS lmean, stddev_samp(ln(weekly_rent::float8)) AS lsd
    FROM market_rent_bonds WHERE lodged <= '2026-03-15' AND tenancy_start BETWEEN '2026-01-01' AND '2026-01-31'
      AND ${where}`);
  const r = rows[0];
  return {
    n: r.n as number,
    mean: roundHalfAwayFromZero(r.mean, 0),
    lq: roundHalfAwayFromZero(r.lq, 0),
    med: roundHalfAwayFromZero(r.med, 0),
    uq: roundHalfAwayFromZero(r.uq, 0),
    sd: roundHalfAwayFromZero(r.sd, 0),
    brr: r.brr as number,
    lmean: r.lmean as number,
    lsd: r.lsd as number,
    slq: Math.exp(r.lmean - 0.6744897501960817 * r.lsd),
    suq: Math.exp(r.lmean + 0.6744897501960817 * r.lsd),
  };
}

function expectFigures(item: Record<string, unknown>, expected: Awaited<ReturnType<typeof sqlFigures>>) {
  expect(item.lq).toBe(expected.lq);
  expect(item.med).toBe(expected.med);
  expect(item.uq).toBe(expected.uq);
  expect(Math.abs((item.mean as number) - expected.mean)).toBeLessThanOrEqual(1);
  expect(Math.abs((item.sd as number) - expected.sd)).toBeLessThanOrEqual(1);
  expect(item.brr as number).toBeCloseTo(expected.brr, 2);
  expect(item.lmean as number).toBeCloseTo(expected.lmean, 4);
  expect(item.lsd as number).toBeCloseTo(expected.lsd, 4);
  expect(Math.abs((item.slq as number) - expected.slq)).toBeLessThanOrEqual(0.5 + 1e-9);
  expect(Math.abs((item.suq as number) - expected.suq)).toBeLessThanOrEqual(0.5 + 1e-9);
  const n = item.nLodged as number;
  expect(n % 3).toBe(0);
  expect(Math.abs(n - expected.n)).toBeLessThanOrEqual(2);
}

describe('GET /statistics', () => {
  it('answers in the published envelope, one row per area, dwelling type and bedroom count', async () => {
    const response = await get(`/statistics?${JAN}&area-definition=SAU2019&area-codes=${KAIKOURA}`);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    const body = response.json();
    expect(body.areaDefinition).toBe('SAU2019');
    expect(body.periodCovered).toBe('2026-1-1/2026-1-31');
    for (const item of body.items) {
      expect(Object.keys(item)).toEqual([...ITEM_KEYS]);
      expect(item.area).toBe('Kaikoura');
      expect(typeof item.nBedrms).toBe('string');
      expect(item.dwell).not.toBe('ALL');
    }
    const house3 = body.items.find(
      (i: { dwell: string; nBedrms: string }) => i.dwell === 'House' && i.nBedrms === '3',
    );
    expectFigures(
      house3,
      await sqlFigures(`sa2_code = ${KAIKOURA} AND dwelling_type = 'House' AND bedrooms = 3`),
    );
  });

  it('ALL rows equal the statistics of the union, computed directly', async () => {
    const body = (
      await get(`/statistics?${JAN}&area-definition=TA2019&area-codes=54&include-aggregates=true`)
    ).json();
    const row = (area: string, dwell: string, bedrooms: string) =>
      body.items.find(
        (i: Record<string, string>) => i.area === area && i.dwell === dwell && i.nBedrms === bedrooms,
      );
    const district = 'sa2_code IN (308800, 308900)';
    expectFigures(row('ALL', 'ALL', 'ALL'), await sqlFigures(district));
    expectFigures(row('Kaikoura District', 'ALL', 'ALL'), await sqlFigures(district));
    expectFigures(
      row('Kaikoura District', 'House', 'ALL'),
      await sqlFigures(`${district} AND dwelling_type = 'House'`),
    );
    expectFigures(row('ALL', 'ALL', '3'), await sqlFigures(`${district} AND bedrooms = 3`));
    expect(row('Kaikoura District', 'House', '3')).toBeDefined();
  });

  it('suppresses every statistic below 5 bonds, keeps the counts, rounded to multiples of 3', async () => {
    const body = (await get(`/statistics?${JAN}&area-definition=SAU2019&area-codes=${RANGES}`)).json();
    const five = body.items.find((i: Record<string, string>) => i.dwell === 'House' && i.nBedrms === '3');
    const four = body.items.find((i: Record<string, string>) => i.dwell === 'Flat' && i.nBedrms === '2');
    expect(five.med).toBe(420);
    expect(five.mean).toBe(420);
    expect(five.lq).toBe(410);
    for (const key of ['mean', 'lq', 'med', 'uq', 'sd', 'brr', 'lmean', 'lsd', 'slq', 'suq']) {
      expect(four[key]).toBeNull();
      expect(five[key]).not.toBeNull();
    }
    expect([3, 6]).toContain(four.nLodged);
    expect([3, 6]).toContain(five.nLodged);
    expect(four.nCurr % 3).toBe(0);
  });

  it('rounds with a keyed draw: the same request gives the same answer every time', async () => {
    const query = `/statistics?${JAN}&area-definition=SAU2019&area-codes=${KAIKOURA},${RANGES}&include-aggregates=true`;
    const first = (await get(query)).body;
    for (let i = 0; i < 3; i++) expect((await get(query)).body).toBe(first);
  });

  it('keys rounding by the population: a user-defined area of one SA2 counts like the SA2 itself', async () => {
    const direct = (await get(`/statistics?${JAN}&area-definition=SAU2019&area-codes=${KAIKOURA}`)).json();
    const mapped = (
      await get(
        `/statistics?${JAN}&area-definition=user-defined&user-defined-area-mappings=Town(${KAIKOURA})`,
      )
    ).json();
    expect(mapped.areaDefinition).toBe('user-defined');
    expect(mapped.items.map((i: Record<string, unknown>) => ({ ...i, area: 'x' }))).toEqual(
      direct.items.map((i: Record<string, unknown>) => ({ ...i, area: 'x' })),
    );
  });

  it('user-defined areas aggregate their SA2s, with ALL rows over the mappings', async () => {
    const mappings = encodeURIComponent(` Town ( ${KAIKOURA} ) , Hills(${RANGES})`);
    const response = await get(
      `/statistics?${JAN}&area-definition=user-defined&include-aggregates=true&user-defined-area-mappings=${mappings}`,
    );
    expect(response.statusCode).toBe(200);
    const items = response.json().items as Record<string, string>[];
    expect(new Set(items.map((i) => i.area))).toEqual(new Set(['Town', 'Hills', 'ALL']));
    const all = items.find((i) => i.area === 'ALL' && i.dwell === 'ALL' && i.nBedrms === 'ALL');
    expectFigures(all as Record<string, unknown>, await sqlFigures('sa2_code IN (308800, 308900)'));
    const labelled = await get(
      `/statistics?${JAN}&area-definition=user-defined&area-labels=hills&user-defined-area-mappings=${mappings}`,
    );
    expect(new Set(labelled.json().items.map((i: Record<string, string>) => i.area))).toEqual(
      new Set(['Hills']),
    );
  });

  it('filters by dwelling type and bedrooms; the long label answers with the short code', async () => {
    const body = (
      await get(
        `/statistics?${JAN}&area-definition=regional-council-2019&area-labels=canterbury%20region&dwelling-type=house,flat&num-bedrooms=3`,
      )
    ).json();
    expect(body.areaDefinition).toBe('REGC2019');
    expect(body.items.length).toBeGreaterThan(0);
    for (const item of body.items) {
      expect(['House', 'Flat']).toContain(item.dwell);
      expect(item.nBedrms).toBe('3');
    }
  });

  it('counts nCurr at the end of the period: a December tenancy still open is current in January', async () => {
    const body = (
      await get(`/statistics?${JAN}&area-definition=SAU2019&area-codes=${KAIKOURA}&include-aggregates=true`)
    ).json();
    const all = body.items.find(
      (i: Record<string, string>) => i.area === 'ALL' && i.dwell === 'ALL' && i.nBedrms === 'ALL',
    );
    const { rows } = await pool.query(`
      SELECT count(*) FILTER (WHERE tenancy_start >= '2026-01-01')::int AS lodged,
        count(*) FILTER (WHERE closed <= '2026-01-31')::int AS closed,
        count(*) FILTER (WHERE closed IS NULL OR closed > '2026-01-31')::int AS current
      FROM market_rent_bonds WHERE sa2_code = ${KAIKOURA}`);
    expect(Math.abs(all.nLodged - rows[0].lodged)).toBeLessThanOrEqual(2);
    expect(Math.abs(all.nClosed - rows[0].closed)).toBeLessThanOrEqual(2);
    expect(Math.abs(all.nCurr - rows[0].current)).toBeLessThanOrEqual(2);
  });

  it('CSV carries the same rows and numbers under one header row; other types get 406', async () => {
    const query = `/statistics?${JAN}&area-definition=SAU2019&area-codes=${KAIKOURA}&include-aggregates=true`;
    const json = (await get(query)).json();
    const csv = await get(query, { accept: 'text/csv' });
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    const [header, ...lines] = csv.body.trimEnd().split('\r\n');
    expect(header).toBe(ITEM_KEYS.join(','));
    expect(lines).toHaveLength(json.items.length);
    lines.forEach((line, i) => {
      const expected = ITEM_KEYS.map((k) => (json.items[i][k] === null ? '' : String(json.items[i][k])));
      expect(line.split(',')).toEqual(expected);
    });
    const refused = await get(query, { accept: 'application/xml' });
    expect(refused.statusCode).toBe(406);
    expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
  });
});

describe('bad input gets 400 naming the parameter and the rule', () => {
  const cases: [string, string, string][] = [
    ['period-ending missing', 'num-months=1&area-definition=REGC2019', 'period-ending'],
    [
      'period-ending malformed',
      'period-ending=2026-1&num-months=1&area-definition=REGC2019',
      'period-ending',
    ],
    [
      'period-ending month 13',
      'period-ending=2025-13&num-months=1&area-definition=REGC2019',
      'period-ending',
    ],
    [
      'period-ending too recent',
      'period-ending=2026-02&num-months=1&area-definition=REGC2019',
      'period-ending',
    ],
    ['num-months 0', 'period-ending=2026-01&num-months=0&area-definition=REGC2019', 'num-months'],
    ['num-months 25', 'period-ending=2026-01&num-months=25&area-definition=REGC2019', 'num-months'],
    [
      'num-months not a number',
      'period-ending=2026-01&num-months=two&area-definition=REGC2019',
      'num-months',
    ],
    ['unknown area definition', `${JAN}&area-definition=WARD2019`, 'area-definition'],
    ['unknown area code', `${JAN}&area-definition=REGC2019&area-codes=42`, 'area-codes'],
    ['unknown area label', `${JAN}&area-definition=REGC2019&area-labels=Atlantis`, 'area-labels'],
    [
      'codes and labels together',
      `${JAN}&area-definition=REGC2019&area-codes=1&area-labels=Northland%20Region`,
      'area-codes',
    ],
    [
      'mappings without user-defined',
      `${JAN}&area-definition=REGC2019&user-defined-area-mappings=A(100100)`,
      'user-defined-area-mappings',
    ],
    ['user-defined without mappings', `${JAN}&area-definition=user-defined`, 'user-defined-area-mappings'],
    [
      'brackets in a label',
      `${JAN}&area-definition=user-defined&user-defined-area-mappings=A(B(100100)`,
      'user-defined-area-mappings',
    ],
    [
      'a code in two labels',
      `${JAN}&area-definition=user-defined&user-defined-area-mappings=A(100100)%2CB(100100)`,
      'user-defined-area-mappings',
    ],
    [
      'a code that is not an SA2',
      `${JAN}&area-definition=user-defined&user-defined-area-mappings=A(54)`,
      'user-defined-area-mappings',
    ],
    [
      'an empty code list',
      `${JAN}&area-definition=user-defined&user-defined-area-mappings=A()`,
      'user-defined-area-mappings',
    ],
    [
      'an empty mapping list',
      `${JAN}&area-definition=user-defined&user-defined-area-mappings=`,
      'user-defined-area-mappings',
    ],
    [
      'include-aggregates not a boolean',
      `${JAN}&area-definition=REGC2019&include-aggregates=yes`,
      'include-aggregates',
    ],
    ['unknown dwelling type', `${JAN}&area-definition=REGC2019&dwelling-type=Castle`, 'dwelling-type'],
    ['unknown bedroom count', `${JAN}&area-definition=REGC2019&num-bedrooms=7`, 'num-bedrooms'],
  ];
  it.each(cases)('%s', async (_name, query, parameter) => {
    const response = await get(`/statistics?${query}`);
    expect(response.statusCode).toBe(400);
    expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    const problem = response.json();
    expect(problem).toMatchObject({ status: 400, title: 'Bad Request' });
    expect(problem.errors[0].field).toBe(parameter);
    expect(problem.detail).toContain(parameter);
  });
});

describe('no input gives a 500', () => {
  it('broken percent-encoding and repeated parameters get 400', async () => {
    const broken = await get('/statistics?period-ending=%ZZ&num-months=%E0%A4%A&area-definition=REGC2019');
    expect(broken.statusCode).toBe(400);
    const twice = await get(`/statistics?${JAN}&area-definition=REGC2019&area-definition=TA2019`);
    expect(twice.statusCode).toBe(400);
    expect(twice.json().errors[0].field).toBe('area-definition');
  });

  it('random values of every parameter get 200 or a 400 naming a parameter', async () => {
    const parameters = [
      'period-ending',
      'num-months',
      'area-definition',
      'area-codes',
      'area-labels',
      'include-aggregates',
      'user-defined-area-mappings',
      'dwelling-type',
      'num-bedrooms',
    ];
    const value = fc.oneof(
      fc.string({ maxLength: 12 }),
      fc.constantFrom(
        '2025-12',
        '1',
        '24',
        'SAU2019',
        'user-defined',
        'A(308900)',
        'true',
        '5+',
        'House',
        '54',
      ),
      fc.stringMatching(/^[A-Za-z0-9(),%+ -]{0,20}$/),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(fc.constantFrom(...parameters), value, { maxKeys: 9 }),
        async (query) => {
          const response = await get(`/statistics?${new URLSearchParams(query)}`);
          expect([200, 400]).toContain(response.statusCode);
          if (response.statusCode === 400) expect(parameters).toContain(response.json().errors[0].field);
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe('the working memory made ready at start', () => {
  it('is sized from the stored blocks of the latest 24 months: one entry per rent cell', async () => {
    const store = new StatisticsStore(pool, marketRentGeography());
    const { rows } = await pool.query(
      `SELECT count(*)::int AS n FROM market_rent_rent_cells WHERE month > '2026-01-01'::date - interval '24 months' AND month <= '2026-01-01'`,
    );
    expect(rows[0].n).toBeGreaterThan(10);
    expect(await store.latestPeriodEntries(new Date(NOW))).toBe(rows[0].n);
    // Nothing in the period: none.
    expect(await store.latestPeriodEntries(new Date('2031-06-15T00:00:00Z'))).toBe(0);
  });

  it('leaves every answer as it was', async () => {
    const query = `/statistics?${JAN}&area-definition=SAU2019&include-aggregates=true`;
    const before = (await get(query)).rawPayload;
    reserveWorkingMemory(300_000);
    const after = (await get(query)).rawPayload;
    expect(after.equals(before)).toBe(true);
  });
});

describe('area definitions', () => {
  it('lists the definitions, and each one by short code or long label, in the published shape', async () => {
    const list = (await get('/area-definitions')).json();
    expect(list.items.map((d: { code: string }) => d.code)).toEqual(
      expect.arrayContaining(['REGC2019', 'TA2019', 'SAU2019', 'IMR2017', 'REGC2016', 'user-defined']),
    );
    const regions = await get('/area-definitions/regional-council-2019');
    expect(regions.statusCode).toBe(200);
    const body = regions.json();
    expect(body.tableName).toBe('REGC2019');
    expect(body.items[0]).toEqual({ label: 'Northland Region', code: '1' });
    expect(body.items.at(-1)).toEqual({ label: 'Area Outside Region', code: '99' });
    expect((await get('/area-definition/REGC2019/area-labels')).json()).toEqual(body);
    const csv = await get('/area-definitions/TA2019', { accept: 'text/csv' });
    expect(csv.body.split('\r\n')[0]).toBe('label,code');
    expect(csv.body).toContain('Kaikoura District,54');
    expect((await get('/area-definitions/NOPE2019')).statusCode).toBe(404);
    expect((await get('/area-definitions/user-defined')).statusCode).toBe(404);
  });

  it('are in the OpenAPI document with their parameters', async () => {
    const document = (await gateway.app.inject({ url: `${BASE}/openapi.json` })).json();
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining(['/statistics', '/area-definitions', '/area-definitions/{areaDefinition}']),
    );
    // The error catalogue: the gateway's refusals and this API's problem types, with status and meaning.
    const codes = document['x-error-codes'].map((e: { code: string; status: number; dialect: string }) =>
      [e.dialect, e.status, e.code].join(' '),
    );
    expect(codes).toEqual(
      expect.arrayContaining([
        'apim 401 missing-key',
        'problem 400 invalid-parameter',
        'problem 404 not-found',
      ]),
    );
    expect(codes).not.toContain('problem 501 not-implemented');
    const names = document.paths['/statistics'].get.parameters.map((p: { name: string }) => p.name);
    expect(names).toEqual(
      expect.arrayContaining(['period-ending', 'num-months', 'user-defined-area-mappings']),
    );
  });
});

describe('keys', () => {
  it('no key, or a production key on the sandbox, is refused', async () => {
    const none = await gateway.app.inject({ url: `${BASE}/statistics?${JAN}&area-definition=REGC2019` });
    expect(none.statusCode).toBe(401);
    const production = await subscriber(gateway, 'production-market-rent');
    const wrong = await gateway.app.inject({
      url: `${BASE}/statistics?${JAN}&area-definition=REGC2019`,
      headers: { 'Ocp-Apim-Subscription-Key': production.primaryKey },
    });
    expect(wrong.statusCode).toBe(401);
    const right = await gateway.app.inject({
      url: `/gateway/tenancy-services/market-rent/v2/area-definitions`,
      headers: { 'Ocp-Apim-Subscription-Key': production.primaryKey },
    });
    expect(right.statusCode).toBe(200);
  });
});

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RuleError } from '../../../src/platform/errors.ts';
import { HttpError } from '../../../src/platform/http/errors.ts';
import { listAreaDefinitions, listAreas } from '../../../src/services/market-rent/operations/areas.ts';
import { ImportError, importBonds } from '../../../src/services/market-rent/operations/bonds.ts';
import {
  type MarketRentContext,
  openMarketRent,
} from '../../../src/services/market-rent/operations/context.ts';
import { answerStatistics } from '../../../src/services/market-rent/operations/statistics.ts';
import type { TestGateway } from '../../support/runtime.ts';
import { type Bond, bondsCsv, csvFile, HEADER, importInto, marketRentGateway } from './support/api.ts';

/**
 * The operations of the rental statistics (operations/) run without HTTP: what a tool, an import or a
 * test calls gets what a route answers, from the same environment's data.
 */
const OPERATIONS = join(import.meta.dirname, '../../../src/services/market-rent/operations');
const KAIKOURA = 308900;
const QUERY = { 'period-ending': '2026-01', 'num-months': 1, 'area-definition': 'TA2019' };

let gateway: TestGateway;
let get: Awaited<ReturnType<typeof marketRentGateway>>['get'];
let marketRent: MarketRentContext;

beforeAll(async () => {
  ({ gateway, get } = await marketRentGateway());
  const runtime = gateway.runtime;
  marketRent = await openMarketRent({
    environment: 'sandbox',
    database: runtime.environments.sandbox,
    clock: runtime.clocks.for('sandbox'),
    keyedUniform: runtime.keyedUniform,
    // No report thread, no warm-up, no answer cache: a tool's context.
    settings: { answerCacheMegabytes: 0, reportThread: 0, warmUp: 0 },
  });
  const bonds: Bond[] = Array.from({ length: 12 }, (_, i) => ({
    id: `OP${i}`,
    start: `2026-01-${String(i + 5).padStart(2, '0')}`,
    sa2: KAIKOURA,
    bedrooms: 2 + (i % 2),
    rent: 400 + 10 * i,
  }));
  await importInto(gateway, bonds);
});
afterAll(async () => {
  await marketRent?.close();
  await gateway?.close();
});

describe('market-rent operations', () => {
  it('import nothing of Fastify', () => {
    const files = readdirSync(OPERATIONS).filter((name) => name.endsWith('.ts'));
    expect(files.length).toBeGreaterThan(0);
    for (const name of files) {
      expect(readFileSync(join(OPERATIONS, name), 'utf8'), name).not.toMatch(/from '(@?fastify)[^']*'/);
    }
  });

  it('answer the statistics with the bytes the route sends, in JSON and CSV', async () => {
    const json = await answerStatistics(marketRent, { query: QUERY, format: 'json' });
    const body = JSON.parse(json.bytes.toString('utf8'));
    json.release();
    expect(body.areaDefinition).toBe('TA2019');
    expect(body.items.length).toBeGreaterThan(0);
    const query = '/statistics?period-ending=2026-01&num-months=1&area-definition=TA2019';
    expect((await get(query)).json()).toEqual(body);

    const csv = await answerStatistics(marketRent, { query: QUERY, format: 'csv' });
    const text = csv.bytes.toString('utf8');
    csv.release();
    expect(text).toBe((await get(query, { Accept: 'text/csv' })).body);
  });

  it('refuse a broken rule of the query as a RuleError naming the parameter', async () => {
    const refused = answerStatistics(marketRent, {
      query: { ...QUERY, 'period-ending': '2026-13' },
      format: 'json',
    });
    await expect(refused).rejects.toBeInstanceOf(RuleError);
    await expect(refused).rejects.toMatchObject({ field: 'period-ending' });
  });

  it('list the area definitions and one definition’s areas, as the routes do', async () => {
    const definitions = listAreaDefinitions(marketRent);
    expect(definitions.columns).toEqual(['code', 'label', 'description', 'areaCount']);
    expect(definitions.body.items.at(-1)).toMatchObject({ code: 'user-defined', areaCount: null });
    expect((await get('/area-definitions')).json()).toEqual(definitions.body);

    const regions = listAreas(marketRent, { areaDefinition: 'regional-council-2019' });
    expect(regions.body.tableName).toBe('REGC2019');
    expect((await get('/area-definitions/REGC2019')).json()).toEqual(regions.body);
    expect(() => listAreas(marketRent, { areaDefinition: 'user-defined' })).toThrow(HttpError);
    expect(() => listAreas(marketRent, { areaDefinition: 'NOPE2019' })).toThrow(
      expect.objectContaining({ status: 404 }),
    );
  });

  it('import a bond file as the CLI does, whole or not at all', async () => {
    const database = gateway.runtime.environments.sandbox;
    const lodged = async () =>
      (await database.pool.query('SELECT count(*)::int AS n FROM market_rent_bonds')).rows[0].n as number;
    const before = await lodged();
    const broken = await csvFile(`${HEADER}\nX1,2026-01-05,2026-01-05,,${KAIKOURA},House,2,-5,1800\n`);
    await expect(importBonds({ database }, { file: broken })).rejects.toBeInstanceOf(ImportError);
    expect(await lodged()).toBe(before);

    const progress: number[] = [];
    const file = await csvFile(
      bondsCsv([{ id: 'OPX', start: '2026-01-20', sa2: KAIKOURA, bedrooms: 4, rent: 610 }]),
    );
    const result = await importBonds(
      { database },
      { file },
      { progress: (_bytes, _size, rows) => progress.push(rows) },
    );
    expect(result).toMatchObject({ rows: 1, inserted: 1, updated: 0, unchanged: 0 });
    expect(progress.at(-1)).toBe(1);
    expect(await lodged()).toBe(before + 1);
  });
});

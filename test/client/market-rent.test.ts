import { afterAll, beforeAll, expect, it } from 'vitest';
import { createClient, type MarketRentClient, RegisterError } from '../../packages/client/src/index.ts';
import { importInto, marketRentGateway } from '../services/market-rent/support/api.ts';
import type { TestGateway } from '../support/runtime.ts';
import { listening, servesCommittedDocuments } from './support.ts';

/** The rental statistics through the client, against a running gateway: statistics, areas, CSV, errors. */
let gateway: TestGateway;
let baseUrl: string;
let rents: MarketRentClient;

beforeAll(async () => {
  const started = await marketRentGateway();
  gateway = started.gateway;
  await importInto(gateway, [
    { id: 'A1', start: '2026-01-05', sa2: 308900, bedrooms: 3, rent: 450 },
    { id: 'A2', start: '2026-01-06', sa2: 308900, bedrooms: 3, rent: 470 },
  ]);
  baseUrl = await listening(gateway);
  rents = createClient({ register: 'market-rent', environment: 'sandbox', baseUrl, key: started.key });
}, 180_000);
afterAll(async () => gateway?.close());

it('is served the documents its types were made from', async () => {
  await servesCommittedDocuments(baseUrl, 'market-rent', '/tenancy-services/market-rent/v2');
});

it('gets statistics as JSON, and as CSV when asked', async () => {
  const query = { 'period-ending': '2026-01', 'num-months': 1, 'area-definition': 'TA2019' } as const;
  const statistics = await rents.getStatistics({ query });
  expect(statistics.areaDefinition).toBe('TA2019');
  const csv = await rents.getStatistics({ query, accept: 'text/csv' });
  expect(String(csv).split('\n')[0]).toMatch(/^area,/);
});

it('lists the area definitions and one definition’s areas', async () => {
  const definitions = await rents.getAreaDefinitions();
  expect(definitions).toBeDefined();
  const regions = await rents.getAreaDefinition({ path: { areaDefinition: 'REGC2019' } });
  expect(regions.tableName).toBe('REGC2019');
});

it('gives problem+json for a period too recent', async () => {
  const refused = await rents
    .getStatistics({ query: { 'period-ending': '2030-01', 'num-months': 1, 'area-definition': 'TA2019' } })
    .catch((e) => e);
  expect(refused).toBeInstanceOf(RegisterError);
  expect(refused.details.kind).toBe('problem');
  expect(refused.status).toBe(400);
});

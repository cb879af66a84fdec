import type { QueryResultRow } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { realClock } from '../../../src/platform/clock.ts';
import type { SeedContext } from '../../../src/services/contract.ts';
import { FIXTURE_ACCESS_REQUESTS, FIXTURE_CASES } from '../../../src/services/nzbn/sandbox/fixtures.ts';
import { nzbnForIndex } from '../../../src/services/nzbn/sandbox/numbers.ts';
import { generatedParts } from '../../../src/services/nzbn/sandbox/organisation-parts.ts';
import { seedNzbn } from '../../../src/services/nzbn/sandbox/seed.ts';
import { generatedEntity, SANDBOX_SEED } from '../../../src/services/nzbn/sandbox/seed-rows.ts';
import { entityRowValues, toEntityRow } from '../../../src/services/nzbn/store/rows.ts';
import { type TestGateway, testGateway } from '../../support/runtime.ts';

let gateway: TestGateway;
const granted: string[] = [];
let context: SeedContext;
beforeAll(async () => {
  gateway = await testGateway();
  context = {
    database: gateway.runtime.environments.sandbox,
    scale: 'small',
    clock: realClock,
    log: () => {},
    identity: { grantOperatorsAuthority: async (_service, _kind, id) => void granted.push(id) },
  };
});
afterAll(() => gateway?.close());

const FIXTURE_PARTS = FIXTURE_CASES.reduce((n, fixture) => n + fixture.organisationParts.length, 0);
/** The organisation parts, and the requests for access to them, of the first `entities` generated. */
function generated(entities: number) {
  let parts = FIXTURE_PARTS;
  let requests = FIXTURE_ACCESS_REQUESTS.length;
  for (let index = 0; index < entities; index++) {
    const made = generatedParts(SANDBOX_SEED, index, generatedEntity(index));
    parts += made.parts.length;
    requests += made.requests.length;
  }
  return { parts, requests };
}
const sql = <T extends QueryResultRow>(text: string) =>
  gateway.runtime.environments.sandbox.pool.query<T>(text).then((r) => r.rows);
const count = async (table: string, where = 'true') =>
  (await sql<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE ${where}`))[0]!.n;

describe('the sandbox seed', () => {
  it('loads the fixtures and generated chunks in worker threads, with the operator’s authority', async () => {
    const summary = await seedNzbn(context, { entities: 2_000, chunkSize: 1_000, threads: 2 });
    expect(summary).toMatch(/^2,000 entities generated/);
    expect(await count('nzbn_entities', "origin = 'generated'")).toBe(2_000);
    expect(await count('nzbn_entities', "origin = 'fixture'")).toBe(FIXTURE_CASES.length);
    // The fixtures' parts and the generated entities', with the requests for access to them.
    const expected = generated(2_000);
    expect(expected.parts - FIXTURE_PARTS).toBeGreaterThan(0);
    expect(expected.requests - FIXTURE_ACCESS_REQUESTS.length).toBeGreaterThan(0);
    expect(await count('nzbn_organisation_parts')).toBe(expected.parts);
    expect(await count('nzbn_part_access_requests')).toBe(expected.requests);
    expect(await count('nzbn_organisation_parts', "privacy = 'PRIVATE'")).toBeGreaterThan(1);
    // The fixtures' third part is a fact of the register, not a call: nobody is charged for it, and
    // nobody bought it.
    expect(await count('fee_records')).toBe(0);
    expect(await count('nzbn_part_purchases')).toBe(0);
    expect(granted).toEqual(['9429000003025']);
    expect(await count('nzbn_entities', 'document IS NULL')).toBe(2_000);
  });

  it('stores the columns the generator gives, whichever thread made them', async () => {
    for (const index of [0, 999, 1_000, 1_999]) {
      const [row] = await sql<Record<string, unknown>>(
        `SELECT nzbn, entity_name, sort_name, status_code, type_code, search_text, hides_items, seed_index
           FROM nzbn_entities WHERE nzbn = '${nzbnForIndex(index)}'`,
      );
      const expected = toEntityRow(generatedEntity(index), {
        origin: 'generated',
        seedIndex: index,
        storeDocument: false,
      });
      expect(row).toMatchObject({
        nzbn: expected.nzbn,
        entity_name: expected.entityName,
        sort_name: expected.sortName,
        status_code: expected.statusCode,
        type_code: expected.typeCode,
        hides_items: expected.hidesItems,
        seed_index: index,
      });
      expect(String(row!.search_text).startsWith(expected.searchText.split(' ')[0]!)).toBe(true);
      expect(entityRowValues(expected)).toHaveLength(19);
    }
  });

  it('is idempotent, resumes with the chunks that are missing, and keeps a larger register for a smaller scale', async () => {
    expect(await seedNzbn(context, { entities: 2_000, chunkSize: 1_000, threads: 0 })).toMatch(/in place$/);
    await gateway.runtime.environments.sandbox.pool.query('DELETE FROM nzbn_seed_chunks WHERE chunk = 1');
    await gateway.runtime.environments.sandbox.pool.query(
      'DELETE FROM nzbn_entities WHERE seed_index >= 1000',
    );
    const resumed = await seedNzbn(context, { entities: 3_000, chunkSize: 1_000, threads: 0 });
    expect(resumed).toMatch(/^2,000 entities generated/);
    expect(await count('nzbn_entities', "origin = 'generated'")).toBe(3_000);
    expect(await seedNzbn(context, { entities: 1_000, chunkSize: 1_000, threads: 0 })).toMatch(
      /^3,000 generated/,
    );
    const expected = generated(3_000);
    expect(await count('nzbn_organisation_parts')).toBe(expected.parts);
    expect(await count('nzbn_part_access_requests')).toBe(expected.requests);
    expect(await count('fee_records')).toBe(0);
  });
});

describe('a bulk seed', () => {
  let bulk: TestGateway;
  beforeAll(async () => {
    bulk = await testGateway();
  });
  afterAll(() => bulk?.close());

  it('leaves the register in name order, with every index in place', async () => {
    const pool = bulk.runtime.environments.sandbox.pool;
    const summary = await seedNzbn(
      { ...context, database: bulk.runtime.environments.sandbox },
      { entities: 2_400, chunkSize: 200, threads: 0 },
    );
    expect(summary).toMatch(/^2,400 entities generated/);
    // Physical order (ctid) against name order: the same sequence of rows.
    const { rows } = await pool.query<{ out_of_order: number; rows: number }>(
      `SELECT count(*) FILTER (WHERE physical <> by_name)::int AS out_of_order, count(*)::int AS rows
         FROM (SELECT row_number() OVER (ORDER BY ctid) AS physical,
                      row_number() OVER (ORDER BY sort_name, nzbn) AS by_name
                 FROM nzbn_entities) ranked`,
    );
    expect(rows[0]).toEqual({ out_of_order: 0, rows: 2_400 + FIXTURE_CASES.length });
    const indexes = await pool.query<{ indexname: string }>(
      "SELECT indexname FROM pg_indexes WHERE tablename = 'nzbn_entities' ORDER BY indexname",
    );
    expect(indexes.rows.map((row) => row.indexname)).toEqual(
      expect.arrayContaining(['nzbn_entities_industry', 'nzbn_entities_search', 'nzbn_entities_sort']),
    );
  });

  it('puts a large register loaded before in name order once, on the next seed', async () => {
    const pool = bulk.runtime.environments.sandbox.pool;
    // As a register loaded before: not marked clustered, and the first half by name moved to the end.
    await pool.query('ALTER TABLE nzbn_entities SET WITHOUT CLUSTER');
    await pool.query(
      `UPDATE nzbn_entities SET entity_name = entity_name
        WHERE nzbn IN (SELECT nzbn FROM nzbn_entities ORDER BY sort_name, nzbn LIMIT 1000)`,
    );
    const outOfOrder = async () =>
      (
        await pool.query<{ n: number }>(
          `SELECT count(*) FILTER (WHERE physical <> by_name)::int AS n
             FROM (SELECT row_number() OVER (ORDER BY ctid) AS physical,
                          row_number() OVER (ORDER BY sort_name, nzbn) AS by_name
                     FROM nzbn_entities) ranked`,
        )
      ).rows[0]!.n;
    expect(await outOfOrder()).toBeGreaterThan(0);
    const logged: string[] = [];
    const again = {
      ...context,
      database: bulk.runtime.environments.sandbox,
      log: (l: string) => void logged.push(l),
    };
    expect(await seedNzbn(again, { entities: 2_400, chunkSize: 200, threads: 0 })).toMatch(/in place$/);
    expect(await outOfOrder()).toBe(0);
    expect(logged).toContain('nzbn: putting the register in name order …');
    // The GIN indexes, dropped for the rewrite, are back.
    const after = await pool.query<{ indexname: string }>(
      "SELECT indexname FROM pg_indexes WHERE tablename = 'nzbn_entities'",
    );
    expect(after.rows.map((row) => row.indexname)).toEqual(
      expect.arrayContaining(['nzbn_entities_industry', 'nzbn_entities_search']),
    );
    // Marked now: a further seed leaves the table alone.
    logged.length = 0;
    await seedNzbn(again, { entities: 2_400, chunkSize: 200, threads: 0 });
    expect(logged).not.toContain('nzbn: putting the register in name order …');
  });
});

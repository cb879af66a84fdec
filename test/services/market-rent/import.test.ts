import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workingDaysBetween } from '../../../src/services/market-rent/domain/bond-rows.ts';
import { ImportError } from '../../../src/services/market-rent/operations/bonds.ts';
import { addWorkingDays, generateBonds } from '../../../src/services/market-rent/sandbox/seed.ts';
import { rebuildAggregates } from '../../../src/services/market-rent/store/aggregates.ts';
import { rsg } from '../../support/cli.ts';
import type { TestGateway } from '../../support/runtime.ts';
import {
  type Bond,
  bondsCsv,
  csvFile,
  HEADER,
  importInto,
  marketRentGateway,
  setSandboxClock,
} from './support/api.ts';

/** `rsg import bonds`, the late-lodgement rule, the monthly cells and the generator. */
let gateway: TestGateway;
let get: Awaited<ReturnType<typeof marketRentGateway>>['get'];
const pool = () => gateway.runtime.environments.sandbox.pool;
const count = async (table = 'market_rent_bonds') =>
  (await pool().query(`SELECT count(*)::int AS n FROM ${table}`)).rows[0].n as number;

beforeAll(async () => {
  ({ gateway, get } = await marketRentGateway());
});
afterAll(() => gateway?.close());

const bond = (id: string, extra: Partial<Bond> = {}): Bond => ({
  id,
  start: '2025-11-03',
  sa2: 100100,
  bedrooms: 2,
  rent: 450,
  ...extra,
});

/** Every cell table, as text, for comparing two ways of building them. */
async function cellTables(db: { query: pg.Pool['query'] } = pool()): Promise<string> {
  const tables = ['market_rent_rent_cells', 'market_rent_closed_cells', 'market_rent_active_cells'];
  const parts = [];
  for (const table of tables) {
    const { rows } = await db.query(`SELECT * FROM ${table} ORDER BY 1, 2, 3, 4, 5`);
    parts.push(JSON.stringify(rows));
  }
  const blocks = await db.query('SELECT kind, month, md5(data) FROM market_rent_blocks ORDER BY 1, 2');
  parts.push(JSON.stringify(blocks.rows));
  return parts.join('\n');
}

describe('rsg import bonds', () => {
  it('reports every problem with its line number and writes nothing', async () => {
    const before = await count();
    const text = [
      HEADER,
      '1,2025-11-03,2025-11-05,,100100,House,2,450,1800',
      '2,2025-11-31,2025-11-05,,100100,House,2,450,1800',
      '3,2025-11-03,2025-12-20,,100100,House,2,450,1800',
      '4,2025-11-03,2025-11-05,2025-10-01,100100,House,2,450,1800',
      '5,2025-11-03,2025-11-05,,54,House,2,450,1800',
      '6,2025-11-03,2025-11-05,,100100,Castle,2,450,1800',
      '7,2025-11-03,2025-11-05,,100100,House,two,450.50,-5',
      '1,2025-11-03,2025-11-05,,100100,House,2,450,1800',
      '8,2025-11-03,2025-11-05,,100100,House,2,450',
    ].join('\n');
    const error = await importInto(gateway, text).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ImportError);
    const lines = (error as ImportError).errors.map((e) => `${e.line}: ${e.message}`);
    expect(lines).toEqual([
      expect.stringMatching(/^3: tenancy_start_date "2025-11-31" is not a date/),
      expect.stringMatching(/^4: lodgement_date is more than 23 working days after/),
      expect.stringMatching(/^5: closed_date is before tenancy_start_date/),
      expect.stringMatching(/^6: sa2_code "54" is not a statistical area 2/),
      expect.stringMatching(/^7: dwelling_type "Castle"/),
      expect.stringMatching(/^8: bedrooms "two"/),
      expect.stringMatching(/^8: weekly_rent "450.50"/),
      expect.stringMatching(/^8: bond_amount "-5"/),
      expect.stringMatching(/^9: bond_id "1" is also on line 2/),
      expect.stringMatching(/^10: 8 fields, the header has 9/),
    ]);
    expect(await count()).toBe(before);
    expect(await count('market_rent_rent_cells')).toBe(0);
  });

  it('reads RFC 4180 CSV: quoted fields, doubled quotes, a BOM, CRLF, blank lines; errors name their line', async () => {
    const before = await count();
    const text = [
      `\uFEFF${HEADER.split(',')
        .map((c) => `"${c}"`)
        .join(',')}`,
      '"Q1","2025-11-03","2025-11-05","","100100","Boarding House","2","450.00","1800"',
      '',
      '   ',
      'Q2,2025-11-03,2025-11-05,,100100,"House, big",2,450,1800',
      'Q3,2025-11-03,2025-11-05,,100100,"Cas""tle",2,450,1800',
      'Q4,2025-11-03,2025-11-05,,100100,"Ho',
      'use",2,450,1800',
      'Q5,2025-11-03,2025-11-05,,7,House,2,450,1800',
      'Q6,2025-11-03,2025-11-05,,100100,House,2,"450"x,1800',
    ].join('\r\n');
    const error = await importInto(gateway, text).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ImportError);
    const lines = (error as ImportError).errors.map((e) => `${e.line}: ${e.message}`);
    expect(lines).toEqual([
      expect.stringMatching(/^5: dwelling_type "House, big" is not one of/),
      expect.stringMatching(/^6: dwelling_type "Cas"tle" is not one of/),
      expect.stringMatching(/^7: a quoted field holds a line break: a record may not span lines$/),
      expect.stringMatching(/^9: sa2_code "7" is not a statistical area 2/),
      expect.stringMatching(/^10: text after the closing quote of a field/),
    ]);
    expect(await count()).toBe(before);
    const unclosed = await importInto(
      gateway,
      `${HEADER}\nU1,2025-11-03,2025-11-05,,100100,"House,2,450,1800\n`,
    ).catch((e: unknown) => e);
    expect((unclosed as ImportError).errors.map((e) => `${e.line}: ${e.message}`)).toEqual([
      expect.stringMatching(/^2: unterminated quoted field/),
    ]);
    // The same bonds unquoted and quoted are the same rows.
    const quoted = bondsCsv([bond('Q7')])
      .split('\n')
      .map((line) =>
        line === ''
          ? line
          : line
              .split(',')
              .map((field) => `"${field}"`)
              .join(','),
      )
      .join('\n');
    expect(await importInto(gateway, quoted)).toMatchObject({ rows: 1, inserted: 1 });
    expect(await importInto(gateway, [bond('Q7')])).toMatchObject({ rows: 1, unchanged: 1 });
  });

  it('refuses a wrong header and an empty file', async () => {
    const wrong = await importInto(gateway, 'bond,start\n1,2025-01-01\n').catch((e: ImportError) => e);
    expect((wrong as ImportError).errors[0]?.message).toMatch(/^header: unknown column "bond"/);
    const empty = await importInto(gateway, '').catch((e: ImportError) => e);
    expect((empty as ImportError).errors[0]?.message).toMatch(/empty/);
  });

  it('is idempotent by bond id: the same file twice changes nothing; a changed row replaces the bond', async () => {
    const bonds = [bond('A1'), bond('A2', { dwelling: '', bedrooms: null }), bond('A3', { rent: 520 })];
    expect(await importInto(gateway, bonds)).toMatchObject({
      rows: 3,
      inserted: 3,
      updated: 0,
      unchanged: 0,
    });
    const cells = await cellTables();
    expect(await importInto(gateway, bonds)).toMatchObject({
      rows: 3,
      inserted: 0,
      updated: 0,
      unchanged: 3,
    });
    expect(await cellTables()).toBe(cells);
    const stored = await pool().query(
      "SELECT dwelling_type, bedrooms FROM market_rent_bonds WHERE bond_id = 'A2'",
    );
    expect(stored.rows[0]).toEqual({ dwelling_type: 'House', bedrooms: null });
    // A later extract closes A1.
    const closed = [bond('A1', { closed: '2025-12-12' }), ...bonds.slice(1)];
    expect(await importInto(gateway, closed)).toMatchObject({ inserted: 0, updated: 1, unchanged: 2 });
    const after = await pool().query(
      "SELECT bonds FROM market_rent_closed_cells WHERE month = '2025-12-01' AND sa2_code = 100100",
    );
    expect(after.rows[0].bonds).toBe(1);
  });

  it('keeps the monthly cells equal to a rebuild from the bonds, change after change', async () => {
    await importInto(gateway, [
      bond('B1', { start: '2024-02-10', closed: '2025-03-01', rent: 610 }),
      bond('B2', { start: '2026-02-27', lodged: '2026-03-20', sa2: 308900, dwelling: 'Flat' }),
      bond('A3', { rent: 530, bedrooms: 7 }),
    ]);
    const incremental = await cellTables();
    const client = await pool().connect();
    try {
      await client.query('BEGIN');
      await rebuildAggregates(client);
      expect(await cellTables(client)).toBe(incremental);
      await client.query('ROLLBACK');
    } finally {
      client.release();
    }
  });
});

describe('the rsg import bonds command', () => {
  it('prints each problem as FILE:LINE and exits 1; imports a good file into production by default', async () => {
    const bad = await csvFile(
      `${HEADER}\nC1,2025-11-03,2025-11-05,,100100,House,2,450,1800\nC2,2025-11-03,2025-11-05,,7,House,2,450,1800\n`,
    );
    const refused = await rsg(['import', 'bonds', bad], { urls: gateway.urls });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`${bad}:3: sa2_code "7" is not a statistical area 2 (2019) code`);
    expect(refused.stderr).toContain('nothing was imported');
    const good = await csvFile(bondsCsv([bond('C1'), bond('C2', { sa2: 308900 })]));
    const imported = await rsg(['import', 'bonds', good], { urls: gateway.urls });
    expect(imported).toMatchObject({ code: 0 });
    expect(imported.stdout).toContain('2 rows: 2 new, 0 updated, 0 unchanged');
    const production = gateway.runtime.environments.production.pool;
    const stored = await production.query(
      "SELECT count(*)::int AS n FROM market_rent_bonds WHERE bond_id LIKE 'C%'",
    );
    expect(stored.rows[0].n).toBe(2);
    const usage = await rsg(['import', 'bonds', good, '--environment', 'staging'], { urls: gateway.urls });
    expect(usage.code).toBe(2);
  });
});

describe('late lodgement', () => {
  it('a bond counts from its lodgement day: January grows as late bonds are lodged', async () => {
    await setSandboxClock(gateway, '2026-03-01T22:00:00Z'); // 2 March in New Zealand
    const late = bond('L1', { start: '2026-01-30', lodged: '2026-03-04', sa2: 343000, rent: 300 });
    await importInto(gateway, bondsCsv([late]));
    const query =
      '/statistics?period-ending=2026-01&num-months=1&area-definition=SAU2019&area-codes=343000&include-aggregates=true';
    expect((await get(query)).json().items).toEqual([]);
    await setSandboxClock(gateway, '2026-03-04T01:00:00Z'); // 4 March in New Zealand
    const items = (await get(query)).json().items;
    expect(items.length).toBeGreaterThan(0);
    expect(items.every((i: { mean: null }) => i.mean === null)).toBe(true);
  });
});

describe('the sandbox generator', () => {
  it('is deterministic, national, lodges within 23 working days, and rounds most rents to $10', async () => {
    const now = new Date('2026-03-15T00:00:00Z');
    await generateBonds(gateway.runtime.environments.sandbox, { scale: 'small', now, bonds: 4000 });
    const digest = async () =>
      (
        await pool().query(
          "SELECT md5(string_agg(b::text, ',' ORDER BY bond_id)) AS d, count(*)::int AS n FROM market_rent_bonds b",
        )
      ).rows[0];
    const first = await digest();
    expect(first.n).toBe(4000);
    await generateBonds(gateway.runtime.environments.sandbox, { scale: 'small', now, bonds: 4000 });
    expect(await digest()).toEqual(first);
    const { rows } = await pool().query(`
      SELECT to_char(tenancy_start, 'YYYY-MM-DD') AS start, to_char(lodged, 'YYYY-MM-DD') AS lodged,
        weekly_rent, bond_amount, closed FROM market_rent_bonds`);
    const day = (iso: string) => Date.parse(`${iso}T00:00:00Z`) / 86_400_000;
    for (const r of rows) expect(workingDaysBetween(day(r.start), day(r.lodged))).toBeLessThanOrEqual(23);
    const tens = rows.filter((r) => r.weekly_rent % 10 === 0).length / rows.length;
    expect(tens).toBeGreaterThan(0.7);
    const regions = await pool().query(
      'SELECT count(DISTINCT sa2_code / 1000)::int AS n, count(*) FILTER (WHERE lodged > $1)::int AS pending FROM market_rent_bonds',
      ['2026-03-15'],
    );
    expect(regions.rows[0].n).toBeGreaterThan(100);
    expect(regions.rows[0].pending).toBeGreaterThan(0);
    expect(addWorkingDays(day('2026-01-30'), 23)).toBe(day('2026-03-04'));
  });
});

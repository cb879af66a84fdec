import { createHash, randomUUID } from 'node:crypto';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../../src/platform/db/migrations.ts';
import { type Database, openDatabase, withTransaction } from '../../../src/platform/db/pool.ts';
import { withCheckDigit } from '../../../src/platform/gs1.ts';
import { ServerKeys } from '../../../src/platform/server-keys.ts';
import { lookupOf } from '../../../src/services/ppsr/domain/search-keys.ts';
import { generateStatement } from '../../../src/services/ppsr/sandbox/generator.ts';
import { ensureCustomerOrganisation } from '../../../src/services/ppsr/store/account.ts';
import { loadChunk, seededCount } from '../../../src/services/ppsr/store/seed.ts';
import {
  dischargedBetween,
  findInForce,
  getStatement,
  insertStatement,
  listVersions,
  type StatementDocument,
  writeVersion,
} from '../../../src/services/ppsr/store/statements.ts';
import {
  completeTransaction,
  failAbandoned,
  findEndedTransactions,
  receiveTransaction,
} from '../../../src/services/ppsr/store/transactions.ts';
import { freshDatabases } from '../../support/runtime.ts';

/** The register's store on a fresh database with only its own migrations. */
let database: Database;
let drop: () => Promise<void>;
const organisationId = randomUUID();
const hash = (text: string) => createHash('sha256').update(text).digest();
const keys = new ServerKeys('a-server-secret-for-the-store-tests-only');

beforeAll(async () => {
  const urls = await freshDatabases();
  drop = urls.drop;
  database = openDatabase(urls.sandbox);
  await migrate(database.pool, [
    { module: 'ppsr', dir: path.join(import.meta.dirname, '../../../src/services/ppsr/migrations') },
  ]);
});
afterAll(async () => {
  await database?.close();
  await drop?.();
});

const nzbn = withCheckDigit('942000000777');
const document = (name: string, vin = '1HGCM82633A004352'): StatementDocument => ({
  debtors: [
    { debtorType: 'organisation', organisationName: name, organisationType: 'COMPANY', nzbn },
    { debtorType: 'person', firstName: 'Aroha', lastName: 'Ngata', dateOfBirth: '1980-05-01' },
  ],
  securedParties: [{ name: 'Kiwi Finance', email: 'ppsr@kiwi.example' }],
  collaterals: [
    {
      collateralType: 'GOODS_MOTOR_VEHICLES',
      motorVehicles: [{ make: 'Honda', model: 'Accord', year: 2003, vin, registrationPlate: 'ABC123' }],
    },
  ],
});

async function register(number: string, doc: StatementDocument, expiryDate = '2031-11-24') {
  return withTransaction(database.pool, (client) =>
    insertStatement(client, {
      registrationNumber: number,
      organisationId,
      securedPartyGroupId: null,
      registeredAt: new Date('2026-11-24T00:00:00Z'),
      expiryDate,
      pinHash: hash('pin'),
      pinKeyIds: 'none',
      debtorPinHash: hash('debtor pin'),
      debtorPinKeyIds: 'none',
      document: doc,
      transactionId: null,
    }),
  );
}

describe('financing statements in the store', () => {
  it('a registration is found by each of its keys while in force, and only then', async () => {
    expect(await register('AAAAAAAAAAAAAAA1', document('Ngā Tāonga Limited'))).toBe(true);
    expect(await register('AAAAAAAAAAAAAAA1', document('Clash Limited'))).toBe(false);
    await register('AAAAAAAAAAAAAAA2', document('Ngahere Holdings', '11111111111111111'), '2026-01-01');
    const find = (criterion: Parameters<typeof lookupOf>[0]) =>
      findInForce(database.pool, lookupOf(criterion), '2026-11-24', 300);
    expect(await find({ kind: 'organisationName', name: 'nga taonga', exact: false })).toEqual([
      'AAAAAAAAAAAAAAA1',
    ]);
    expect(await find({ kind: 'organisationName', name: 'NGA', exact: true })).toEqual([]);
    expect(await find({ kind: 'organisationNumber', nzbn })).toEqual(['AAAAAAAAAAAAAAA1']);
    expect(await find({ kind: 'vin', value: '1HGCM82633A004352' })).toEqual(['AAAAAAAAAAAAAAA1']);
    // The second statement expired on 2026-01-01: not a search result.
    expect(await find({ kind: 'vin', value: '11111111111111111' })).toEqual([]);
    expect(
      await find({ kind: 'person', firstName: 'aroha', lastName: 'NGATA', dateOfBirth: '1980-05-01' }),
    ).toEqual(['AAAAAAAAAAAAAAA1']);
    expect(
      await find({ kind: 'person', firstName: 'Aroha', lastName: 'Ngata', dateOfBirth: '1980-05-02' }),
    ).toEqual([]);
    expect(await find({ kind: 'registrationNumber', value: 'AAAAAAAAAAAAAAA1' })).toEqual([
      'AAAAAAAAAAAAAAA1',
    ]);
  });

  it('a starts-with search stops at the limit, each statement once', async () => {
    for (let i = 0; i < 12; i++) {
      const doc = document(`Limit Test ${String(i).padStart(2, '0')}`);
      // Two debtors with the same prefix: the statement must count once.
      doc.debtors.push({
        debtorType: 'organisation',
        organisationName: `Limit Test Trust ${i}`,
        organisationType: 'TRUST',
      });
      await register(`LIMIT00000000${String(i).padStart(3, '0')}`, doc);
    }
    const lookup = lookupOf({ kind: 'organisationName', name: 'limit test', exact: false });
    const five = await findInForce(database.pool, lookup, '2026-11-24', 5);
    expect(five).toHaveLength(5);
    expect(new Set(five).size).toBe(5);
    expect(await findInForce(database.pool, lookup, '2026-11-24', 300)).toHaveLength(12);
  });

  it('amend, renew and discharge write versions; keys follow the current version', async () => {
    await register('VERSIONS00000001', document('Version Co', '2HGCM82633A004352'));
    await withTransaction(database.pool, async (client) => {
      const current = (await getStatement(client, 'VERSIONS00000001', { forUpdate: true }))!;
      const next = document('Renamed Co', '3HGCM82633A004352');
      await writeVersion(client, current, {
        change: 'Amended',
        at: new Date('2026-12-01T00:00:00Z'),
        expiryDate: current.expiryDate,
        document: next,
        transactionId: null,
      });
    });
    const lookup = (value: string) => lookupOf({ kind: 'vin', value });
    expect(await findInForce(database.pool, lookup('2HGCM82633A004352'), '2026-12-02', 300)).toEqual([]);
    expect(await findInForce(database.pool, lookup('3HGCM82633A004352'), '2026-12-02', 300)).toEqual([
      'VERSIONS00000001',
    ]);
    await withTransaction(database.pool, async (client) => {
      const current = (await getStatement(client, 'VERSIONS00000001', { forUpdate: true }))!;
      await writeVersion(client, current, {
        change: 'Discharged',
        at: new Date('2027-02-01T00:00:00Z'),
        expiryDate: current.expiryDate,
        document: current.document,
        transactionId: null,
      });
    });
    const versions = await listVersions(database.pool, 'VERSIONS00000001');
    expect(versions.map((v) => [v.version, v.change])).toEqual([
      [1, 'Registered'],
      [2, 'Amended'],
      [3, 'Discharged'],
    ]);
    expect(versions[0]?.document.debtors[0]).toMatchObject({ organisationName: 'Version Co' });
    expect(await findInForce(database.pool, lookup('3HGCM82633A004352'), '2027-02-02', 300)).toEqual([]);
    const between = (organisation: string) =>
      dischargedBetween(
        database.pool,
        organisation,
        new Date('2027-01-01T00:00:00Z'),
        new Date('2027-03-01T00:00:00Z'),
        { offset: 0, limit: 100, cap: 50_000 },
      );
    const discharged = await between(organisationId);
    expect(discharged.total).toBe(1);
    expect(discharged.rows[0]).toMatchObject({ registrationNumber: 'VERSIONS00000001', version: 3 });
    expect((await between(randomUUID())).total).toBe(0);
  });
});

describe('transactions in the store', () => {
  const arrival = (requestId: string, body = '{}') => ({
    organisationId,
    requestId,
    requestIdSupplied: true,
    billingReference: 'INV-42',
    operation: 'PPSR_17',
    requestHash: hash(body),
    channel: 'API' as const,
    correlationId: randomUUID(),
    receivedAt: new Date('2026-11-24T01:00:00Z'),
  });

  it('one record per request id, even for concurrent arrivals; found only once ended', async () => {
    const arrivals = await Promise.all(
      Array.from({ length: 20 }, () => receiveTransaction(database.pool, keys, arrival('req-1'))),
    );
    expect(arrivals.filter((a) => a.created)).toHaveLength(1);
    expect(new Set(arrivals.map((a) => a.row.id)).size).toBe(1);
    expect(await findEndedTransactions(database.pool, keys, organisationId, { requestId: 'req-1' })).toEqual(
      [],
    );
    const row = arrivals[0]!.row;
    const outcome = {
      statusCode: 200 as const,
      httpStatus: 201,
      response: { ok: true },
      completedAt: new Date(),
    };
    expect(await completeTransaction(database.pool, keys, row, outcome)).toBe(true);
    expect(await completeTransaction(database.pool, keys, row, outcome)).toBe(false);
    const [found] = await findEndedTransactions(database.pool, keys, organisationId, {
      billingReference: 'INV-42',
    });
    expect(found).toMatchObject({
      requestId: 'req-1',
      statusCode: 200,
      httpStatus: 201,
      response: { ok: true },
    });
  });

  it('a transaction abandoned mid-way is failed with 500', async () => {
    await receiveTransaction(database.pool, keys, arrival('req-abandoned'));
    expect(await failAbandoned(database.pool, new Date('2026-11-24T02:00:00Z'), new Date())).toBe(1);
    const [failed] = await findEndedTransactions(database.pool, keys, organisationId, {
      requestId: 'req-abandoned',
    });
    expect(failed?.statusCode).toBe(500);
  });
});

describe('the customer organisation in the store', () => {
  it('made on first use once, and every one of many first uses at once gets it', async () => {
    // Each round a fresh organisation met by many calls at once, each on a connection of its own: the
    // ones whose insert waited for another's see the row it made.
    const pool = openDatabase(database.url, 16);
    try {
      for (let round = 0; round < 5; round++) {
        const id = randomUUID();
        const rows = await Promise.all(
          Array.from({ length: 16 }, () =>
            ensureCustomerOrganisation(pool.pool, id, 'At once Limited', new Date()),
          ),
        );
        expect(rows.map((row) => row?.organisationId)).toEqual(Array(16).fill(id));
        expect(new Set(rows.map((row) => row.version)).size).toBe(1);
      }
    } finally {
      await pool.close();
    }
  });
});

describe('the sandbox seed in the store', () => {
  it('loads a chunk whole, once; its statements are found by their keys', async () => {
    const source = {
      count: 10,
      organisation: (i: number) => ({
        name: `Seed Company ${i}`,
        nzbn: withCheckDigit(String(942_000_000_100 + i)),
      }),
    };
    const now = Date.parse('2026-11-24T00:00:00Z');
    const make = () => Array.from({ length: 50 }, (_, i) => generateStatement(i, now, source));
    expect(await loadChunk(database.pool, 'test', 0, make)).toBe(50);
    expect(await loadChunk(database.pool, 'test', 0, make)).toBe(0);
    expect(await seededCount(database.pool, 'test')).toBe(50);
    const statements = make();
    const versions = await database.pool.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM ppsr_financing_statement_versions WHERE registration_number = ANY($1)',
      [statements.map((s) => s.registrationNumber)],
    );
    expect(versions.rows[0]?.n).toBe(statements.reduce((sum, s) => sum + s.versions.length, 0));
    const inForce = statements.find((s) => !s.dischargedAt && s.expiryDate >= '2026-11-24')!;
    expect(
      await findInForce(
        database.pool,
        { kinds: [], keys: [inForce.registrationNumber], prefix: false },
        '2026-11-24',
        1,
      ),
    ).toEqual([inForce.registrationNumber]);
    const stored = await getStatement(database.pool, inForce.registrationNumber);
    expect(stored?.document).toEqual(JSON.parse(JSON.stringify(inForce.versions.at(-1)!.document)));
    expect(stored?.version).toBe(inForce.versions.length);
  });
});

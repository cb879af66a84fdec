import { createHash, randomUUID } from 'node:crypto';
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../../src/platform/db/migrations.ts';
import { type Database, openDatabase } from '../../../src/platform/db/pool.ts';
import { ServerKeys } from '../../../src/platform/server-keys.ts';
import { checkPin } from '../../../src/services/ppsr/domain/pin-verifiers.ts';
import { convertToCurrentKey } from '../../../src/services/ppsr/store/key-conversion.ts';
import { getKeyedTransaction } from '../../../src/services/ppsr/store/transactions.ts';
import { freshDatabases } from '../../support/runtime.ts';

/**
 * An environment database of the version before keyed PINs (migrations 001–002, PINs as their bare
 * SHA-256, answers in clear) upgraded: migrations 003 and 004, then the start's conversion.
 */
const MIGRATIONS = path.join(import.meta.dirname, '../../../src/services/ppsr/migrations');
const keys = new ServerKeys('the-server-secret-of-the-upgraded-register');
const sha256 = (text: string) => createHash('sha256').update(text).digest();
let database: Database;
let drop: () => Promise<void>;
let before: string;

beforeAll(async () => {
  const urls = await freshDatabases();
  drop = urls.drop;
  database = openDatabase(urls.sandbox);
  before = await mkdtemp(path.join(tmpdir(), 'rsg-ppsr-002-'));
  for (const file of ['001_register.sql', '002_verification_statements.sql']) {
    await copyFile(path.join(MIGRATIONS, file), path.join(before, file));
  }
  await migrate(database.pool, [{ module: 'ppsr', dir: before }]);
});
afterAll(async () => {
  await database?.close();
  await drop?.();
  if (before) await rm(before, { recursive: true, force: true });
});

describe('upgrading a register of unkeyed PINs', () => {
  it('keys every verifier and seals every kept answer without knowing the PINs', async () => {
    const organisationId = randomUUID();
    const statement = async (number: string, organisation: string | null, pin: string) =>
      database.pool.query(
        `INSERT INTO ppsr_financing_statements (registration_number, organisation_id, registered_at,
           expiry_date, changed_at, pin_hash, debtor_pin_hash, document)
         VALUES ($1, $2, now(), '2030-01-01', now(), $3, $4, '{}')`,
        [number, organisation, sha256(pin), sha256(`debtor ${pin}`)],
      );
    await statement('REGISTERED000001', organisationId, '12345678');
    await statement('GENERATED0000001', null, 'no one holds this');
    await statement('FIXC010000000000', null, '20221101');
    const answer = { registrationNumber: 'REGISTERED000001', financingStatementPin: '12345678' };
    await database.pool.query(
      `INSERT INTO ppsr_transactions (organisation_id, request_id, operation, request_hash, correlation_id,
         received_at, completed_at, status_code, http_status, response)
       VALUES ($1, 'req-1', 'PPSR_17', '\\x00', $2, now(), now(), 200, 201, $3)`,
      [organisationId, randomUUID(), JSON.stringify({ body: answer })],
    );

    await migrate(database.pool, [{ module: 'ppsr', dir: MIGRATIONS }]);
    const ids = async () =>
      (
        await database.pool.query<{ number: string; pin: string | null; debtor: string | null }>(
          `SELECT registration_number AS number, pin_key_ids AS pin, debtor_pin_key_ids AS debtor
             FROM ppsr_financing_statements ORDER BY registration_number`,
        )
      ).rows;
    // The seed's statements no PIN opens are marked by the migration; the rest wait for the secret.
    expect(await ids()).toEqual([
      { number: 'FIXC010000000000', pin: null, debtor: 'none' },
      { number: 'GENERATED0000001', pin: 'none', debtor: 'none' },
      { number: 'REGISTERED000001', pin: null, debtor: null },
    ]);

    expect(await convertToCurrentKey(database.pool, keys)).toEqual({
      verifiers: 2,
      underPreviousKeys: 0,
      answers: 1,
      unopenable: 0,
    });
    const id = keys.current.id;
    expect(await ids()).toEqual([
      { number: 'FIXC010000000000', pin: id, debtor: 'none' },
      { number: 'GENERATED0000001', pin: 'none', debtor: 'none' },
      { number: 'REGISTERED000001', pin: id, debtor: id },
    ]);
    const row = await database.pool.query<{ hash: Buffer; text: string }>(
      `SELECT s.pin_hash AS hash, t::text AS text FROM ppsr_financing_statements s, ppsr_transactions t
        WHERE s.registration_number = 'REGISTERED000001'`,
    );
    expect(row.rows[0]!.hash.equals(sha256('12345678'))).toBe(false);
    expect(row.rows[0]!.text).not.toContain('12345678');
    expect(checkPin(keys, '12345678', { hash: row.rows[0]!.hash, keyIds: id })).toEqual({ matches: true });
    expect((await getKeyedTransaction(database.pool, keys, organisationId, 'req-1'))?.response).toEqual({
      body: answer,
    });

    // The secret rotated: the two keyed statements are wrapped again and counted as under a previous key
    // (what the start logs at info; the unkeyed form alone, a new sandbox's, only at debug).
    const rotated = new ServerKeys('the-next-server-secret-of-the-upgraded-register', [
      'the-server-secret-of-the-upgraded-register',
    ]);
    expect(await convertToCurrentKey(database.pool, rotated)).toEqual({
      verifiers: 2,
      underPreviousKeys: 2,
      answers: 1,
      unopenable: 0,
    });
  });
});

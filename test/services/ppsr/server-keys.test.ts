import { createHash, createHmac } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServerKeys } from '../../../src/platform/server-keys.ts';
import { checkPin } from '../../../src/services/ppsr/domain/pin-verifiers.ts';
import { convertToCurrentKey } from '../../../src/services/ppsr/store/key-conversion.ts';
import { rsg } from '../../support/cli.ts';
import { signedInUser } from '../../support/oauth.ts';
import { TEST_SERVER_SECRET, type TestGateway, testGateway } from '../../support/runtime.ts';
import { BASE, type PpsrTest, ppsrTest, registration, requestId } from './support/api.ts';

/**
 * PINs against a stolen database: verifiers keyed by the server secret (not in the database), kept
 * answers sealed with it, no PIN in a debug log line; the old forms converted, a rotated key still
 * verifying until the PIN is rehashed to the current one.
 */
let test: PpsrTest;
let pool: pg.Pool;
const lines: string[] = [];
const NEW_SECRET = 'the-next-server-secret-after-a-rotation-0001';
/** Every PIN this file's registrations were given: the log must hold none of them. */
const issued: string[] = [];

beforeAll(async () => {
  test = await ppsrTest({
    env: { LOG_LEVEL: 'debug', RSG_PPSR_USER_RATE_LIMIT: '0' },
    app: { logger: true, logStream: { write: (line: string) => void lines.push(line) } },
  });
  pool = test.gateway.runtime.environments.sandbox.pool;
}, 120_000);
afterAll(async () => test?.close());

interface Registered {
  registrationNumber: string;
  financingStatementPin: string;
  debtorPin: string;
}

async function register(
  id = requestId(),
  overrides: Record<string, unknown> = {},
): Promise<{ answer: Registered; id: string }> {
  const created = await test.call('POST', '/financing-statements', {
    body: registration(overrides),
    headers: { 'api-business-govt-nz-Request-Id': id },
  });
  expect(created.statusCode, created.body).toBe(201);
  const answer: Registered = created.json();
  issued.push(answer.financingStatementPin, answer.debtorPin);
  return { answer, id };
}

async function verifierOf(registrationNumber: string) {
  const result = await pool.query<{ hash: Buffer; keyIds: string | null; debtorKeyIds: string | null }>(
    `SELECT pin_hash AS hash, pin_key_ids AS "keyIds", debtor_pin_key_ids AS "debtorKeyIds"
       FROM ppsr_financing_statements WHERE registration_number = $1`,
    [registrationNumber],
  );
  return result.rows[0]!;
}

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest();

describe('PIN verifiers', () => {
  it('are keyed: no unkeyed hash of the PIN, and without the server secret no PIN matches', async () => {
    const { answer } = await register();
    const pin = answer.financingStatementPin;
    const stored = await verifierOf(answer.registrationNumber);
    const keys = test.gateway.runtime.serverKeys;
    expect(stored.keyIds).toBe(keys.current.id);
    // What enumerating the 10^8 PINs would compare against: none of the unkeyed hashes of the PIN.
    for (const unkeyed of [
      sha256(pin),
      sha256(sha256(pin)),
      createHash('sha512').update(pin).digest().subarray(0, 32),
      createHmac('sha256', '').update(pin).digest(),
      createHmac('sha256', '').update(sha256(pin)).digest(),
    ]) {
      expect(stored.hash.equals(unkeyed)).toBe(false);
    }
    expect(checkPin(keys, pin, stored)).toEqual({ matches: true });
    // Another secret (an attacker's guess) makes the same verifier for no PIN: not even the right one.
    const guessed = new ServerKeys('an-attackers-guess-at-the-server-secret-000');
    expect(checkPin(guessed, pin, { hash: stored.hash, keyIds: guessed.current.id })).toEqual({
      matches: false,
    });
    expect(checkPin(keys, String((Number(pin) + 1) % 1e8).padStart(8, '0'), stored).matches).toBe(false);
  });
});

describe('kept answers', () => {
  it('hold no PIN in clear, and a repeat and SEC_56 still give the first answer', async () => {
    const { answer, id } = await register();
    const row = await pool.query<{ text: string; sealed: Buffer | null }>(
      `SELECT t::text AS text, response_sealed AS sealed FROM ppsr_transactions t WHERE request_id = $1`,
      [id],
    );
    for (const pin of [answer.financingStatementPin, answer.debtorPin]) {
      expect(row.rows[0]!.text).not.toContain(pin);
      expect(row.rows[0]!.sealed!.includes(Buffer.from(pin))).toBe(false);
    }
    const repeat = await test.call('POST', '/financing-statements', {
      body: registration(),
      headers: { 'api-business-govt-nz-Request-Id': id },
    });
    expect(repeat.statusCode).toBe(201);
    expect(repeat.json()).toEqual(answer);
    const found = await test.call('GET', `/customer-organisation-transactions?request-id=${id}`);
    expect(found.json().transactions[0].response).toEqual(answer);
  });
});

describe('rows of the old form', () => {
  it('are converted without the PINs: verifiers keyed, answers sealed; the PIN still opens', async () => {
    const { answer, id } = await register();
    const pin = answer.financingStatementPin;
    // Back to what the register kept before: the PIN's SHA-256, the answer in clear.
    await pool.query(
      `UPDATE ppsr_financing_statements SET pin_hash = $2, pin_key_ids = NULL, debtor_pin_hash = $3,
              debtor_pin_key_ids = NULL WHERE registration_number = $1`,
      [answer.registrationNumber, sha256(pin), sha256(answer.debtorPin)],
    );
    await pool.query(
      `UPDATE ppsr_transactions SET response = $2::json, response_sealed = NULL, response_key_id = NULL
        WHERE request_id = $1`,
      [id, JSON.stringify({ body: answer })],
    );
    const keys = test.gateway.runtime.serverKeys;
    const converted = await convertToCurrentKey(pool, keys);
    expect(converted).toMatchObject({ verifiers: 1, underPreviousKeys: 0, answers: 1 });
    expect(await convertToCurrentKey(pool, keys)).toEqual({
      verifiers: 0,
      underPreviousKeys: 0,
      answers: 0,
      unopenable: 0,
    });
    const stored = await verifierOf(answer.registrationNumber);
    expect(stored.keyIds).toBe(keys.current.id);
    expect(stored.debtorKeyIds).toBe(keys.current.id);
    expect(stored.hash.equals(sha256(pin))).toBe(false);
    const kept = await pool.query(`SELECT t::text AS text FROM ppsr_transactions t WHERE request_id = $1`, [
      id,
    ]);
    expect(kept.rows[0].text).not.toContain(pin);
    const found = await test.call('GET', `/customer-organisation-transactions?request-id=${id}`);
    expect(found.json().transactions[0].response).toEqual(answer);
    const other = await signedInUser(test.gateway);
    const changed = await test.call('PUT', `/financing-statements/${answer.registrationNumber}/discharge`, {
      token: other.token,
      headers: { 'financing-statement-pin': pin },
    });
    expect(changed.statusCode, changed.body).toBe(200);
  });
});

describe('rotating the server secret', () => {
  let rotated: TestGateway | undefined;
  afterAll(async () => rotated?.close());

  const call = (gateway: TestGateway, token: string, path: string, headers: Record<string, string> = {}) =>
    gateway.app.inject({
      method: 'PUT',
      url: `${BASE}${path}`,
      headers: { 'Ocp-Apim-Subscription-Key': test.key, authorization: `Bearer ${token}`, ...headers },
      payload: {},
    });

  it('keeps the previous key verifying until the PIN is rehashed to the current one', async () => {
    // An expiry a year on, which a renewal can move later.
    const expiryDate = new Date(Date.now() + 365 * 86_400_000).toISOString().slice(0, 10);
    const { answer, id } = await register(requestId(), { expiryDate });
    const pin = answer.financingStatementPin;
    const previous = test.gateway.runtime.serverKeys.current.id;
    // A gateway started with the new secret and the old one as previous: its start wraps every verifier
    // and re-seals every answer with the new key.
    rotated = await testGateway({
      urls: test.gateway.urls,
      env: { RSG_SERVER_SECRET: NEW_SECRET, RSG_SERVER_SECRET_PREVIOUS: TEST_SERVER_SECRET },
    });
    const current = rotated.runtime.serverKeys.current.id;
    expect(current).not.toBe(previous);
    expect((await verifierOf(answer.registrationNumber)).keyIds).toBe(`${current} ${previous}`);
    const sealedWith = await pool.query(
      'SELECT response_key_id FROM ppsr_transactions WHERE request_id = $1',
      [id],
    );
    expect(sealedWith.rows[0].response_key_id).toBe(current);

    const other = await signedInUser(test.gateway);
    const path = `/financing-statements/${answer.registrationNumber}/renew`;
    const wrong: LightMyRequestResponse = await call(rotated, other.token, path, {
      'financing-statement-pin': String((Number(pin) + 1) % 1e8).padStart(8, '0'),
    });
    expect(wrong.statusCode).toBe(403);
    const renewed = await call(rotated, other.token, path, { 'financing-statement-pin': pin });
    expect(renewed.statusCode, renewed.body).toBe(200);
    const rehashed = await verifierOf(answer.registrationNumber);
    expect(rehashed.keyIds).toBe(current);
    expect(checkPin(new ServerKeys(NEW_SECRET), pin, rehashed)).toEqual({ matches: true });
    // Rehashed: the previous secret is no longer needed for this statement.
    const newOnly = await testGateway({ urls: test.gateway.urls, env: { RSG_SERVER_SECRET: NEW_SECRET } });
    try {
      const again = await call(
        newOnly,
        other.token,
        `/financing-statements/${answer.registrationNumber}/discharge`,
        { 'financing-statement-pin': pin },
      );
      expect(again.statusCode, again.body).toBe(200);
    } finally {
      await newOnly.close();
    }
  });

  it('`rsg ppsr-server-keys` lists the keys still named, so the operator knows when to drop one', async () => {
    const previous = test.gateway.runtime.serverKeys.current.id;
    const current = rotated!.runtime.serverKeys.current.id;
    const listed = await rsg(['ppsr-server-keys'], {
      urls: test.gateway.urls,
      env: { RSG_SERVER_SECRET: NEW_SECRET, RSG_SERVER_SECRET_PREVIOUS: TEST_SERVER_SECRET },
    });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain(`current key ${current}`);
    expect(listed.stdout).toMatch(new RegExp(`sandbox: key ${current} named \\d+ times \\(current\\)`));
    // The other statements' verifiers are still wrapped over the previous key: it must stay.
    expect(listed.stdout).toMatch(new RegExp(`sandbox: key ${previous} named \\d+ times \\(previous\\)`));
    const dropped = await rsg(['ppsr-server-keys'], {
      urls: test.gateway.urls,
      env: { RSG_SERVER_SECRET: NEW_SECRET },
    });
    expect(dropped.stdout).toContain(`key ${previous} named`);
    expect(dropped.stdout).toContain('NOT CONFIGURED');
  });
});

describe('logs', () => {
  it('hold no PIN, at debug level, after registrations, repeats, lookups and changes with a PIN', async () => {
    const { answer } = await register();
    const other = await signedInUser(test.gateway);
    await test.call('PUT', `/financing-statements/${answer.registrationNumber}/discharge`, {
      token: other.token,
      headers: { 'financing-statement-pin': `${answer.financingStatementPin}x` },
    });
    const log = lines.join('');
    // The request lines that LOG_LEVEL=debug adds are there (the statement's URL among them) …
    expect(log).toContain(answer.registrationNumber);
    // … and no PIN issued in this file is.
    expect(issued.length).toBeGreaterThanOrEqual(10);
    for (const pin of issued) expect(log).not.toContain(pin);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedInUser } from '../../support/oauth.ts';
import { type PpsrTest, ppsrTest, registration } from './support/api.ts';

/**
 * Who reads a whole statement (PPSR_01, PPSR_55): the organisation that registered it, or anyone with
 * its financing statement PIN or its debtor PIN; anyone else gets the answer a statement that does not
 * exist gets, discharged and expired statements alike. Everyone else's way to a statement is a search.
 */
let test: PpsrTest;
let other: string;
beforeAll(async () => {
  test = await ppsrTest();
  other = (await signedInUser(test.gateway)).token;
}, 120_000);
afterAll(async () => test?.close());

interface Registered {
  registrationNumber: string;
  financingStatementPin: string;
  debtorPin: string;
}

async function register(): Promise<Registered> {
  const created = await test.call('POST', '/financing-statements', { body: registration() });
  expect(created.statusCode, created.body).toBe(201);
  return created.json();
}

/** The answer without the registration number it names, to compare with another number's. */
const shape = (response: { statusCode: number; body: string; headers: Record<string, unknown> }) => ({
  status: response.statusCode,
  type: response.headers['content-type'],
  body: response.body.replace(/[A-Z0-9]{16}/g, 'N'),
});

describe('reading a whole statement', () => {
  it('is free to the organisation that registered it, discharged too', async () => {
    const statement = await register();
    const path = `/financing-statements/${statement.registrationNumber}`;
    expect((await test.call('GET', path)).statusCode).toBe(200);
    expect((await test.call('PUT', `${path}/discharge`)).statusCode).toBe(200);
    const discharged = await test.call('GET', path);
    expect(discharged.statusCode).toBe(200);
    expect(discharged.json().status).toBe('Discharged');
    expect((await test.call('GET', `${path}/versions`)).statusCode).toBe(200);
  });

  it('is to another organisation without a PIN as a statement that does not exist', async () => {
    const statement = await register();
    const missing = await test.call('GET', '/financing-statements/FH04R729A8ND9224', { token: other });
    expect(missing.statusCode).toBe(404);
    for (const suffix of ['', '/versions']) {
      const path = `/financing-statements/${statement.registrationNumber}${suffix}`;
      const nothing = await test.call('GET', `/financing-statements/FH04R729A8ND9224${suffix}`, {
        token: other,
      });
      const attempts: Record<string, string>[] = [
        {},
        {
          'Financing-Statement-PIN': String((Number(statement.financingStatementPin) + 1) % 1e8).padStart(
            8,
            '0',
          ),
        },
        { 'Debtor-PIN': String((Number(statement.debtorPin) + 1) % 1e8).padStart(8, '0') },
        // Conditions answer nothing either: no 304 that would betray the statement.
        { 'if-none-match': '*' },
      ];
      for (const headers of attempts) {
        const refused = await test.call('GET', path, { token: other, headers });
        expect(shape(refused), `${suffix} ${JSON.stringify(headers)}`).toEqual(shape(nothing));
        expect(refused.headers.etag).toBeUndefined();
      }
    }
  });

  it('is open to another organisation with its PIN or its debtor PIN, discharged too', async () => {
    const statement = await register();
    const path = `/financing-statements/${statement.registrationNumber}`;
    await test.call('PUT', `${path}/discharge`);
    const pins: Record<string, string>[] = [
      { 'Financing-Statement-PIN': statement.financingStatementPin },
      { 'Debtor-PIN': statement.debtorPin },
    ];
    for (const headers of pins) {
      const read = await test.call('GET', path, { token: other, headers });
      expect(read.statusCode, JSON.stringify(headers)).toBe(200);
      expect(read.json()).toMatchObject({
        registrationNumber: statement.registrationNumber,
        status: 'Discharged',
      });
      const versions = await test.call('GET', `${path}/versions`, { token: other, headers });
      expect(versions.statusCode).toBe(200);
      expect(versions.json().versions).toHaveLength(2);
    }
  });

  it('lets the debtor PIN read, never change', async () => {
    const statement = await register();
    const path = `/financing-statements/${statement.registrationNumber}/discharge`;
    const refused = await test.call('PUT', path, {
      token: other,
      headers: { 'Debtor-PIN': statement.debtorPin },
    });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().type).toBe('about:blank#pin-required');
  });

  it('names a malformed PIN and its rule', async () => {
    const refused = await test.call('GET', '/financing-statements/FH04R729A8ND9224', {
      headers: { 'Debtor-PIN': '12ab' },
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().errors).toEqual([
      { field: 'Debtor-PIN', message: 'must be 8 digits, the debtor PIN' },
    ]);
  });
});

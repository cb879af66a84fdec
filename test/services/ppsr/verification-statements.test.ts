import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedInUser } from '../../support/oauth.ts';
import { type PpsrTest, ppsrTest, registration } from './support/api.ts';

/** Verification statements listed through the API, with the published collateral type names. */
let test: PpsrTest;
beforeAll(async () => {
  test = await ppsrTest();
}, 120_000);
afterAll(async () => test?.close());

describe('verification statements', () => {
  it('are listed as mailed, with published collateral names, to whoever may read the statement', async () => {
    const created = await test.call('POST', '/financing-statements', {
      body: registration({ collaterals: [{ collateralType: 'MONEY' }, { collateralType: 'AAPP' }] }),
    });
    expect(created.statusCode, created.body).toBe(201);
    const { registrationNumber, financingStatementPin } = created.json();
    const path = `/financing-statements/${registrationNumber}/verification-statements`;
    const listed = await test.call('GET', path);
    expect(listed.statusCode, listed.body).toBe(200);
    const [statement, ...others] = listed.json().verificationStatements;
    expect(others).toEqual([]);
    expect(statement).toMatchObject({ version: 1, change: 'Registered', to: 'lender@example.test' });
    expect(statement.text).toContain('Collateral: Money; All Present and After Acquired Personal Property.');
    expect(statement.text).not.toMatch(/MONEY|AAPP/);
    const other = (await signedInUser(test.gateway)).token;
    expect((await test.call('GET', path, { token: other })).statusCode).toBe(404);
    const withPin = await test.call('GET', path, {
      token: other,
      headers: { 'Financing-Statement-PIN': financingStatementPin },
    });
    expect(withPin.statusCode).toBe(200);
  });
});

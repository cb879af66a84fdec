import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE, type PpsrTest, ppsrTest, registration, requestId } from './support/api.ts';

/**
 * The register end to end through the gateway: register, read, amend (If-Match), renew, discharge,
 * versions; searches of every kind with their certificate and free later pages; fees charged once;
 * verification statements queued in the change's transaction.
 */
let test: PpsrTest;
beforeAll(async () => {
  test = await ppsrTest();
}, 120_000);
afterAll(async () => test?.close());

const fees = async () =>
  (await test.call('GET', '/customer-organisation-fees')).json() as {
    totalResults: number;
    fees: { transactionType: string; requestId: string }[];
  };

describe('financing statements', () => {
  it('registers, reads, amends, renews and discharges, each a version', async () => {
    const id = requestId();
    const created = await test.call('POST', '/financing-statements', {
      body: registration({
        debtors: [
          { debtorType: 'organisation', organisationName: test.company.name, nzbn: test.company.nzbn },
          { debtorType: 'person', firstName: 'Mere', lastName: 'Tester', dateOfBirth: '1980-05-17' },
        ],
      }),
      headers: { 'api-business-govt-nz-Request-Id': id },
    });
    expect(created.statusCode, created.body).toBe(201);
    const statement = created.json();
    expect(statement.registrationNumber).toMatch(/^[A-Z0-9]{16}$/);
    expect(statement.version).toBe(1);
    expect(statement.status).toBe('Registered');
    expect(statement.financingStatementPin).toMatch(/^\d{8}$/);
    expect(created.headers.etag).toBe(`"${statement.registrationNumber}.1"`);
    expect(created.headers.location).toBe(`financing-statements/${statement.registrationNumber}`);
    const path = `/financing-statements/${statement.registrationNumber}`;

    const read = await test.call('GET', path);
    expect(read.statusCode).toBe(200);
    expect(read.json().debtors).toHaveLength(2);
    expect(read.json()).not.toHaveProperty('financingStatementPin');
    expect(
      (await test.call('GET', path, { headers: { 'if-none-match': read.headers.etag as string } }))
        .statusCode,
    ).toBe(304);

    const amendment = { ...registration(), collaterals: [{ collateralType: 'AAPP' }] };
    const stale = await test.call('PUT', path, {
      body: amendment,
      headers: { 'if-match': `"${statement.registrationNumber}.9"` },
    });
    expect(stale.statusCode).toBe(412);
    const amended = await test.call('PUT', path, {
      body: amendment,
      headers: { 'if-match': created.headers.etag as string },
    });
    expect(amended.statusCode, amended.body).toBe(200);
    expect(amended.json().version).toBe(2);
    expect(amended.json().collaterals).toEqual([{ collateralType: 'AAPP' }]);

    const renewed = await test.call('PUT', `${path}/renew`, { body: {} });
    // Registered today for five years: a renewal cannot go later than five years from today.
    expect(renewed.statusCode, renewed.body).toBe(400);
    expect(renewed.json().errors[0].field).toBe('expiryDate');

    // The discharge takes no body: one with members is refused, naming it, and changes nothing.
    const withBody = await test.call('PUT', `${path}/discharge`, { body: { reason: 'sold' } });
    expect(withBody.statusCode).toBe(400);
    expect(withBody.json().errors).toEqual([{ field: 'reason', message: 'is not a known field' }]);
    // A member named as sent (a JSON pointer's `~1` and `~0` decoded).
    const oddName = await test.call('PUT', `${path}/discharge`, { body: { 'a/b~c': 1 } });
    expect(oddName.json().errors).toEqual([{ field: 'a/b~c', message: 'is not a known field' }]);
    const discharged = await test.call('PUT', `${path}/discharge`);
    expect(discharged.statusCode, discharged.body).toBe(200);
    expect(discharged.json().status).toBe('Discharged');
    expect(discharged.json().dischargeDate).toBeDefined();
    const again = await test.call('PUT', `${path}/discharge`);
    expect(again.statusCode).toBe(409);
    expect(again.json().type).toBe('about:blank#financing-statement-not-in-force');

    const versions = (await test.call('GET', `${path}/versions`)).json().versions;
    expect(versions.map((v: { change: string }) => v.change)).toEqual([
      'Registered',
      'Amended',
      'Discharged',
    ]);
    expect(versions.map((v: { version: number }) => v.version)).toEqual([1, 2, 3]);

    const queued = await test.gateway.runtime.environments.sandbox.pool.query(
      'SELECT change, "to" FROM ppsr_verification_statements WHERE registration_number = $1 ORDER BY id',
      [statement.registrationNumber],
    );
    expect(queued.rows).toEqual([
      { change: 'Registered', to: 'lender@example.test' },
      { change: 'Amended', to: 'lender@example.test' },
      { change: 'Discharged', to: 'lender@example.test' },
    ]);
    const charged = await fees();
    expect(charged.fees.filter((f) => f.requestId === id).map((f) => f.transactionType)).toEqual(['PPSR_17']);
  });

  it('renews up to five years from today, later than the current expiry, with a fee', async () => {
    const created = (
      await test.call('POST', '/financing-statements', { body: registration({ expiryDate: '2027-01-01' }) })
    ).json();
    const id = requestId();
    const renewed = await test.call('PUT', `/financing-statements/${created.registrationNumber}/renew`, {
      body: {},
      headers: { 'api-business-govt-nz-Request-Id': id },
    });
    expect(renewed.statusCode, renewed.body).toBe(200);
    expect(renewed.json().expiryDate > '2027-01-01').toBe(true);
    expect(renewed.json().version).toBe(2);
    expect((await fees()).fees.filter((f) => f.requestId === id).map((f) => f.transactionType)).toEqual([
      'PPSR_RENEW',
    ]);
  });

  it('refuses a debtor business number the business number register does not hold', async () => {
    const refused = await test.call('POST', '/financing-statements', {
      body: registration({
        debtors: [{ debtorType: 'organisation', organisationName: 'Nobody Ltd', nzbn: '9429000000000' }],
      }),
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().errors[0].field).toMatch(/^debtors\.0\.nzbn$/);
  });

  it('lets another organisation change a statement only with its PIN', async () => {
    const created = (await test.call('POST', '/financing-statements', { body: registration() })).json();
    const path = `/financing-statements/${created.registrationNumber}/discharge`;
    const other = await (await import('../../support/oauth.ts')).signedInUser(test.gateway);
    const refused = await test.call('PUT', path, { token: other.token });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().type).toBe('about:blank#pin-required');
    const allowed = await test.call('PUT', path, {
      token: other.token,
      headers: { 'financing-statement-pin': created.financingStatementPin },
    });
    expect(allowed.statusCode, allowed.body).toBe(200);
  });
});

describe('the published contract: JSON only, dates as preconditions', () => {
  it('answers an Accept without JSON 406 in problem+json, before anything is written', async () => {
    const count = async () =>
      Number(
        (
          await test.gateway.runtime.environments.sandbox.pool.query<{ n: string }>(
            'SELECT count(*) AS n FROM ppsr_financing_statements',
          )
        ).rows[0]!.n,
      );
    const before = await count();
    const registered = await test.call('POST', '/financing-statements', {
      body: registration(),
      headers: { accept: 'application/xml' },
    });
    expect(registered.statusCode).toBe(406);
    expect(registered.headers['content-type']).toContain('application/problem+json');
    expect(registered.json().type).toBe('about:blank#not-acceptable');
    expect(await count()).toBe(before);
    const read = await test.call('GET', '/customer-organisation', { headers: { accept: 'application/xml' } });
    expect(read.statusCode).toBe(406);
  });

  it('refuses an amendment with a past If-Unmodified-Since (412), keeping the version', async () => {
    const created = await test.call('POST', '/financing-statements', { body: registration() });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.headers['last-modified']).toBeDefined();
    const path = `/financing-statements/${created.json().registrationNumber}`;
    const amendment = { ...registration(), collaterals: [{ collateralType: 'AAPP' }] };
    const stale = await test.call('PUT', path, {
      body: amendment,
      headers: { 'if-unmodified-since': 'Sat, 01 Jan 2000 00:00:00 GMT' },
    });
    expect(stale.statusCode, stale.body).toBe(412);
    expect((await test.call('GET', path)).json().version).toBe(1);
    const current = await test.call('PUT', path, {
      body: amendment,
      headers: { 'if-unmodified-since': created.headers['last-modified'] as string },
    });
    expect(current.statusCode, current.body).toBe(200);
    expect(current.json().version).toBe(2);
  });
});

describe('search', () => {
  it('finds by plate, VIN, person, organisation and registration number, with a certificate and free pages', async () => {
    const vin = '1FTFW1E54AFA12345';
    const created = (
      await test.call('POST', '/financing-statements', {
        body: registration({
          debtors: [
            { debtorType: 'organisation', organisationName: test.company.name, nzbn: test.company.nzbn },
            { debtorType: 'person', firstName: 'Hemi', lastName: 'Searchable', dateOfBirth: '1975-01-02' },
          ],
          collaterals: [
            {
              collateralType: 'GOODS_MOTOR_VEHICLES',
              motorVehicles: [{ make: 'Ford', model: 'F-150', year: 2010, vin, registrationPlate: 'SRCH1' }],
            },
          ],
        }),
      })
    ).json();
    const search = async (body: Record<string, unknown>) =>
      test.call('POST', '/financing-statements-search', { body: { legitimateSearchReason: 'yes', ...body } });
    const numbersOf = (response: { json(): { financingStatements: { registrationNumber: string }[] } }) =>
      response.json().financingStatements.map((s) => s.registrationNumber);
    const byPlate = await search({
      searchBy: 'motorVehicle',
      searchByMotorVehicle: { registrationPlate: 'srch 1' },
    });
    expect(byPlate.statusCode, byPlate.body).toBe(200);
    expect(numbersOf(byPlate)).toEqual([created.registrationNumber]);
    expect(byPlate.json().searchCertificateNumber).toMatch(/^SC\d{10}$/);
    expect(numbersOf(await search({ searchBy: 'motorVehicle', searchByMotorVehicle: { vin } }))).toEqual([
      created.registrationNumber,
    ]);
    expect(
      numbersOf(
        await search({
          searchBy: 'debtorPerson',
          searchByDebtorPerson: { firstName: 'hemi', lastName: 'SEARCHABLE', dateOfBirth: '1975-01-02' },
        }),
      ),
    ).toEqual([created.registrationNumber]);
    expect(
      numbersOf(
        await search({
          searchBy: 'debtorPerson',
          searchByDebtorPerson: { firstName: 'Hemi', lastName: 'Searchable', dateOfBirth: '1975-01-03' },
        }),
      ),
    ).toEqual([]);
    const byName = await search({
      searchBy: 'debtorOrganisation',
      searchByDebtorOrganisation: { organisationName: test.company.name.slice(0, 4) },
    });
    expect(numbersOf(byName)).toContain(created.registrationNumber);
    expect(
      numbersOf(
        await search({
          searchBy: 'debtorOrganisation',
          searchByDebtorOrganisation: { nzbn: test.company.nzbn },
        }),
      ),
    ).toContain(created.registrationNumber);
    expect(
      numbersOf(
        await search({
          searchBy: 'registrationNumber',
          searchByRegistrationNumber: { registrationNumber: created.registrationNumber },
        }),
      ),
    ).toEqual([created.registrationNumber]);

    const before = (await fees()).totalResults;
    const page = await search({ searchId: byName.json().searchId, page: 1, pageSize: 1 });
    expect(page.statusCode).toBe(200);
    expect(page.json().searchCertificateNumber).toBe(byName.json().searchCertificateNumber);
    expect((await fees()).totalResults).toBe(before);
    const listed = await test.call('GET', `/financing-statements?search-id=${byName.json().searchId}`);
    expect(listed.statusCode).toBe(200);
    expect(listed.json().totalResults).toBe(byName.json().totalResults);
  });

  it('finds a statement in force until it is discharged, and after a renewal', async () => {
    const plate = (n: string) => ({
      searchBy: 'motorVehicle',
      legitimateSearchReason: 'yes',
      searchByMotorVehicle: { registrationPlate: n },
    });
    const body = registration({
      expiryDate: '2027-02-01',
      collaterals: [
        {
          collateralType: 'GOODS_MOTOR_VEHICLES',
          motorVehicles: [{ make: 'Mazda', model: 'Demio', year: 2012, registrationPlate: 'GONE1' }],
        },
      ],
    });
    const created = (await test.call('POST', '/financing-statements', { body })).json();
    const found = async () =>
      (await test.call('POST', '/financing-statements-search', { body: plate('GONE1') }))
        .json()
        .financingStatements.map(
          (s: { registrationNumber: string; expiryDate: string }) => s.registrationNumber,
        );
    expect(await found()).toEqual([created.registrationNumber]);
    await test.call('PUT', `/financing-statements/${created.registrationNumber}/renew`, { body: {} });
    expect(await found()).toEqual([created.registrationNumber]);
    await test.call('PUT', `/financing-statements/${created.registrationNumber}/discharge`);
    expect(await found()).toEqual([]);
  });

  it('keeps two debtors of one name apart by date of birth', async () => {
    const twins = [
      { debtorType: 'person', firstName: 'Tama', lastName: 'Twin', dateOfBirth: '1990-03-01' },
      { debtorType: 'person', firstName: 'Tama', lastName: 'Twin', dateOfBirth: '1961-07-09' },
    ];
    const created = await test.call('POST', '/financing-statements', {
      body: registration({ debtors: twins }),
    });
    expect(created.statusCode, created.body).toBe(201);
    for (const dateOfBirth of ['1990-03-01', '1961-07-09']) {
      const found = await test.call('POST', '/financing-statements-search', {
        body: {
          searchBy: 'debtorPerson',
          legitimateSearchReason: 'yes',
          searchByDebtorPerson: { firstName: 'Tama', lastName: 'Twin', dateOfBirth },
        },
      });
      expect(
        found.json().financingStatements.map((s: { registrationNumber: string }) => s.registrationNumber),
      ).toEqual([created.json().registrationNumber]);
    }
  });

  it('refuses a search without a legitimate reason, naming the field', async () => {
    const refused = await test.call('POST', '/financing-statements-search', {
      body: { searchBy: 'motorVehicle', searchByMotorVehicle: { vin: '1FTFW1E54AFA12345' } },
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().errors[0].field).toBe('legitimateSearchReason');
  });
});

describe('customer organisation and secured party groups', () => {
  it('reads and updates the organisation, and registers under a group', async () => {
    const organisation = await test.call('GET', '/customer-organisation');
    expect(organisation.statusCode).toBe(200);
    const updated = await test.call('PUT', '/customer-organisation', {
      body: { email: 'ppsr@lender.example.test' },
      headers: { 'if-match': organisation.headers.etag as string },
    });
    expect(updated.statusCode, updated.body).toBe(200);
    expect(updated.json().email).toBe('ppsr@lender.example.test');
    const group = await test.call('POST', '/secured-party-groups', {
      body: {
        name: 'Auto loans',
        email: 'auto@lender.example.test',
        securedParties: [{ name: 'Lender Auto', email: 'auto@lender.example.test' }],
      },
    });
    expect(group.statusCode, group.body).toBe(201);
    const groupId = group.json().securedPartyGroupId;
    expect(groupId).toMatch(/^SPG\d{8}$/);
    const body = registration({ securedPartyGroupId: groupId });
    delete (body as { securedParties?: unknown }).securedParties;
    const created = await test.call('POST', '/financing-statements', { body });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json().securedPartyGroupId).toBe(groupId);
    const ofGroup = await test.call('GET', `/financing-statements?secured-party-group-id=${groupId}`);
    expect(
      ofGroup.json().financingStatements.map((s: { registrationNumber: string }) => s.registrationNumber),
    ).toEqual([created.json().registrationNumber]);
  });

  it('lists the organisation’s statements discharged in a date range, to it only', async () => {
    const created = (await test.call('POST', '/financing-statements', { body: registration() })).json();
    await test.call('PUT', `/financing-statements/${created.registrationNumber}/discharge`);
    const now = test.gateway.runtime.clocks.for('sandbox').now().getTime();
    const today = new Date(now + 86_400_000).toISOString().slice(0, 10);
    const from = new Date(now - 3 * 86_400_000).toISOString().slice(0, 10);
    const listed = await test.call(
      'GET',
      `/discharged-financing-statements?start-date=${from}&end-date=${today}&page-size=100`,
    );
    expect(listed.statusCode, listed.body).toBe(200);
    expect(
      listed.json().financingStatements.map((s: { registrationNumber: string }) => s.registrationNumber),
    ).toContain(created.registrationNumber);
    // Another organisation's list holds its own discharges only: a search is its way to ours.
    const other = await (await import('../../support/oauth.ts')).signedInUser(test.gateway);
    const theirs = await test.call(
      'GET',
      `/discharged-financing-statements?start-date=${from}&end-date=${today}&page-size=100`,
      { token: other.token },
    );
    expect(theirs.statusCode, theirs.body).toBe(200);
    expect(theirs.json()).toMatchObject({ totalResults: 0, financingStatements: [] });
    const tooBig = await test.call(
      'GET',
      `/discharged-financing-statements?start-date=${from}&end-date=${today}&page-size=101`,
    );
    expect(tooBig.statusCode).toBe(400);
    expect(tooBig.json().errors[0].field).toBe('page-size');
  });
});

describe('the base path', () => {
  it('is the published /ppsr/v2', () => expect(BASE).toBe('/sandbox/ppsr/v2'));
});

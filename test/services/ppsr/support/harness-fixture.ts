import { PLATFORM_ERRORS } from '../../../../src/platform/http/error-codes.ts';
import type { ServiceFixture, Values } from '../../../support/service-fixture.ts';
import { ppsrTest, registration } from './api.ts';

/**
 * The secured interests register's fixture for the shared harnesses (test/support/security-matrix.ts,
 * test/support/fuzz-operations.ts). Every operation acts for the caller's organisation, with a key alone
 * (the subscriber's) or a user's token; secured party groups belong to the organisation (another
 * subscriber's key finds none: 404). Each change operation gets a statement of its own, registered with
 * the fixture's key, so a discharge does not end the statement another operation amends.
 */
export const ppsrFixture: ServiceFixture = {
  service: 'ppsr',
  otherService: 'nzbn',
  refusals: { notOwned: PLATFORM_ERRORS.notFound },
  async setup() {
    const t = await ppsrTest({ env: { RSG_PPSR_USER_RATE_LIMIT: '0' } });
    const made = async (path: string, body: unknown) => {
      const response = await t.call('POST', path, { body, token: null });
      if (response.statusCode !== 201) throw new Error(`${path}: ${response.body}`);
      return response.json();
    };
    // Amended, renewed (its expiry is within five years) and discharged, in the document's order.
    const amend = (await made('/financing-statements', registration({ expiryDate: '2027-06-30' })))
      .registrationNumber as string;
    const renew = (await made('/financing-statements', registration({ expiryDate: '2027-06-30' })))
      .registrationNumber as string;
    const discharge = (await made('/financing-statements', registration())).registrationNumber as string;
    const group = (
      await made('/secured-party-groups', {
        name: 'Matrix group',
        email: 'group@example.test',
        securedParties: [{ name: 'Matrix Lender', email: 'matrix@example.test' }],
      })
    ).securedPartyGroupId as string;
    const search = await t.call('POST', '/financing-statements-search', {
      token: null,
      body: {
        searchBy: 'motorVehicle',
        legitimateSearchReason: 'yes',
        searchByMotorVehicle: { registrationPlate: 'ABC123' },
      },
    });
    const searchId = search.json().searchId as string;
    const certificateNumber = search.json().searchCertificateNumber as string;
    const known: Record<string, Values> = {
      registrationNumber: {
        valid: [amend, renew, discharge],
        odd: ['FH04R729A8ND9224', 'fh04', '0'.repeat(16)],
      },
      securedPartyGroupId: { valid: [group], odd: ['SPG00000000', 'SPG'] },
      certificateNumber: { valid: [certificateNumber], odd: ['SC9999999999', 'SC1', 'sc0000000001'] },
      'search-id': { valid: [searchId], odd: ['00000000-0000-0000-0000-000000000000', 'x'] },
      'secured-party-group-id': { valid: [group], odd: ['SPG99999999'] },
      'request-id': { valid: ['abc', searchId], odd: [''] },
      'start-date': { valid: ['2020-01-01', '2026-11-01'], odd: ['2026-02-30', '20260101', ''] },
      'end-date': { valid: ['2030-01-01', '2026-11-30'], odd: ['2026-13-01', 'yesterday'] },
    };
    // A refused write leaves nothing but, once it got as far as the register, its failed transaction
    // (published: statusCode 400, "received but failed"), which SEC_56 then finds.
    const tables = [
      {
        pool: t.gateway.runtime.environments.sandbox.pool,
        prefixes: ['ppsr_'],
        tables: ['fee_records'],
        where: { ppsr_transactions: 't.status_code IS DISTINCT FROM 400' },
      },
    ];
    return {
      gateway: t.gateway,
      owner: t.user,
      tables,
      key: t.key,
      ids: { registrationNumber: amend, securedPartyGroupId: group, certificateNumber },
      values: (name: string) => known[name],
      close: () => t.close(),
    };
  },
  operations: {
    'POST /financing-statements': { body: registration(), write: 'create' },
    'GET /financing-statements': {
      query: ['secured-party-group-id=SPG00000001', 'page=1&page-size=5&secured-party-group-id=SPG00000001'],
    },
    'GET /financing-statements/{registrationNumber}': { etag: true },
    'PUT /financing-statements/{registrationNumber}': {
      body: { ...registration(), collaterals: [{ collateralType: 'AAPP' }] },
    },
    'PUT /financing-statements/{registrationNumber}/renew': { body: {} },
    'PUT /financing-statements/{registrationNumber}/discharge': {},
    'GET /financing-statements/{registrationNumber}/versions': { etag: true },
    'GET /financing-statements/{registrationNumber}/verification-statements': { owned: true },
    'GET /discharged-financing-statements': {
      query: [
        'start-date=2020-01-01&end-date=2030-01-01',
        'start-date=2026-01-01&end-date=2026-12-31&page=2&page-size=10',
      ],
    },
    'POST /financing-statements-search': {
      write: 'action',
      body: {
        searchBy: 'motorVehicle',
        legitimateSearchReason: 'yes',
        searchByMotorVehicle: { registrationPlate: 'ABC123' },
      },
    },
    'GET /customer-organisation': { etag: true },
    'PUT /customer-organisation': { body: { email: 'org@example.test' } },
    'POST /secured-party-groups': {
      write: 'create',
      body: {
        name: 'Group',
        email: 'g@example.test',
        securedParties: [{ name: 'L', email: 'l@example.test' }],
      },
    },
    'GET /secured-party-groups': {},
    'GET /secured-party-groups/{securedPartyGroupId}': { owned: true, etag: true },
    'PUT /secured-party-groups/{securedPartyGroupId}': {
      owned: true,
      body: {
        name: 'Renamed',
        email: 'g@example.test',
        securedParties: [{ name: 'L', email: 'l@example.test' }],
      },
    },
    // Last (the matrix deletes last): the group no statement names.
    'DELETE /secured-party-groups/{securedPartyGroupId}': { owned: true },
    'GET /search-certificates/{certificateNumber}': { owned: true },
    'GET /search-certificates/{certificateNumber}/pdf': { owned: true },
    'GET /customer-organisation-fees': { query: ['page=1&page-size=10', 'fee-status=Unbilled'] },
    'GET /customer-organisation-transactions': { query: ['request-id=abc', 'billing-reference=none'] },
  },
};

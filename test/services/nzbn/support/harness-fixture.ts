import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { addUser } from '../../../../src/identity/operations/users.ts';
import { NZBN_ERRORS } from '../../../../src/services/nzbn/errors.ts';
import type { OperationAccess, ServiceFixture, Values } from '../../../support/service-fixture.ts';
import { FIXTURE, type NzbnTest, nzbnTest } from './api.ts';
import { fieldValues } from './fuzz-values.ts';

/**
 * The business number register's fixture for the shared harnesses (test/support/security-matrix.ts,
 * test/support/fuzz-operations.ts): what each operation of its OpenAPI document needs (writes: a user
 * with business authority over the entity, else 403 FORBIDDEN; watchlists: the subscription or
 * organisation that owns them, else 404 NOT_FOUND), the ids its paths take, a valid body per write; the
 * values the fuzzer draws from for fields whose schema is a bare string are in ./fuzz-values.ts.
 */
const ENTITIES = 300;
const PART = '9429800000019';
const E = FIXTURE.authority;
const author = (body?: unknown, path?: Record<string, string>): OperationAccess => ({
  user: 'authority',
  body,
  ...(path ? { path } : {}),
});
const watchlist = (body?: unknown, owned = true, write?: OperationAccess['write']): OperationAccess => ({
  owned,
  organisation: true,
  body,
  ...(write ? { write } : {}),
});
const watchlistBody = {
  name: 'Matrix',
  channel: 'EMAIL',
  watchlistEmailAddresses: ['m@example.test'],
  changeEventTypes: ['ALL'],
  nzbns: [E],
};
const READS = (
  ' /addresses /roles /trading-names /phone-numbers /email-addresses /websites /industry-classifications' +
  ' /company-details /privacy-settings /business-ethnicity-identifiers /gst-numbers' +
  ' /payment-bank-accounts /trading-areas /discoverable /history /history/addresses /history/entity-names' +
  ' /history/trading-names /history/trading-areas /history/entity-statuses' +
  ' /organisation-parts /organisation-parts/{opn}'
).split(' ');

export const nzbnFixture = (onReady?: (t: NzbnTest) => void): ServiceFixture => ({
  service: 'nzbn',
  otherService: 'market-rent',
  refusals: { noAuthority: NZBN_ERRORS.forbidden, notOwned: NZBN_ERRORS.notFound },
  async setup() {
    const t = await nzbnTest({ entities: ENTITIES });
    for (const nzbn of [FIXTURE.company, FIXTURE.soleTrader, FIXTURE.orgParts])
      await t.grant(t.owner.userId, nzbn);
    const made = async (url: string, payload: unknown, take: string) => {
      const response = await t.call('POST', url, { payload, token: t.owner.token });
      if (response.statusCode !== 201) throw new Error(`${url}: ${response.body}`);
      return String(response.json()[take]);
    };
    const watchlists = [
      await made('/watchlists', watchlistBody, 'watchlistId'),
      await made('/watchlists', watchlistBody, 'watchlistId'),
    ];
    const opns = [
      await made(
        `/entities/${E}/organisation-parts`,
        {
          termsAndConditionsAccepted: true,
          organisationPart: { name: 'Fuzz Depot', function: 'PHYSICAL_LOCATION' },
        },
        'opn',
      ),
      PART,
    ];
    // A role of the entity, for PUT …/roles/{id}.
    const role = await made(
      `/entities/${E}/roles`,
      { roleType: 'Director', rolePerson: { firstName: 'Matrix', lastName: 'Director' } },
      'uniqueIdentifier',
    );
    // Authorities held by other users, for the revocations to find.
    const holders = [];
    for (let i = 0; i < 3; i++) {
      const { email } = await addUser(t.gateway.runtime.gateway.pool, {
        email: `holder-${randomUUID()}@example.test`,
      });
      holders.push(await made(`/entities/${E}/authorities`, { userEmail: email }, 'authorityId'));
    }
    const ids = {
      nzbn: E,
      opn: PART,
      watchlistId: watchlists[0]!,
      authorityId: holders[0]!,
      id: role,
      userEmail: t.owner.email,
    };
    const tables = [
      // The register's tables and the fee ledger (an organisation part beyond the second is charged).
      { pool: t.gateway.runtime.environments.sandbox.pool, prefixes: ['nzbn_'], tables: ['fee_records'] },
      { pool: t.gateway.runtime.gateway.pool, tables: ['authorities'] },
    ];
    const known: Record<string, Values> = {
      opn: { valid: opns, odd: ['9429000000000', '1'] },
      id: { valid: [role], odd: ['42', 'x'] },
      watchlistId: fc.oneof(
        { weight: 3, arbitrary: fc.constantFrom(...watchlists) },
        fc.integer({ min: 1, max: 2_147_483_647 }).map(String),
        fc.uuid(),
      ),
      authorityId: fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...holders) }, fc.uuid()),
    };
    const values = (name: string): Values | undefined => {
      return known[name] ?? fieldValues(name);
    };
    onReady?.(t);
    return {
      gateway: t.gateway,
      owner: t.owner,
      stranger: t.stranger,
      key: t.key,
      ids,
      tables,
      values,
      close: () => t.close(),
    };
  },
  operations: {
    'GET /entities': { query: 'search-term=sandbox' },
    'POST /entities': {
      user: 'any',
      body: { entityTypeCode: 'Sole_Trader', entityName: 'Matrix Trader' },
      write: 'create',
    },
    'GET /entities/changes': {
      query: ['change-event-type=ALL', 'change-event-type=NEW&start-date=2024-01-01'],
    },
    'GET /entities/organisation-parts': { query: 'search-term=sandbox' },
    // Every read of one entity answers with an ETag (conformance.ts then requires it and its 304s).
    ...Object.fromEntries(
      READS.map((path) => [
        `GET /entities/{nzbn}${path}`,
        {
          path: { nzbn: FIXTURE.orgParts },
          etag: true,
          ...(path.endsWith('/addresses') ? { query: 'address-type=ALL' } : {}),
        },
      ]),
    ),
    'GET /entities/{nzbn}/non-company-details': { path: { nzbn: FIXTURE.soleTrader }, etag: true },
    // Answers 201, the published status of this read (its ETag and 304 are checked in read.test.ts).
    'GET /entities/{nzbn}/history/hibernation-statuses': { path: { nzbn: FIXTURE.orgParts } },
    'POST /entities/{nzbn}/addresses': author({ addressType: 'OFFICE', address1: '1 Main Road' }),
    'POST /entities/{nzbn}/roles': author({
      roleType: 'Shareholder',
      roleEntity: { nzbn: FIXTURE.company, entityName: 'MATRIX HOLDINGS' },
    }),
    'PUT /entities/{nzbn}/roles/{id}': author({
      roleType: 'Director',
      rolePerson: { firstName: 'M', lastName: 'D' },
    }),
    'POST /entities/{nzbn}/trading-names': author([{ name: 'Matrix Trading' }]),
    'POST /entities/{nzbn}/phone-numbers': author([{ phoneNumber: '5551234' }]),
    'POST /entities/{nzbn}/email-addresses': author([{ emailAddress: 'a@b.example' }]),
    'POST /entities/{nzbn}/websites': author([{ url: 'https://b.example' }]),
    'POST /entities/{nzbn}/industry-classifications': author([{ classificationCode: 'C121220' }]),
    'PUT /entities/{nzbn}/privacy-settings': author({ phonePrivateInformation: true }),
    'POST /entities/{nzbn}/business-ethnicity-identifiers': author([
      { ethnicity: 'MAORI', identifyingFactors: [{ identifyingFactor: 'OWNERSHIP_50_PERCENT_OR_MORE' }] },
    ]),
    'POST /entities/{nzbn}/payment-bank-accounts': author([
      { bankId: '01', bankBranch: '0902', accountBase: '0068389', accountSuffix: '00' },
    ]),
    'POST /entities/{nzbn}/gst-numbers': author([{ gstNumber: '49091850' }]),
    'POST /entities/{nzbn}/trading-areas': author([{ tradingArea: 'Otago' }]),
    'POST /entities/{nzbn}/action-update-australian-business-numbers': author({
      australianBusinessNumber: null,
    }),
    'POST /entities/{nzbn}/statuses': author({ entityStatusCode: '90' }, { nzbn: FIXTURE.soleTrader }),
    'GET /entities/{nzbn}/authorities': author(),
    'POST /entities/{nzbn}/authorities': {
      ...author((ids: Record<string, string>) => ({ userEmail: ids.userEmail })),
      write: 'create',
    },
    'DELETE /entities/{nzbn}/authorities/{authorityId}': author(),
    'POST /entities/{nzbn}/organisation-parts': {
      ...author({ termsAndConditionsAccepted: true, organisationPart: { name: 'Matrix Depot' } }),
      write: 'create',
    },
    'PUT /entities/{nzbn}/organisation-parts/{opn}': author(
      { name: 'Taken Over' },
      { nzbn: FIXTURE.orgParts },
    ),
    'GET /entities/{nzbn}/organisation-parts-allocation': { ...author(), etag: true },
    'GET /watchlists': watchlist(undefined, false),
    'POST /watchlists': watchlist(watchlistBody, false, 'create'),
    'GET /watchlists/{watchlistId}': { ...watchlist(), etag: true },
    'PUT /watchlists/{watchlistId}': watchlist({ name: 'Renamed' }),
    'GET /watchlists/{watchlistId}/nzbns': { ...watchlist(), etag: true },
    'POST /watchlists/{watchlistId}/action-append-nzbns': watchlist({ nzbns: [FIXTURE.company] }),
    'POST /watchlists/{watchlistId}/action-delete-nzbns': watchlist({ nzbns: [FIXTURE.company] }),
    'POST /watchlists/{watchlistId}/action-send-test-notification': watchlist(
      { text: 'Matrix' },
      true,
      'action',
    ),
    'DELETE /watchlists/{watchlistId}': watchlist(),
  },
});

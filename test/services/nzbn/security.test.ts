import { randomUUID } from 'node:crypto';
import { NZBN_ERRORS } from '../../../src/platform/http/error-codes.ts';
import { type OperationAccess, securityMatrix } from '../../support/security-matrix.ts';
import { FIXTURE, nzbnTest } from './support/api.ts';

/**
 * The business number register in the shared security matrix (test/support/security-matrix.ts): every
 * operation of its OpenAPI document refused without a key, with a malformed key, another environment's
 * or another service's key; the writes also without a user's token, with an application's token, and
 * for a user without business authority (403 FORBIDDEN); watchlists for another subscriber (404
 * NOT_FOUND) or another organisation.
 */
const E = FIXTURE.authority;
const author = (body?: unknown, path?: Record<string, string>): OperationAccess => ({
  user: 'authority',
  body,
  ...(path ? { path } : {}),
});
const watchlist = (body?: unknown, owned = true): OperationAccess => ({ owned, organisation: true, body });
const watchlistBody = {
  name: 'Matrix',
  channel: 'EMAIL',
  watchlistEmailAddresses: ['m@example.test'],
  changeEventTypes: ['ALL'],
  nzbns: [E],
};
const READS = (
  ' /addresses /roles /trading-names /phone-numbers /email-addresses /websites /industry-classifications' +
  ' /company-details /non-company-details /privacy-settings /business-ethnicity-identifiers /gst-numbers' +
  ' /payment-bank-accounts /trading-areas /discoverable /history /history/addresses /history/entity-names' +
  ' /history/trading-names /history/trading-areas /history/entity-statuses /history/hibernation-statuses' +
  ' /organisation-parts /organisation-parts/{opn}'
).split(' ');

securityMatrix({
  service: 'nzbn',
  otherService: 'market-rent',
  refusals: { noAuthority: NZBN_ERRORS.forbidden, notOwned: NZBN_ERRORS.notFound },
  async setup() {
    const t = await nzbnTest();
    await t.grant(t.owner.userId, FIXTURE.soleTrader);
    await t.grant(t.owner.userId, FIXTURE.orgParts);
    const made = await t.call('POST', '/watchlists', { payload: watchlistBody });
    if (made.statusCode !== 201) throw new Error(made.body);
    const ids = {
      nzbn: E,
      opn: '9429800000019',
      watchlistId: made.json().watchlistId,
      authorityId: randomUUID(),
    };
    const tables = [
      { pool: t.gateway.runtime.environments.sandbox.pool, prefixes: ['nzbn_'] },
      { pool: t.gateway.runtime.gateway.pool, tables: ['authorities'] },
    ];
    return { gateway: t.gateway, owner: t.owner, key: t.key, ids, tables, close: () => t.close() };
  },
  operations: {
    'GET /entities': { query: 'search-term=sandbox' },
    'POST /entities': { user: 'any', body: { entityTypeCode: 'Sole_Trader', entityName: 'Matrix Trader' } },
    'GET /entities/changes': 'public',
    'GET /entities/organisation-parts': { query: 'name=sandbox' },
    ...Object.fromEntries(
      READS.map((path) => [`GET /entities/{nzbn}${path}`, { path: { nzbn: FIXTURE.orgParts } }]),
    ),
    'POST /entities/{nzbn}/addresses': author({ addressType: 'OFFICE', address1: '1 Main Road' }),
    'PUT /entities/{nzbn}/roles': author([]),
    'POST /entities/{nzbn}/trading-names': author({ name: 'Matrix Trading' }),
    'POST /entities/{nzbn}/phone-numbers': author({ phoneNumber: '5551234' }),
    'POST /entities/{nzbn}/email-addresses': author({ emailAddress: 'a@b.example' }),
    'POST /entities/{nzbn}/websites': author({ url: 'https://b.example' }),
    'POST /entities/{nzbn}/industry-classifications': author({ classificationCode: 'C121220' }),
    'PUT /entities/{nzbn}/privacy-settings': author({ phonePrivateInformation: true }),
    'POST /entities/{nzbn}/business-ethnicity-identifiers': author({
      ethnicity: 'PASIFIKA',
      identifyingFactors: [{ identifyingFactor: 'OWNERSHIP' }],
    }),
    'POST /entities/{nzbn}/payment-bank-accounts': author({ bankAccountNumber: '01-0902-0068389-00' }),
    'POST /entities/{nzbn}/gst-numbers': author({ gstNumber: '49091850' }),
    'POST /entities/{nzbn}/trading-areas': author({ tradingArea: 'Otago' }),
    'PUT /entities/{nzbn}/australian-business-number': author({ australianBusinessNumber: null }),
    'POST /entities/{nzbn}/entity-statuses': author({ entityStatusCode: '90' }, { nzbn: FIXTURE.soleTrader }),
    'GET /entities/{nzbn}/authorities': author(),
    'POST /entities/{nzbn}/authorities': author({ userEmail: 'someone@example.test' }),
    'DELETE /entities/{nzbn}/authorities/{authorityId}': author(),
    'POST /entities/{nzbn}/organisation-parts': author({ name: 'Matrix Depot' }),
    'PUT /entities/{nzbn}/organisation-parts/{opn}': author(
      { name: 'Taken Over' },
      { nzbn: FIXTURE.orgParts },
    ),
    'GET /entities/{nzbn}/organisation-parts/allocation': author(),
    'GET /watchlists': watchlist(undefined, false),
    'POST /watchlists': watchlist(watchlistBody, false),
    'GET /watchlists/{watchlistId}': watchlist(),
    'PUT /watchlists/{watchlistId}': watchlist({ name: 'Renamed' }),
    'GET /watchlists/{watchlistId}/nzbns': watchlist(),
    'POST /watchlists/{watchlistId}/nzbns': watchlist({ nzbns: [FIXTURE.company] }),
    'DELETE /watchlists/{watchlistId}/nzbns': watchlist({ nzbns: [FIXTURE.company] }),
    'DELETE /watchlists/{watchlistId}': watchlist(),
  },
});

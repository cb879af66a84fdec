import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { addUser } from '../../../../src/identity/operations/users.ts';
import { outboxEntries } from '../../../../src/platform/store/mail-outbox.ts';
import { NZBN_ERRORS } from '../../../../src/services/nzbn/errors.ts';
import { signedInUser } from '../../../support/oauth.ts';
import type { OperationAccess, ServiceFixture, Values } from '../../../support/service-fixture.ts';
import { FIXTURE, type NzbnTest, nzbnTest } from './api.ts';
import { partRequest } from './bodies.ts';
import { fieldValues } from './fuzz-values.ts';
import { MULTIPART, multipartBody, pdf } from './multipart.ts';

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
/**
 * The part whose items the item operations act on (made in setup, with one item in each list; shared
 * with one entity), and each list's item: filled in by `setup`, read when an operation is called.
 */
const itemPart: Record<string, string> = {};
const itemOf = (list: string): Record<string, string> => {
  itemPath[list] ??= {};
  return itemPath[list];
};
const itemPath: Record<string, Record<string, string>> = {};
const ITEM_LISTS = {
  addresses: { field: 'addresses', body: { addressType: 'PHYSICAL', address1: '3 Matrix Lane' } },
  'phone-numbers': { field: 'phoneNumbers', body: { phoneAreaCode: '4', phoneNumber: '4990001' } },
  'email-addresses': { field: 'emailAddresses', body: { emailAddress: 'matrix@part.example' } },
  'custom-data': { field: 'custom-data', body: { key: 'matrix', value: '1' } },
  purpose: { field: 'purposes', body: { purpose: 'OTHER', purposeDescription: 'Matrix' } },
} as const;
/** A unique body for each addition (a part refuses a second item the same). */
let itemsAdded = 0;
const addition = (list: keyof typeof ITEM_LISTS) => () => {
  const n = ++itemsAdded;
  switch (list) {
    case 'addresses':
      return { addressType: 'DELIVERY', address1: `${n} Matrix Quay` };
    case 'phone-numbers':
      return { phoneAreaCode: '4', phoneNumber: String(4_991_000 + n) };
    case 'email-addresses':
      return { emailAddress: `matrix-${n}@part.example` };
    case 'custom-data':
      return { key: `matrix-${n}`, value: String(n) };
    default:
      return { purpose: 'OTHER', purposeDescription: `Matrix ${n}` };
  }
};
/** The operations on one list of the part's items (addresses have no published PUT). */
const itemOperations = (list: keyof typeof ITEM_LISTS): Record<string, OperationAccess> => {
  const base = `/entities/{nzbn}/organisation-parts/{opn}/${list}`;
  const changed = { ...ITEM_LISTS[list].body, ...(list === 'custom-data' ? { value: '2' } : {}) };
  return {
    [`POST ${base}`]: { user: 'authority', path: itemPart, body: addition(list) },
    ...(list === 'addresses'
      ? {}
      : { [`PUT ${base}/{uid}`]: { user: 'authority', path: itemOf(list), body: changed } }),
    [`DELETE ${base}/{uid}`]: { user: 'authority', path: itemOf(list) },
  };
};

/** Users a grant names, and activation codes of invitations to the owner: a new one each call (the last again once they run out). */
const grantees: string[] = [];
const codes: string[] = [];
const next = (list: string[]) => (list.length > 1 ? list.shift()! : list[0]!);
let invitee = 0;
/**
 * The address `DELETE …/addresses/{id}` removes, made by the setup: read when the harness fills the path
 * (the role of `PUT …/roles/{id}` is the subject's `id`).
 */
let address = '';
const madeAddress = {
  nzbn: E,
  get id() {
    return address;
  },
};

/** Organisations made by another user, each inviting `email`: the activation codes their mails give. */
export async function invitationsOf(t: NzbnTest, email: string, count: number): Promise<string[]> {
  const inviter = await signedInUser(t.gateway);
  const found: string[] = [];
  for (let i = 0; i < count; i++) {
    const organisation = await t.call('POST', '/organisations', {
      token: inviter.token,
      payload: { name: `Inviter ${i}` },
    });
    await t.call('POST', `/organisations/${organisation.json().organisationId}/organisationUsers`, {
      token: inviter.token,
      payload: { email: { emailAddress: email } },
    });
  }
  const mails = await outboxEntries(t.gateway.runtime.gateway.pool, count, email);
  for (const mail of mails) found.push(/Activation code: (\S+)/.exec(mail.text)![1]!);
  return found;
}

/** A request by the owner's entity for access to the private part of the test case with parts. */
const PRIVATE_PART = '9429800000026';
const ACCESS_REQUEST = { opn: PRIVATE_PART, requestingNzbn: E };
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
    // Test files may share this module: what an earlier setup left names another database's rows.
    grantees.length = 0;
    codes.length = 0;
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
        partRequest({ name: 'Fuzz Depot', function: 'PHYSICAL_LOCATION' }),
        'opn',
      ),
      PART,
    ];
    // A part with one item in each list, shared with one entity, for the operations on its items.
    const itemOpn = await made(
      `/entities/${E}/organisation-parts`,
      partRequest({
        name: 'Matrix Items',
        privacy: 'SHARED',
        'nzbn-list': [FIXTURE.soleTrader],
        ...Object.fromEntries(Object.values(ITEM_LISTS).map(({ field, body }) => [field, [body]])),
      }),
      'opn',
    );
    Object.assign(itemPart, { nzbn: E, opn: itemOpn });
    const itemPartRead = await t.call('GET', `/entities/${E}/organisation-parts/${itemOpn}`, {
      token: t.owner.token,
    });
    const uids: string[] = [];
    for (const [list, { field }] of Object.entries(ITEM_LISTS)) {
      const uid = itemPartRead.json()[field][0].uniqueIdentifier as string;
      Object.assign(itemOf(list), { nzbn: E, opn: itemOpn, uid });
      uids.push(uid);
    }
    // A purchase (a part beyond the test case's three) and a request for access to its private part.
    const bought = await t.call('POST', `/entities/${FIXTURE.orgParts}/organisation-parts`, {
      token: t.owner.token,
      payload: partRequest({ name: 'Matrix Purchase' }),
    });
    const purchase = /organisation-parts-purchase\/([0-9a-f-]+)>/.exec(String(bought.headers.link))?.[1];
    if (!purchase) throw new Error(`no purchase: ${bought.body}`);
    await made('/entities/organisation-parts/action-request-access', ACCESS_REQUEST, 'requestStatus');
    // A role of the entity, for PUT …/roles/{id}.
    const role = await made(
      `/entities/${E}/roles`,
      { roleType: 'Director', rolePerson: { firstName: 'Matrix', lastName: 'Director' } },
      'uniqueIdentifier',
    );
    // An address of the entity, for DELETE …/addresses/{id}.
    address = await made(
      `/entities/${E}/addresses`,
      { addressType: 'DELIVERY', address1: '1 Matrix Lane', address3: 'Wellington' },
      'uniqueIdentifier',
    );
    // Authorities held by other users, for the revocations to find; users a grant may name.
    const holders = [];
    for (let i = 0; i < 3; i++) {
      const { id } = await addUser(t.gateway.runtime.gateway.pool, {
        email: `holder-${randomUUID()}@example.test`,
      });
      holders.push(await made('/authorities', { nzbn: E, userId: id, approvalType: 'USER' }, 'authorityId'));
    }
    for (let i = 0; i < 12; i++) {
      const { id } = await addUser(t.gateway.runtime.gateway.pool, {
        email: `grantee-${randomUUID()}@example.test`,
      });
      grantees.push(id);
    }
    // An organisation the owner administers, with an invitation in it; invitations of the owner to
    // organisations of others, for the activations.
    const organisation = await made('/organisations', { name: 'Matrix Organisation' }, 'organisationId');
    const invited = await made(
      `/organisations/${organisation}/organisationUsers`,
      { email: { emailAddress: `invited-${randomUUID()}@example.test` } },
      'organisationUserId',
    );
    codes.push(...(await invitationsOf(t, t.owner.email, 12)));
    const ids = {
      nzbn: E,
      opn: PART,
      watchlistId: watchlists[0]!,
      authorityId: holders[0]!,
      id: role,
      userId: t.owner.userId,
      organisationId: organisation,
      organisationUserId: invited,
      gln: PART,
      transaction_id: purchase,
      requestingNzbn: E,
    };
    const tables = [
      // The register's tables and the fee ledger (an organisation part beyond the second is charged).
      { pool: t.gateway.runtime.environments.sandbox.pool, prefixes: ['nzbn_'], tables: ['fee_records'] },
      { pool: t.gateway.runtime.gateway.pool, tables: ['authorities'] },
    ];
    const known: Record<string, Values> = {
      opn: { valid: opns, odd: ['9429000000000', '1'] },
      id: { valid: [role], odd: ['42', 'x'] },
      uid: { valid: uids, odd: ['42', 'x', '9000000101'] },
      watchlistId: fc.oneof(
        { weight: 3, arbitrary: fc.constantFrom(...watchlists) },
        fc.integer({ min: 1, max: 2_147_483_647 }).map(String),
        fc.uuid(),
      ),
      authorityId: fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...holders) }, fc.uuid()),
      userId: { valid: [t.owner.userId], odd: ['x', '00000000-0000-0000-0000-000000000000'] },
      organisationId: { valid: [organisation], odd: ['no-such-organisation', 'sandbox-x'] },
      organisationUserId: { valid: [invited], odd: ['x', '00000000-0000-0000-0000-000000000000'] },
      activationCode: { valid: [...codes], odd: ['', 'no-such-code'] },
      transaction_id: fc.oneof({ weight: 3, arbitrary: fc.constant(purchase) }, fc.uuid(), fc.string()),
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
    'GET /authorities': { user: 'any', query: `nzbn=${E}&historic=true&authority-status=ACCEPTED,PENDING` },
    'POST /authorities': {
      ...author(() => ({ nzbn: E, userId: next(grantees), approvalType: 'USER' })),
      write: 'create',
    },
    'PUT /authorities/{authorityId}': author({ AuthorityStatus: 'REVOKED' }),
    'GET /users': { user: 'any' },
    'POST /users': { user: 'any', body: { acceptTerms: true, firstName: 'Matrix' }, write: 'create' },
    'GET /users/{userId}': author(),
    'PUT /users/{userId}': author({ firstName: 'Matrix', phone: { areaCode: '4', number: '4991234' } }),
    'GET /organisations': { user: 'any' },
    'POST /organisations': { user: 'any', body: { name: 'Matrix Made' }, write: 'create' },
    'POST /organisations/activateOrganisationUser': {
      ...author(() => ({ activationCode: next(codes) })),
      write: 'create',
    },
    'GET /organisations/{organisationId}': author(),
    'PUT /organisations/{organisationId}': author({ name: 'Matrix Organisation', categoryCode: 'ACC' }),
    'GET /organisations/{organisationId}/organisationUsers': author(),
    'POST /organisations/{organisationId}/organisationUsers': {
      ...author(() => ({ email: { emailAddress: `matrix-${invitee++}-${randomUUID()}@example.test` } })),
      write: 'create',
    },
    'GET /organisations/{organisationId}/organisationUsers/{organisationUserId}': author(),
    'PUT /organisations/{organisationId}/organisationUsers/{organisationUserId}': author({
      firstName: 'Matrix',
    }),
    'DELETE /organisations/{organisationId}/organisationUsers/{organisationUserId}': author(),
    'POST /entities/{nzbn}/organisation-parts': {
      ...author(partRequest({ name: 'Matrix Depot' })),
      write: 'create',
    },
    'PUT /entities/{nzbn}/organisation-parts/{opn}': author(
      { name: 'Taken Over' },
      { nzbn: FIXTURE.orgParts },
    ),
    'GET /entities/{nzbn}/organisation-parts-allocation': { ...author(), etag: true },
    ...itemOperations('addresses'),
    ...itemOperations('phone-numbers'),
    ...itemOperations('email-addresses'),
    ...itemOperations('custom-data'),
    ...itemOperations('purpose'),
    'POST /entities/{nzbn}/organisation-parts/{opn}/action-append-nzbns': {
      user: 'authority',
      path: itemPart,
      body: { nzbns: [FIXTURE.company] },
    },
    'POST /entities/{nzbn}/organisation-parts/{opn}/action-delete-nzbns': {
      user: 'authority',
      path: itemPart,
      body: { nzbns: [FIXTURE.company] },
    },
    'GET /entities/organisation-parts/gln/{gln}': { etag: true },
    // The purchase the setup made with the subscription's key: another subscriber's finds nothing.
    'GET /entities/organisation-parts-purchase/{transaction_id}': {
      owned: true,
      organisation: true,
      etag: true,
    },
    'POST /entities/organisation-parts/action-request-access': { ...author(ACCESS_REQUEST), write: 'create' },
    // Ours: the owner's side of access requests.
    'GET /entities/{nzbn}/organisation-parts-access-requests': {
      ...author(undefined, { nzbn: FIXTURE.orgParts }),
      etag: true,
    },
    'PUT /entities/{nzbn}/organisation-parts/{opn}/access-requests/{requestingNzbn}': author(
      { requestStatus: 'APPROVED' },
      { nzbn: FIXTURE.orgParts, opn: PRIVATE_PART, requestingNzbn: E },
    ),
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
    // Last, so the fuzzer's seed of every operation above stays what it was (its index).
    'DELETE /entities/{nzbn}/addresses/{id}': author(undefined, madeAddress),
    'GET /entities/{nzbn}/filings': { path: { nzbn: FIXTURE.company } },
    // The uploads take multipart bodies: sent as they are (test/support/operation-calls.ts).
    'POST /documents': {
      user: 'any',
      body: multipartBody({ documentType: 'LETTER' }, pdf('Matrix letter')),
      headers: MULTIPART,
      write: 'create',
    },
    'POST /companies-document-upload': {
      ...author(multipartBody({ nzbn: E, documentType: 'BDHNOTICE' }, pdf('Matrix notice'))),
      headers: MULTIPART,
      write: 'create',
    },
  },
});

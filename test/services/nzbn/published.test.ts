import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateProduct } from '../../../src/gateway/store/products.ts';
import {
  type OperationCode,
  SERVED_OPERATIONS,
  UNPUBLISHED_PATHS,
} from '../../../src/services/nzbn/routes/published.ts';
import { REPLACED } from '../../../src/services/nzbn/schemas/replaced.ts';
import { signedInUser } from '../../support/oauth.ts';
import { FIXTURE, type NzbnTest, nzbnTest } from './support/api.ts';
import { partRequest } from './support/bodies.ts';
import { invitationsOf } from './support/harness-fixture.ts';
import { MULTIPART, multipartBody, pdf } from './support/multipart.ts';
import { OpenApi } from './support/openapi.ts';
import {
  type CheckOptions,
  loadDefinition,
  type PublishedOperation,
  publishedProblems,
} from './support/published.ts';

/**
 * The business number register against its published v5 definition (reference-data/nzbn/v5-operations.md):
 * our OpenAPI document has no operation the definition does not, each at its published method and path with its published operation id and code,
 * parameters and statuses; and every operation we serve answers its success in the published schema, a
 * bad input with 400 naming the field, the 401 and 403 its status list names, and 404 where it names one.
 */
const definition = loadDefinition();
const published = new Map(definition.operations.map((operation) => [operation.code, operation]));
const byRoute = new Map(
  definition.operations.map((operation) => [`${operation.method} ${operation.path}`, operation]),
);

/** Query parameters of ours beyond the published ones: the spelling one public client sends (nzbn.md). */
const OTHER_SPELLINGS: Readonly<Record<string, readonly string[]>> = {
  NZBN_001_2: ['start-date', 'end-date'],
};

/** Statuses the definition lists that nothing of ours answers (documenting them would mislead). */
const NEVER_ANSWERED: Readonly<Record<string, readonly number[]>> = {
  // A search answers a page, empty when nothing matches: never 304 or 404.
  OP001: [304, 404],
  // A registration makes a new entity: nothing to be missing or to hold a precondition against.
  NZBN_003: [404, 412],
  // A new watchlist's business numbers unknown to the register are a 400 naming them.
  NZBN_009: [404],
  // A replace changes the part, or is refused: never "not modified".
  OP006: [304],
  // The same for a change of one of its items.
  OP010: [304],
  OP013: [304],
  OP016: [304],
  OP021: [304],
};

/** Fields of ours the published schemas do not name, kept because clients read them (reference/nzbn.md). */
const ADDITIONS = new Set([
  'FullEntity.classifications',
  'Website.websitePurposeDescription',
  'BusinessEthnicityIdentifier.startDate',
  // The Standard Webhooks secret, in the answer to POST /watchlists only.
  'Watchlist.webhookSecret',
]);

/** Published types and values we answer differently, each with why. */
const DEVIATIONS = new Map([
  [
    'Watchlist.wildcard',
    'PUBLIC_SECTOR is refused: the specification says not all business types can be used in watchlists, and public sector entities have no source register to report changes',
  ],
]);

/** Operations whose success answer is another published schema than the one the table names, with why. */
const ANSWERED_AS: Readonly<Record<string, string>> = {
  // The registered entity as GET /entities/{nzbn} answers it, not the PostableEntity sent.
  NZBN_003: 'FullEntity',
};

const CHECK: CheckOptions = { additions: ADDITIONS, deviations: DEVIATIONS };

let t: NzbnTest;
let api: OpenApi;
beforeAll(async () => {
  t = await nzbnTest({ entities: 200 });
  // Several hundred calls in a few seconds: above the sandbox product's rate limit.
  await updateProduct(t.gateway.runtime.gateway.pool, 'sandbox-nzbn', { rateLimitPerMinute: 1_000_000 });
  api = await OpenApi.load(t);
  for (const nzbn of [FIXTURE.soleTrader, FIXTURE.orgParts]) await t.grant(t.owner.userId, nzbn);
});
afterAll(() => t?.close());

type DocumentOperation = {
  operationId?: string;
  'x-operation-code'?: string;
  parameters?: { in: string; name: string; required?: boolean }[];
  responses: Record<string, unknown>;
};
const documented = () =>
  Object.entries(api.document.paths).flatMap(([path, methods]) =>
    Object.entries(methods)
      .filter(([method]) => ['get', 'post', 'put', 'delete', 'patch'].includes(method))
      .map(([method, operation]) => ({
        path,
        method: method.toUpperCase(),
        operation: operation as unknown as DocumentOperation,
      })),
  );

describe('the definition', () => {
  it('is read whole: its 96 operations and every schema they name', () => {
    expect(definition.operations).toHaveLength(96);
    for (const operation of definition.operations) {
      for (const response of operation.responses) {
        const name = response.schema?.replace(/^array of /, '');
        if (name) expect(definition.schemas.has(name), `${operation.code} ${name}`).toBe(true);
      }
    }
  });

  it('names each operation we serve as routes/published.ts does', () => {
    for (const [code, [method, path, operationId]] of Object.entries(SERVED_OPERATIONS)) {
      expect(published.get(code), code).toMatchObject({ method, path, operationId });
    }
  });
});

describe('the check of an answer against a published schema', () => {
  it('finds a missing field, a field of ours, a wrong type and a value outside the published ones', () => {
    const ref = (name: string) => ({ kind: 'ref' as const, name });
    const account = { uniqueIdentifier: '1', bankAccountNumber: '01-0902-0068389-00', startDate: 'x' };
    expect(publishedProblems(definition, ref('PaymentBankAccountNumber'), account)).toEqual(
      expect.arrayContaining([
        '.bankId: missing (PaymentBankAccountNumber.bankId)',
        '.bankAccountNumber: not a field of PaymentBankAccountNumber',
      ]),
    );
    expect(
      publishedProblems(definition, ref('GlnAllocationSummary'), {
        nzbnGlnsAllocated: '1',
        nzbnGlnsRemaining: 1,
      }),
    ).toEqual(['.nzbnGlnsAllocated: not an integer']);
    const part = { purpose: 'INVOICING', uniqueIdentifier: '1', purposeDescription: null };
    expect(publishedProblems(definition, ref('OrganisationPartPurpose'), part)).toEqual([
      '.purpose: "INVOICING" not one of E_INVOICING,OTHER,LOCATIONARRIVAL',
    ]);
    // The service answers null for an absent value, but not for a required one.
    const address = {
      ...Object.fromEntries(
        [
          'careOf',
          'address1',
          'address2',
          'address3',
          'address4',
          'postCode',
          'countryCode',
          'addressType',
          'pafId',
          'endDate',
        ].map((k) => [k, null]),
      ),
      uniqueIdentifier: null,
      startDate: 'x',
    };
    expect(publishedProblems(definition, ref('Address'), address)).toEqual([
      '.uniqueIdentifier: required (Address.uniqueIdentifier)',
    ]);
  });
});

describe('our OpenAPI document against the definition', () => {
  it('has no operation the definition does not but the owner’s side of access requests, marked ours', () => {
    const unknown = documented().filter(({ method, path }) => !byRoute.has(`${method} ${path}`));
    expect([...new Set(unknown.map(({ path }) => path))].sort()).toEqual([...UNPUBLISHED_PATHS].sort());
    expect(unknown.map(({ method, path }) => `${method} ${path}`).sort()).toEqual([
      'GET /entities/{nzbn}/organisation-parts-access-requests',
      'PUT /entities/{nzbn}/organisation-parts/{opn}/access-requests/{requestingNzbn}',
    ]);
    for (const { path, operation } of unknown) {
      const marked = operation as DocumentOperation & { 'x-ours'?: boolean; tags?: string[] };
      expect(marked['x-ours'], path).toBe(true);
      expect(marked['x-operation-code'], path).toBeUndefined();
      expect(marked.tags, path).toEqual(['Ours: not in the published definition']);
    }
  });

  it('says in its description, as the guide does, what the published definition replaced; the old paths answer 404', async () => {
    const description = String(
      (api.document as unknown as { info: { description?: string } }).info.description,
    );
    const guide = readFileSync(
      new URL('../../../docs/guide/business-number-register.md', import.meta.url),
      'utf8',
    );
    for (const entry of REPLACED) {
      expect(description).toContain(entry.was);
      expect(guide).toContain(entry.was);
      if (!entry.gone) continue;
      const url = entry.gone.path.replace('{nzbn}', E).replace('{watchlistId}', '1');
      const answer = await t.call(entry.gone.method, url, { token: t.owner.token, payload: {} });
      // 400 where the old path now reads as a published one with a malformed parameter (`{opn}`).
      expect([400, 404], `${entry.gone.method} ${url}`).toContain(answer.statusCode);
    }
  });

  it('serves every operation of routes/published.ts, under its published operation id and code', () => {
    const ours = documented().filter(({ method, path }) => byRoute.has(`${method} ${path}`));
    expect(ours.map(({ method, path }) => byRoute.get(`${method} ${path}`)!.code).sort()).toEqual(
      Object.keys(SERVED_OPERATIONS).sort(),
    );
    for (const { method, path, operation } of ours) {
      const expected = byRoute.get(`${method} ${path}`)!;
      expect(operation.operationId, `${method} ${path}`).toBe(expected.operationId);
      expect(operation['x-operation-code'], `${method} ${path}`).toBe(expected.code);
    }
  });

  it('takes the published query parameters, the required ones required', () => {
    for (const { method, path, operation } of documented()) {
      const expected = byRoute.get(`${method} ${path}`);
      if (!expected) continue;
      const query = (operation.parameters ?? []).filter((parameter) => parameter.in === 'query');
      const names = new Set(expected.query.map((parameter) => parameter.name));
      const other = OTHER_SPELLINGS[expected.code] ?? [];
      for (const parameter of query) {
        expect(
          names.has(parameter.name) || other.includes(parameter.name),
          `${expected.code} ?${parameter.name}`,
        ).toBe(true);
      }
      for (const parameter of expected.query) {
        const ours = query.find((q) => q.name === parameter.name);
        expect(ours, `${expected.code} takes ?${parameter.name}`).toBeDefined();
        expect(Boolean(ours!.required), `${expected.code} ?${parameter.name} required`).toBe(
          parameter.required,
        );
      }
    }
  });

  it('takes the published headers: the request id everywhere, If-None-Match on a read that answers 304, and the others named', () => {
    for (const { method, path, operation } of documented()) {
      const expected = byRoute.get(`${method} ${path}`);
      if (!expected) continue;
      const headers = (operation.parameters ?? []).filter((p) => p.in === 'header').map((p) => p.name);
      const wanted = [
        'api-business-govt-nz-Request-Id',
        ...(method === 'GET' &&
        statusesOf(expected).includes(304) &&
        !NEVER_ANSWERED[expected.code]?.includes(304)
          ? ['If-None-Match']
          : []),
        ...expected.headers,
      ];
      for (const header of wanted) expect(headers, `${expected.code} takes ${header}`).toContain(header);
    }
  });

  it('answers the published success status, and documents every status the definition lists', () => {
    for (const { method, path, operation } of documented()) {
      const expected = byRoute.get(`${method} ${path}`);
      if (!expected) continue;
      const ours = Object.keys(operation.responses).map(Number);
      const success = (statuses: number[]) => statuses.filter((status) => status >= 200 && status < 300);
      expect(success(ours), `${expected.code} success`).toEqual(
        success(expected.responses.map((response) => response.status)),
      );
      const skipped = [500, ...(NEVER_ANSWERED[expected.code] ?? [])];
      for (const { status } of expected.responses) {
        if (skipped.includes(status)) continue;
        expect(ours, `${expected.code} documents ${status}`).toContain(status);
      }
    }
  });
});

const E = FIXTURE.authority;
const MISSING = '9429000009997';
const BROKEN = '9429000001008';
const PART = '9429800000019';
const PRIVATE_PART = '9429800000026';

/** One operation's calls: its success, a bad input and the field it names, a 404 where one is published. */
interface Case {
  url: string;
  /** The body, or one made from the `make` id. */
  body?: unknown;
  /** A three-legged call by the owner (business authority over the entity). */
  user?: boolean;
  /** Its 403: a user without authority over the entity (the default for a user's call), or an organisation the caller is not in. */
  refusal?: 'authority' | 'organisation';
  /** Its bad input and the field the 400 names (none for an operation that takes no input at all). */
  bad?: { url?: string; body?: unknown; field: string };
  notFound?: { url?: string; body?: unknown };
  /** The answer is a list that holds items (so the shape of its items is checked). */
  holds?: boolean;
  /** An object this case needs, made first (its id replaces `{id}` in the URLs). */
  make?: () => Promise<string>;
  /** Headers every call of the case sends (a multipart body's type). */
  headers?: Record<string, string>;
}

const watchlist = async () => {
  const made = await t.call('POST', '/watchlists', {
    payload: { name: 'Published', channel: 'EMAIL', watchlistEmailAddresses: ['p@example.test'], nzbns: [E] },
  });
  return String(made.json().watchlistId);
};
/** An address of the entity, for its removal. */
const address = async () => {
  const made = await t.call('POST', `/entities/${E}/addresses`, {
    token: t.owner.token,
    payload: { addressType: 'DELIVERY', address1: '1 Published Lane', address3: 'Wellington' },
  });
  return made.json().uniqueIdentifier as string;
};
const role = async () => {
  const made = await t.call('POST', `/entities/${E}/roles`, {
    token: t.owner.token,
    payload: { roleType: 'Director', rolePerson: { firstName: 'Pub', lastName: 'Lished' } },
  });
  return made.json().uniqueIdentifier as string;
};
/**
 * A read of one entity's part, as the holder of authority over the fixed test case with private data
 * (its phones, emails, GST numbers and bank accounts are in the answer, so their shape is checked).
 */
const read = (part: string, nzbn: string = FIXTURE.privateData, holds = false): Case => ({
  url: `/entities/${nzbn}/${part}`,
  user: true,
  refusal: 'organisation',
  ...(holds ? { holds } : {}),
  bad: { url: `/entities/${BROKEN}/${part}`, field: 'nzbn' },
  notFound: { url: `/entities/${MISSING}/${part}` },
});
const add = (list: string, items: unknown, bad: unknown, field: string): Case => ({
  url: `/entities/${E}/${list}`,
  user: true,
  body: items,
  bad: { body: bad, field },
  notFound: { url: `/entities/${MISSING}/${list}` },
});

const NO_USER = '00000000-0000-4000-8000-000000000000';
const LONG = 'x'.repeat(65);
/** A user the owner grants authority over the entity: the authority's id. */
const grantee = async () => {
  const user = await signedInUser(t.gateway);
  const made = await t.call('POST', '/authorities', {
    token: t.owner.token,
    payload: { nzbn: E, userId: user.userId, approvalType: 'USER' },
  });
  return made.json().authorityId as string;
};
/** An organisation the owner administers: its identifier. */
const organisation = async () => {
  const made = await t.call('POST', '/organisations', {
    token: t.owner.token,
    payload: { name: 'Published' },
  });
  return made.json().organisationId as string;
};
/** An invitation of the owner's organisation: `<organisation>/organisationUsers/<id>`. */
const invitation = async () => {
  const id = await organisation();
  const made = await t.call('POST', `/organisations/${id}/organisationUsers`, {
    token: t.owner.token,
    payload: { email: { emailAddress: `published-${Date.now()}-${Math.random()}@example.test` } },
  });
  return `${id}/organisationUsers/${made.json().organisationUserId}`;
};
/** A purchase of the owner's: a part of the entity that has three already (its id). */
const purchase = async () => {
  const made = await t.call('POST', `/entities/${FIXTURE.orgParts}/organisation-parts`, {
    token: t.owner.token,
    payload: partRequest({ name: 'Published Purchase' }),
  });
  return /organisation-parts-purchase\/([0-9a-f-]+)>/.exec(String(made.headers.link))![1]!;
};
/** An invitation of the owner to another user's organisation: its activation code. */
const activationCode = async () => (await invitationsOf(t, t.owner.email, 1))[0]!;

const DIRECTORY_CASES = {
  NZBN_103_1: {
    url: `/authorities?nzbn=${E}`,
    user: true,
    refusal: 'organisation',
    holds: false,
    bad: { url: '/authorities?authority-status=LOST', field: 'authority-status' },
  },
  NZBN_103_2: {
    url: '/authorities',
    user: true,
    refusal: 'organisation',
    body: {
      nzbn: FIXTURE.company,
      approvalType: 'REGISTRAR_LETTER',
      documents: [{ documentType: 'LETTER', url: { href: 'https://example.test/letter.pdf' } }],
    },
    bad: { body: { nzbn: E, approvalType: 'LETTER' }, field: 'approvalType' },
  },
  NZBN_103_3: {
    url: '/authorities/{id}',
    user: true,
    make: grantee,
    body: { AuthorityStatus: 'REVOKED' },
    bad: { body: { AuthorityStatus: 'EXPIRED' }, field: 'AuthorityStatus' },
    notFound: { url: `/authorities/${NO_USER}` },
  },
  NZBN_101_1: { url: '/users', user: true, refusal: 'organisation' },
  NZBN_101_4: {
    url: '/users',
    user: true,
    refusal: 'organisation',
    body: { acceptTerms: true, firstName: 'Published' },
    bad: { body: { acceptTerms: false }, field: 'acceptTerms' },
  },
  NZBN_101_2: {
    url: '/users/{id}',
    user: true,
    make: async () => t.owner.userId,
    bad: { url: `/users/${LONG}`, field: 'userId' },
    notFound: { url: `/users/${NO_USER}` },
  },
  NZBN_101_3: {
    url: '/users/{id}',
    user: true,
    make: async () => t.owner.userId,
    body: { lastName: 'Published', mobile: { countryCode: '64', areaCode: '21', number: '1234567' } },
    bad: { body: { phone: { number: 'four' } }, field: 'phone.number' },
    notFound: { url: `/users/${NO_USER}` },
  },
  NZBN_102_1: { url: '/organisations', user: true, refusal: 'organisation' },
  NZBN_102_2: {
    url: '/organisations',
    user: true,
    refusal: 'organisation',
    body: {
      name: 'Published Organisation',
      categoryCode: 'ACC',
      postalAddress: { address1: '1 Published Road' },
    },
    bad: { body: { name: 'Published', categoryCode: 'ZZZ' }, field: 'categoryCode' },
  },
  NZBN_104_3: {
    url: '/organisations/activateOrganisationUser',
    user: true,
    refusal: 'organisation',
    make: activationCode,
    body: (code: string) => ({ activationCode: code }),
    bad: { body: { activationCode: '' }, field: 'activationCode' },
    notFound: { body: { activationCode: 'no-such-code' } },
  },
  NZBN_102_3: {
    url: '/organisations/{id}',
    user: true,
    make: organisation,
    bad: { url: `/organisations/${LONG}`, field: 'organisationId' },
    notFound: { url: '/organisations/no-such-organisation' },
  },
  NZBN_102_4: {
    url: '/organisations/{id}',
    user: true,
    make: organisation,
    body: { name: 'Published, renamed', phone: { areaCode: '4', number: '4991234' } },
    bad: { body: { categoryCode: 'ZZZ' }, field: 'categoryCode' },
    notFound: { url: '/organisations/no-such-organisation' },
  },
  NZBN_104_1: {
    url: '/organisations/{id}/organisationUsers',
    user: true,
    make: organisation,
    bad: { url: `/organisations/${LONG}/organisationUsers`, field: 'organisationId' },
    notFound: { url: '/organisations/no-such-organisation/organisationUsers' },
  },
  NZBN_104_2: {
    url: '/organisations/{id}/organisationUsers',
    user: true,
    make: organisation,
    body: { role: 'MEMBER', firstName: 'Pub', email: { emailAddress: 'published-invitee@example.test' } },
    bad: { body: { email: { emailAddress: 'nobody' } }, field: 'email.emailAddress' },
    notFound: { url: '/organisations/no-such-organisation/organisationUsers' },
  },
  NZBN_104_4: {
    url: '/organisations/{id}',
    user: true,
    make: invitation,
    bad: { url: `/organisations/x/organisationUsers/${LONG}`, field: 'organisationUserId' },
    notFound: { url: `/organisations/no-such-organisation/organisationUsers/${NO_USER}` },
  },
  NZBN_104_5: {
    url: '/organisations/{id}',
    user: true,
    make: invitation,
    body: { role: 'ADMINISTRATOR', lastName: 'Published' },
    bad: { body: { role: 'OWNER' }, field: 'role' },
    notFound: { url: `/organisations/no-such-organisation/organisationUsers/${NO_USER}` },
  },
  NZBN_104_6: {
    url: '/organisations/{id}',
    user: true,
    make: invitation,
    bad: { url: `/organisations/x/organisationUsers/${LONG}`, field: 'organisationUserId' },
    notFound: { url: `/organisations/no-such-organisation/organisationUsers/${NO_USER}` },
  },
} satisfies Record<string, Case>;

/** The public part of the fixed test case, its items made by each case that changes or removes one. */
const PART_URL = `/entities/${FIXTURE.orgParts}/organisation-parts/${PART}`;
const NO_PART_URL = `/entities/${FIXTURE.orgParts}/organisation-parts/9429800000040`;
let itemsMade = 0;
const partItem = (list: string, body: (n: number) => unknown) => async () => {
  const made = await t.call('POST', `${PART_URL}/${list}`, {
    token: t.owner.token,
    payload: body(++itemsMade),
  });
  return made.json().uniqueIdentifier as string;
};
/** The POST, PUT and DELETE of one list of the part's items. */
const itemCases = (
  list: string,
  add: unknown,
  made: (n: number) => unknown,
  change: unknown,
  bad: [unknown, string],
): { post: Case; put: Case; delete: Case } => {
  const make = partItem(list, made);
  const one = `${PART_URL}/${list}/{id}`;
  return {
    post: {
      url: `${PART_URL}/${list}`,
      user: true,
      body: add,
      bad: { body: bad[0], field: bad[1] },
      notFound: { url: `${NO_PART_URL}/${list}` },
    },
    put: {
      url: one,
      user: true,
      make,
      body: change,
      bad: { body: bad[0], field: bad[1] },
      notFound: { url: `${PART_URL}/${list}/42` },
    },
    delete: {
      url: one,
      user: true,
      make,
      bad: { url: `${PART_URL}/${list}/${LONG}`, field: 'uid' },
      notFound: { url: `${PART_URL}/${list}/42` },
    },
  };
};
const ADDRESSES = itemCases(
  'addresses',
  { addressType: 'DELIVERY', address1: '1 Published Quay', address3: 'Napier' },
  (n) => ({ addressType: 'POSTAL', address1: `PO Box ${n}` }),
  undefined,
  [{ addressType: 'REGISTERED', address1: '1 Published Quay' }, 'addressType'],
);
const PHONES = itemCases(
  'phone-numbers',
  { phoneAreaCode: '6', phoneNumber: '8351234' },
  (n) => ({ phoneNumber: String(5550200 + n) }),
  { phoneAreaCode: '6', phoneNumber: '8354321', phonePurpose: 'Fax' },
  [{ phoneNumber: '8351234', phonePurpose: 'Pigeon' }, 'phonePurpose'],
);
const EMAILS = itemCases(
  'email-addresses',
  { emailAddress: 'published@part.example', emailPurpose: 'OTHER' },
  (n) => ({ emailAddress: `made-${n}@part.example` }),
  { emailAddress: 'changed@part.example', emailPurpose: 'INVOICE_ADDRESS' },
  [{ emailAddress: 'bad@part.example', emailPurpose: 'BILLING' }, 'emailPurpose'],
);
const CUSTOM_DATA = itemCases(
  'custom-data',
  { key: 'published', value: 'yes' },
  (n) => ({ key: `made-${n}`, value: String(n) }),
  { key: 'changed', value: 'yes' },
  [{ key: '', value: 'x' }, 'key'],
);
const PURPOSES = itemCases(
  'purpose',
  { purpose: 'LOCATIONARRIVAL', purposeDescription: 'Published' },
  (n) => ({ purpose: 'OTHER', purposeDescription: `Made ${n}` }),
  { purpose: 'OTHER', purposeDescription: 'Changed' },
  [{ purpose: 'SALES' }, 'purpose'],
);
/** The shared fixture part: shared with more entities, and with fewer. */
const SHARED_URL = `/entities/${FIXTURE.orgParts}/organisation-parts/9429800000033`;

const PART_ITEM_CASES = {
  OP007: ADDRESSES.post,
  OP008: ADDRESSES.delete,
  OP009: PHONES.post,
  OP010: PHONES.put,
  OP011: PHONES.delete,
  OP012: EMAILS.post,
  OP013: EMAILS.put,
  OP014: EMAILS.delete,
  OP015: CUSTOM_DATA.post,
  OP016: CUSTOM_DATA.put,
  OP017: CUSTOM_DATA.delete,
  OP020: PURPOSES.post,
  OP021: PURPOSES.put,
  OP022: PURPOSES.delete,
  OP018: {
    url: `${SHARED_URL}/action-append-nzbns`,
    user: true,
    body: { nzbns: [FIXTURE.soleTrader] },
    bad: { body: { nzbns: [MISSING] }, field: 'nzbns' },
    notFound: { url: `${NO_PART_URL}/action-append-nzbns` },
  },
  OP019: {
    url: `${SHARED_URL}/action-delete-nzbns`,
    user: true,
    body: { nzbns: [FIXTURE.soleTrader] },
    bad: { body: { nzbns: [] }, field: 'nzbns' },
    notFound: { url: `${NO_PART_URL}/action-delete-nzbns` },
  },
} satisfies Record<string, Case>;

const CASES: Record<OperationCode, Case> = {
  ...DIRECTORY_CASES,
  ...PART_ITEM_CASES,
  NZBN_001_1: { url: '/entities?search-term=sandbox', bad: { url: '/entities', field: 'search-term' } },
  NZBN_003: {
    url: '/entities',
    user: true,
    body: { entityTypeCode: 'Sole_Trader', entityName: 'Published Trader' },
    // Any signed-in user may register a business: its 403 is the organisation's.
    refusal: 'organisation',
    bad: { body: { entityTypeCode: 'LTD', entityName: 'Published Company' }, field: 'entityTypeCode' },
  },
  NZBN_001_2: {
    url: '/entities/changes?change-event-type=ALL',
    bad: { url: '/entities/changes?change-event-type=ALL&sort-by=colour', field: 'sort-by' },
  },
  OP001: {
    url: '/entities/organisation-parts?search-term=sandbox',
    bad: { url: '/entities/organisation-parts?function=warehouse', field: 'search-term' },
  },
  NZBN_002: {
    url: `/entities/${FIXTURE.company}`,
    bad: { url: `/entities/${BROKEN}`, field: 'nzbn' },
    notFound: { url: `/entities/${MISSING}` },
  },
  NZBN_005_1: add(
    'action-update-australian-business-numbers',
    { australianBusinessNumber: '51824753556' },
    { australianBusinessNumber: '51824753557' },
    'australianBusinessNumber',
  ),
  NZBN_004_1: {
    url: `/entities/${FIXTURE.company}/addresses?address-type=ALL`,
    bad: { url: `/entities/${FIXTURE.company}/addresses?address-type=HOME`, field: 'address-type' },
    notFound: { url: `/entities/${MISSING}/addresses?address-type=ALL` },
  },
  NZBN_024_1: add(
    'addresses',
    { addressType: 'OFFICE', address1: '1 Published Road', address3: 'Wellington' },
    { addressType: 'HOME', address1: 'x' },
    'addressType',
  ),
  NZBN_044_1: {
    url: `/entities/${E}/addresses/{id}`,
    user: true,
    make: address,
    bad: { url: `/entities/${BROKEN}/addresses/1`, field: 'nzbn' },
    notFound: { url: `/entities/${E}/addresses/42` },
  },
  NZBN_004_13: {
    url: `/entities/${FIXTURE.company}/filings`,
    bad: { url: `/entities/${BROKEN}/filings`, field: 'nzbn' },
  },
  NZBN_105: {
    url: '/documents',
    user: true,
    // Any signed-in user uploads documents: its 403 is the organisation's.
    refusal: 'organisation',
    headers: MULTIPART,
    body: multipartBody({ documentType: 'LETTER' }, pdf('Published letter')),
    bad: {
      body: multipartBody({}, { name: 'letter.pdf', type: 'application/pdf', bytes: Buffer.from('words') }),
      field: 'file',
    },
    notFound: { body: multipartBody({ documentId: '0123456789abcdef' }, pdf()) },
  },
  NZBN_905: {
    url: '/companies-document-upload',
    user: true,
    headers: MULTIPART,
    body: multipartBody({ nzbn: E, documentType: 'BDHNOTICE' }, pdf('Published notice')),
    bad: { body: multipartBody({ nzbn: E, documentType: 'ANNUAL' }, pdf()), field: 'documentType' },
  },
  NZBN_004_20: read('business-ethnicity-identifiers'),
  NZBN_024_13: add(
    'business-ethnicity-identifiers',
    [{ ethnicity: 'MAORI', identifyingFactors: [{ identifyingFactor: 'OWNERSHIP_50_PERCENT_OR_MORE' }] }],
    [{ ethnicity: 'MAORI', identifyingFactors: [] }],
    '0.identifyingFactors',
  ),
  NZBN_004_2: read('company-details', FIXTURE.company),
  NZBN_002_1: read('discoverable'),
  NZBN_004_10: read('email-addresses', FIXTURE.privateData, true),
  NZBN_024_10: add('email-addresses', [{ emailAddress: 'published@example.test' }], [{}], '0.emailAddress'),
  NZBN_004_11: read('gst-numbers', FIXTURE.privateData, true),
  NZBN_024_11: add('gst-numbers', [{ gstNumber: '49-091-850' }], [{ gstNumber: '123456789' }], '0.gstNumber'),
  NZBN_004_14: read('history'),
  NZBN_004_15: {
    url: `/entities/${FIXTURE.company}/history/addresses?address-type=REGISTERED`,
    bad: { url: `/entities/${FIXTURE.company}/history/addresses`, field: 'address-type' },
    notFound: { url: `/entities/${MISSING}/history/addresses?address-type=ALL` },
  },
  NZBN_004_16: read('history/entity-names'),
  NZBN_004_19: read('history/entity-statuses'),
  NZBN_014: read('history/hibernation-statuses'),
  NZBN_004_18: read('history/trading-areas'),
  NZBN_004_17: read('history/trading-names'),
  NZBN_004_6: read('industry-classifications'),
  NZBN_024_6: add(
    'industry-classifications',
    [{ classificationCode: 'C121220' }],
    [{ classificationCode: 'Z999999' }],
    '0.classificationCode',
  ),
  NZBN_004_2b: read('non-company-details', FIXTURE.soleTrader),
  OP003: {
    url: `/entities/${FIXTURE.orgParts}/organisation-parts`,
    bad: { url: `/entities/${FIXTURE.orgParts}/organisation-parts?page-size=0`, field: 'page-size' },
    notFound: { url: `/entities/${MISSING}/organisation-parts` },
  },
  OP005: add(
    'organisation-parts',
    partRequest({ name: 'Published Depot', privacy: 'PUBLIC' }),
    {
      termsAndConditionsAccepted: true,
      organisationPart: { name: 'Published Depot', function: 'Warehouse' },
    },
    'function',
  ),
  OP002: {
    url: `/entities/organisation-parts/gln/${PART}`,
    bad: { url: '/entities/organisation-parts/gln/9429800000010', field: 'gln' },
    notFound: { url: `/entities/organisation-parts/gln/${MISSING}` },
  },
  OP024: {
    url: '/entities/organisation-parts-purchase/{id}',
    make: purchase,
    bad: { url: '/entities/organisation-parts-purchase/42', field: 'transaction_id' },
    notFound: { url: `/entities/organisation-parts-purchase/${NO_USER}` },
  },
  OP025: {
    url: '/entities/organisation-parts/action-request-access',
    user: true,
    body: { opn: PRIVATE_PART, requestingNzbn: E },
    bad: { body: { opn: '9429800000010', requestingNzbn: E }, field: 'opn' },
    notFound: { body: { opn: '9429800000040', requestingNzbn: E } },
  },
  OP023: {
    url: `/entities/${E}/organisation-parts-allocation`,
    user: true,
    bad: { url: `/entities/${BROKEN}/organisation-parts-allocation`, field: 'nzbn' },
    notFound: { url: `/entities/${MISSING}/organisation-parts-allocation` },
  },
  OP004: {
    url: `/entities/${FIXTURE.orgParts}/organisation-parts/${PART}`,
    bad: { url: `/entities/${FIXTURE.orgParts}/organisation-parts/9429800000010`, field: 'opn' },
    notFound: { url: `/entities/${FIXTURE.orgParts}/organisation-parts/9429800000040` },
  },
  OP006: {
    url: `/entities/${FIXTURE.orgParts}/organisation-parts/${PART}`,
    user: true,
    body: { name: 'Sandbox Test Head Office', function: 'PHYSICAL_LOCATION', privacy: 'PUBLIC' },
    bad: { body: { name: 'Sandbox Test Head Office', privacy: 'SECRET' }, field: 'privacy' },
    notFound: { url: `/entities/${FIXTURE.orgParts}/organisation-parts/9429800000040` },
  },
  NZBN_004_4: read('payment-bank-accounts', FIXTURE.privateData, true),
  NZBN_024_4: add(
    'payment-bank-accounts',
    [
      {
        bankId: '01',
        bankBranch: '0902',
        accountBase: '0068389',
        accountSuffix: '00',
        accountName: 'Published',
      },
    ],
    [{ bankId: '01', bankBranch: '902', accountBase: '0068389', accountSuffix: '00' }],
    '0.bankBranch',
  ),
  NZBN_004_9: read('phone-numbers', FIXTURE.privateData, true),
  NZBN_024_9: add(
    'phone-numbers',
    [{ phoneAreaCode: '4', phoneNumber: '4991234' }],
    [{ phoneNumber: 'x' }],
    '0.phoneNumber',
  ),
  NZBN_004_5: read('privacy-settings'),
  NZBN_034_5: add(
    'privacy-settings',
    { emailPrivateInformation: false },
    { emailPrivateInformation: 'nope' },
    'emailPrivateInformation',
  ),
  NZBN_004_3: read('roles'),
  NZBN_024_3: add(
    'roles',
    { roleType: 'Director', rolePerson: { firstName: 'Ana', lastName: 'Published' } },
    {
      roleType: 'Director',
      rolePerson: { firstName: 'Ana', lastName: 'Published' },
      roleStatus: 'ACTIVE',
      endDate: '2024-01-01',
    },
    'endDate',
  ),
  NZBN_034_3: {
    url: `/entities/${E}/roles/{id}`,
    user: true,
    make: role,
    body: { roleType: 'Director', roleStatus: 'INACTIVE' },
    bad: { body: { roleType: 'Commander' }, field: 'roleType' },
    notFound: { url: `/entities/${E}/roles/42` },
  },
  NZBN_024_2: {
    url: `/entities/${FIXTURE.soleTrader}/statuses`,
    user: true,
    body: { entityStatusCode: '90', statusReasonCode: 'CEASED', comment: 'Published' },
    bad: { body: { entityStatusCode: '60' }, field: 'entityStatusCode' },
    notFound: { url: `/entities/${MISSING}/statuses` },
  },
  NZBN_004_12: read('trading-areas'),
  NZBN_024_12: add('trading-areas', [{ tradingArea: 'Otago' }], [{ tradingArea: 'Mars' }], '0.tradingArea'),
  NZBN_004_7: read('trading-names'),
  NZBN_024_7: add('trading-names', [{ name: 'Published Trading' }], [{ name: '' }], '0.name'),
  NZBN_004_8: read('websites'),
  NZBN_024_8: add(
    'websites',
    [{ url: 'https://published.example' }],
    [{ url: 'published.example' }],
    '0.url',
  ),
  NZBN_008: { url: '/watchlists', bad: { url: '/watchlists?page-size=0', field: 'page-size' } },
  NZBN_009: {
    url: '/watchlists',
    body: { name: 'Published', channel: 'EMAIL', watchlistEmailAddresses: ['p@example.test'], nzbns: [E] },
    bad: { body: { name: 'Published', channel: 'SMS' }, field: 'channel' },
  },
  NZBN_011_1: {
    url: '/watchlists/{id}',
    make: watchlist,
    bad: { url: `/watchlists/${'x'.repeat(61)}`, field: 'watchlistId' },
    notFound: { url: '/watchlists/2147483647' },
  },
  NZBN_007: {
    url: '/watchlists/{id}',
    make: watchlist,
    bad: { url: `/watchlists/${'x'.repeat(61)}`, field: 'watchlistId' },
    notFound: { url: '/watchlists/2147483647' },
  },
  NZBN_010_1: {
    url: '/watchlists/{id}',
    make: watchlist,
    body: { name: 'Published, renamed' },
    bad: { body: { frequency: 'HOURLY' }, field: 'frequency' },
    notFound: { url: '/watchlists/2147483647' },
  },
  NZBN_010_2: {
    url: '/watchlists/{id}/action-append-nzbns',
    make: watchlist,
    body: { nzbns: [FIXTURE.company] },
    bad: { body: { nzbns: [] }, field: 'nzbns' },
    notFound: { url: '/watchlists/2147483647/action-append-nzbns' },
  },
  NZBN_011_2: {
    url: '/watchlists/{id}/action-delete-nzbns',
    make: watchlist,
    body: { nzbns: [E] },
    bad: { body: { nzbns: [] }, field: 'nzbns' },
    notFound: { url: '/watchlists/2147483647/action-delete-nzbns' },
  },
  NZBN_012: {
    url: '/watchlists/{id}/action-send-test-notification',
    make: watchlist,
    body: { text: 'Published' },
    bad: { body: { text: { words: 'x' } }, field: 'text' },
    notFound: { url: '/watchlists/2147483647/action-send-test-notification' },
  },
  NZBN_007_1: {
    url: '/watchlists/{id}/nzbns',
    make: watchlist,
    bad: { url: `/watchlists/${'x'.repeat(61)}/nzbns`, field: 'watchlistId' },
    notFound: { url: '/watchlists/2147483647/nzbns' },
  },
};

const codes = Object.keys(SERVED_OPERATIONS) as OperationCode[];
const statusesOf = (operation: PublishedOperation) => operation.responses.map((response) => response.status);

describe('every operation we serve, as published', () => {
  it('has a case here', () => {
    expect(Object.keys(CASES).sort()).toEqual([...codes].sort());
  });

  it.each(codes)(
    '%s: success in the published schema, 400 naming the field, 401, 403 and 404',
    async (code) => {
      const operation = published.get(code)!;
      const { method } = operation;
      const c = CASES[code];
      const id = c.make ? await c.make() : '';
      const url = (text: string) => text.replace('{id}', id);
      const call = (
        at: string,
        body: unknown,
        extra: { token?: string; key?: null; headers?: Record<string, string> } = {},
      ) =>
        t.call(method as 'GET', url(at), {
          ...(c.user && extra.token === undefined ? { token: t.owner.token } : {}),
          ...extra,
          headers: { ...c.headers, ...extra.headers },
          ...(body === undefined ? {} : { payload: body as object }),
        });

      const body = typeof c.body === 'function' ? c.body(id) : c.body;
      // The bad input first (nothing may change), then the success.
      if (c.bad) {
        const bad = await call(c.bad.url ?? c.url, c.bad.body ?? body);
        expect(bad.statusCode, `${code} bad input → ${bad.body}`).toBe(400);
        expect(
          bad.json().list.map((f: { field: string }) => f.field),
          code,
        ).toContain(c.bad.field);
      } else {
        expect(published.get(code)!.query, `${code} takes no input`).toEqual([]);
      }

      const ok = await call(c.url, body);
      const success = operation.responses.find(
        (response) => response.status >= 200 && response.status < 300,
      )!;
      expect(ok.statusCode, `${code} → ${ok.body.slice(0, 300)}`).toBe(success.status);
      api.conformsUrl(method, `/sandbox/nzbn/v5${url(c.url)}`, ok);
      const schema = ANSWERED_AS[code] ?? success.schema;
      if (c.holds) expect(ok.json().length, `${code} holds items`).toBeGreaterThan(0);
      if (success.status === 204) expect(ok.body).toBe('');
      else if (schema) {
        const type = schema.startsWith('array of ')
          ? {
              kind: 'array' as const,
              items: { kind: 'ref' as const, name: schema.slice('array of '.length) },
            }
          : { kind: 'ref' as const, name: schema };
        expect(publishedProblems(definition, type, ok.json(), '', CHECK), code).toEqual([]);
      }

      // 401: the gateway's, without a key.
      expect(statusesOf(operation)).toContain(401);
      const anonymous = await call(c.url, body, { key: null });
      expect(anonymous.statusCode, code).toBe(401);
      // 403: no authority over the entity (a user's operation), or an organisation the caller is not in.
      expect(statusesOf(operation)).toContain(403);
      const refused =
        (c.refusal ?? (c.user ? 'authority' : 'organisation')) === 'authority'
          ? await call(c.url, body, { token: t.stranger.token })
          : await call(c.url, body, { headers: { 'x-organisation': 'not-ours' } });
      expect(refused.statusCode, `${code} → ${refused.body.slice(0, 200)}`).toBe(403);
      // 404 where the definition lists one and something of ours can be missing.
      if (c.notFound) {
        expect(statusesOf(operation), code).toContain(404);
        const missing = await call(c.notFound.url ?? c.url, c.notFound.body ?? body);
        expect(missing.statusCode, `${code} → ${missing.body.slice(0, 200)}`).toBe(404);
        expect(missing.json().errorDescription, code).toMatch(/^Object Not Found/);
      }
    },
  );
});

import type { TSchema } from '@sinclair/typebox';
import { Ajv } from 'ajv';
import type { LightMyRequestResponse } from 'fastify';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSubscription } from '../../../src/gateway/operations/subscriptions.ts';
import { addOrganisation } from '../../../src/identity/operations/organisations.ts';
import { addMember } from '../../../src/identity/store/memberships.ts';
import { transactionHeaders } from '../../../src/services/ppsr/schemas.ts';
import { signedInUser } from '../../support/oauth.ts';
import { BASE, type PpsrTest, PRODUCTION, ppsrTest, registration, requestId } from './support/api.ts';

/**
 * The register's own request headers, declared in its operations' schemas: the request id's published
 * alias `NZRIS-org-nz-Request-Id`, `Billing-Reference`, the sandbox's `Sandbox-Processing-Delay` and a
 * change's `Financing-Statement-PIN`. A bad value is a 400 in problem+json naming the header as the
 * register spells it and its rule, before anything is written (no transaction, no fee, the request id
 * still free); good values work; the OpenAPI document lists each as a header parameter of the
 * operations that take it.
 */
let test: PpsrTest;
beforeAll(async () => {
  test = await ppsrTest({ env: { RSG_PPSR_USER_RATE_LIMIT: '0' } });
}, 120_000);
afterAll(async () => test?.close());

const sandbox = () => test.gateway.runtime.environments.sandbox.pool;
const production = () => test.gateway.runtime.environments.production.pool;
const count = async (pool: pg.Pool, sql: string, params: unknown[] = []) =>
  Number((await pool.query<{ n: string }>(sql, params)).rows[0]!.n);

/** What a refused request might have written, in the sandbox. */
const written = async (id: string) => ({
  transactions: await count(sandbox(), 'SELECT count(*) AS n FROM ppsr_transactions'),
  underId: await count(sandbox(), 'SELECT count(*) AS n FROM ppsr_transactions WHERE request_id = $1', [id]),
  fees: await count(sandbox(), 'SELECT count(*) AS n FROM fee_records'),
  statements: await count(sandbox(), 'SELECT count(*) AS n FROM ppsr_financing_statements'),
  versions: await count(sandbox(), 'SELECT count(*) AS n FROM ppsr_financing_statement_versions'),
  searches: await count(sandbox(), 'SELECT count(*) AS n FROM ppsr_searches'),
  groups: await count(sandbox(), 'SELECT count(*) AS n FROM ppsr_secured_party_groups'),
});

function expectRefusal(response: LightMyRequestResponse, field: string, rule: string): void {
  expect(response.statusCode, response.body).toBe(400);
  expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
  const body = response.json();
  expect(body.type).toBe('about:blank#invalid-parameter');
  expect(body.errors).toEqual([{ field, message: rule }]);
  expect(body.detail).toContain(field);
  expect(body.detail).toContain(rule);
}

const ALIAS_RULE = 'must be 1 to 100 letters, digits, ".", "_", ":" or "-"';
const BILLING_RULE = 'must be at most 100 characters, without control characters';
const DELAY_RULE = 'must be a number of seconds from 0 to 900, with at most three decimals';
const PIN_RULE = 'must be 8 digits, the financing statement PIN';

const GROUP = {
  name: 'Header test group',
  email: 'group@example.test',
  securedParties: [{ name: 'Header Lender', email: 'lender@example.test' }],
};
const SEARCH = {
  searchBy: 'motorVehicle',
  legitimateSearchReason: 'yes',
  searchByMotorVehicle: { registrationPlate: 'ABC123' },
};

describe('a bad header value: 400 naming the header and its rule, nothing written', () => {
  const cases: [string, 'POST' | 'PUT', string, unknown, Record<string, string>, string, string][] = [
    [
      'a billing reference over 100 characters (PPSR_17)',
      'POST',
      '/financing-statements',
      registration(),
      { 'Billing-Reference': 'R'.repeat(101) },
      'Billing-Reference',
      BILLING_RULE,
    ],
    [
      'a billing reference with a control character (PPSR_02)',
      'POST',
      '/financing-statements-search',
      SEARCH,
      { 'Billing-Reference': 'INV\t42' },
      'Billing-Reference',
      BILLING_RULE,
    ],
    [
      'a request id alias with a space (PPSR_34)',
      'POST',
      '/secured-party-groups',
      GROUP,
      { 'NZRIS-org-nz-Request-Id': 'my id' },
      'NZRIS-org-nz-Request-Id',
      ALIAS_RULE,
    ],
    [
      'a request id alias over 100 characters (PPSR_17)',
      'POST',
      '/financing-statements',
      registration(),
      { 'NZRIS-org-nz-Request-Id': 'a'.repeat(101) },
      'NZRIS-org-nz-Request-Id',
      ALIAS_RULE,
    ],
    ...['soon', '901', '900.001', '-1', '1e2', '0x10', '.5', '5.', '1.2345', ''].map(
      (delay): [string, 'POST', string, unknown, Record<string, string>, string, string] => [
        `a processing delay of "${delay}" (PPSR_17)`,
        'POST',
        '/financing-statements',
        registration(),
        { 'Sandbox-Processing-Delay': delay },
        'Sandbox-Processing-Delay',
        DELAY_RULE,
      ],
    ),
  ];

  it.each(cases)('%s', async (_, method, path, body, headers, field, rule) => {
    const id = requestId();
    const before = await written(id);
    const refused = await test.call(method, path, {
      body,
      headers: { 'api-business-govt-nz-Request-Id': id, ...headers },
    });
    expectRefusal(refused, field, rule);
    expect(await written(id)).toEqual(before);
    // The request id is still free: the same request with the header left out runs.
    const good = await test.call(method, path, { body, headers: { 'api-business-govt-nz-Request-Id': id } });
    expect(good.statusCode, good.body).toBeLessThan(300);
  });

  it('a malformed PIN on a change (PPSR_03, renew, discharge) changes nothing, for any organisation', async () => {
    const created = (await test.call('POST', '/financing-statements', { body: registration() })).json();
    const path = `/financing-statements/${created.registrationNumber}`;
    const other = await signedInUser(test.gateway);
    const changes: [string, unknown][] = [
      [path, registration()],
      [`${path}/renew`, {}],
      [`${path}/discharge`, undefined],
    ];
    for (const [url, body] of changes) {
      for (const token of [undefined, other.token]) {
        for (const pin of ['1234567', '123456789', `${created.financingStatementPin}x`, 'abcdefgh']) {
          const id = requestId();
          const before = await written(id);
          const refused = await test.call('PUT', url, {
            body,
            ...(token ? { token } : {}),
            headers: { 'api-business-govt-nz-Request-Id': id, 'Financing-Statement-PIN': pin },
          });
          expectRefusal(refused, 'Financing-Statement-PIN', PIN_RULE);
          expect(await written(id)).toEqual(before);
        }
      }
    }
    const statement = await test.call('GET', path);
    expect(statement.json()).toMatchObject({ version: 1, status: 'Registered' });
  });

  it('a bad alias is refused even beside the gateway’s own request id', async () => {
    const id = requestId();
    const before = await written(id);
    const refused = await test.call('PUT', '/customer-organisation', {
      body: { email: 'accounts@example.test' },
      headers: { 'api-business-govt-nz-Request-Id': id, 'NZRIS-org-nz-Request-Id': 'not/safe' },
    });
    expectRefusal(refused, 'NZRIS-org-nz-Request-Id', ALIAS_RULE);
    expect(await written(id)).toEqual(before);
  });
});

describe('good header values', () => {
  it('a billing reference of 100 characters is kept with the transaction and its fee', async () => {
    const id = requestId();
    const billing = `INV-${id}-${'x'.repeat(100)}`.slice(0, 100);
    const created = await test.call('POST', '/financing-statements', {
      body: registration(),
      headers: { 'api-business-govt-nz-Request-Id': id, 'Billing-Reference': billing },
    });
    expect(created.statusCode, created.body).toBe(201);
    const found = await test.call(
      'GET',
      `/customer-organisation-transactions?billing-reference=${encodeURIComponent(billing)}`,
    );
    expect(found.json().transactions).toMatchObject([{ requestId: id, billingReference: billing }]);
    const fees = await test.call('GET', `/customer-organisation-fees?request-id=${id}`);
    expect(fees.json().fees).toMatchObject([{ requestId: id, billingReference: billing }]);
  });

  it('an empty billing reference, alias or PIN is none', async () => {
    const created = await test.call('POST', '/financing-statements', {
      body: registration(),
      headers: { 'Billing-Reference': '', 'NZRIS-org-nz-Request-Id': '' },
    });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.headers['nzris-org-nz-request-id']).toBeUndefined();
    const id = created.headers['api-business-govt-nz-request-id'] as string;
    const found = await test.call('GET', `/customer-organisation-transactions?request-id=${id}`);
    expect(found.json().transactions).toMatchObject([{ billingReference: null }]);
    const discharged = await test.call(
      'PUT',
      `/financing-statements/${created.json().registrationNumber}/discharge`,
      {
        headers: { 'Financing-Statement-PIN': '' },
      },
    );
    expect(discharged.statusCode, discharged.body).toBe(200);
  });

  it('a request id alias of 100 characters is the request id, echoed', async () => {
    const id = `v1.${'a'.repeat(90)}:_-${'9'.repeat(4)}`;
    expect(id).toHaveLength(100);
    const created = await test.call('POST', '/secured-party-groups', {
      body: GROUP,
      headers: { 'NZRIS-org-nz-Request-Id': id },
    });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.headers['nzris-org-nz-request-id']).toBe(id);
    const found = await test.call('GET', `/customer-organisation-transactions?request-id=${id}`);
    expect(found.json().transactions).toMatchObject([
      { requestId: id, spgId: created.json().securedPartyGroupId },
    ]);
  });

  it('a processing delay in range holds the work, in seconds with decimals', async () => {
    for (const delay of ['0', '0.05', '00.100']) {
      const started = Date.now();
      const created = await test.call('POST', '/financing-statements', {
        body: registration(),
        headers: { 'Sandbox-Processing-Delay': delay },
      });
      expect(created.statusCode, created.body).toBe(201);
      expect(Date.now() - started).toBeGreaterThanOrEqual(Number(delay) * 1000 - 5);
    }
  });

  it('the delay’s range is exactly 0 to 900 seconds, at most three decimals', () => {
    // The schema as Fastify compiles it (its default Ajv options: strings coerced to numbers where a
    // number is declared, hence a pattern here).
    const ajv = new Ajv({
      coerceTypes: 'array',
      useDefaults: true,
      removeAdditional: true,
      allErrors: false,
    });
    const schema = transactionHeaders('sandbox') as TSchema & { properties: Record<string, unknown> };
    const check = ajv.compile(schema.properties['Sandbox-Processing-Delay'] as object);
    for (const good of [
      '0',
      '00',
      '7',
      '99',
      '100',
      '899.999',
      '900',
      '900.0',
      '900.000',
      '0900',
      '12.5',
      '0.001',
    ])
      expect(check(good), good).toBe(true);
    for (const bad of ['900.001', '900.5', '901', '1000', '9000', '12.3456', ' 1', '1 ', '+1', '1,5', '١'])
      expect(check(bad), bad).toBe(false);
  });
});

describe('production', () => {
  it('refuses the sandbox delay (a rule its schema cannot state: the header is not declared there)', async () => {
    const gatewayPool = test.gateway.runtime.gateway.pool;
    const organisation = await addOrganisation(gatewayPool, {
      environment: 'production',
      identifier: `ppsr-headers-${requestId().slice(0, 8)}`,
      name: 'Production Header Lender',
    });
    await addMember(gatewayPool, organisation.id, test.user.userId, 'owner');
    const { primaryKey } = await createSubscription(gatewayPool, {
      userId: test.user.userId,
      productId: 'production-ppsr',
      state: 'active',
    });
    const groups = () => count(production(), 'SELECT count(*) AS n FROM ppsr_secured_party_groups');
    const transactions = () => count(production(), 'SELECT count(*) AS n FROM ppsr_transactions');
    const before = [await groups(), await transactions()];
    const call = (headers: Record<string, string>) =>
      test.call('POST', '/secured-party-groups', {
        base: PRODUCTION,
        key: primaryKey,
        token: null,
        body: GROUP,
        headers,
      });
    for (const delay of ['1', 'soon']) {
      const refused = await call({ 'Sandbox-Processing-Delay': delay });
      expectRefusal(refused, 'Sandbox-Processing-Delay', 'is only honoured in the sandbox');
    }
    // The other headers are declared there as in the sandbox.
    expectRefusal(await call({ 'Billing-Reference': 'B'.repeat(101) }), 'Billing-Reference', BILLING_RULE);
    expect([await groups(), await transactions()]).toEqual(before);
    const created = await call({ 'Billing-Reference': 'PROD-1' });
    expect(created.statusCode, created.body).toBe(201);
  });
});

describe('the OpenAPI document', () => {
  type Parameter = { in: string; name: string; required?: boolean; schema: Record<string, unknown> };
  type Operation = { operationId: string; parameters?: Parameter[]; responses: Record<string, unknown> };
  const operationsOf = async (base: string) => {
    const document = (await test.gateway.app.inject({ method: 'GET', url: `${base}/openapi.json` })).json();
    return Object.values(document.paths as Record<string, Record<string, Operation>>).flatMap((methods) =>
      Object.values(methods),
    );
  };
  const headersOf = (operation: Operation) =>
    (operation.parameters ?? []).filter((p) => p.in === 'header').map((p) => p.name);
  const CHANGES = ['PPSR_03', 'PPSR_RENEW', 'PPSR_DISCHARGE'];
  const TRANSACTIONS = [
    'PPSR_17',
    ...CHANGES,
    'PPSR_02',
    'PPSR_45',
    'PPSR_34',
    'PPSR_34_UPDATE',
    'PPSR_34_DELETE',
  ];
  /** The reads of a whole statement take its PIN or its debtor PIN. */
  const WHOLE_READS = ['PPSR_01', 'PPSR_55', 'PPSR_55_VERIFICATION'];

  it.each([
    ['sandbox', BASE, ['NZRIS-org-nz-Request-Id', 'Billing-Reference', 'Sandbox-Processing-Delay']],
    ['production', PRODUCTION, ['NZRIS-org-nz-Request-Id', 'Billing-Reference']],
  ])('lists the headers as parameters of the operations that take them (%s)', async (_, base, headers) => {
    const operations = await operationsOf(base as string);
    // Every transaction (an operation that may time out, 504) takes them, and only a transaction does.
    const transactions = operations.filter((o) => '504' in o.responses).map((o) => o.operationId);
    expect(transactions.sort()).toEqual([...TRANSACTIONS].sort());
    for (const operation of operations) {
      // Every operation reads the request id's alias (published, version 1).
      const expected = TRANSACTIONS.includes(operation.operationId)
        ? [
            ...(headers as string[]),
            ...(CHANGES.includes(operation.operationId) ? ['Financing-Statement-PIN'] : []),
          ]
        : WHOLE_READS.includes(operation.operationId)
          ? ['NZRIS-org-nz-Request-Id', 'Financing-Statement-PIN', 'Debtor-PIN']
          : ['NZRIS-org-nz-Request-Id'];
      expect(headersOf(operation), operation.operationId).toEqual(expected);
    }
    const registration = operations.find((o) => o.operationId === 'PPSR_17')!;
    const billing = registration.parameters!.find((p) => p.name === 'Billing-Reference')!;
    expect(billing.required).toBe(false);
    expect(billing.schema).toMatchObject({ type: 'string', maxLength: 100 });
    const alias = registration.parameters!.find((p) => p.name === 'NZRIS-org-nz-Request-Id')!;
    expect(alias.schema).toMatchObject({ type: 'string', maxLength: 100, pattern: '^[A-Za-z0-9._:-]*$' });
    const amendment = operations.find((o) => o.operationId === 'PPSR_03')!;
    expect(amendment.parameters!.find((p) => p.name === 'Financing-Statement-PIN')!.schema).toMatchObject({
      type: 'string',
      pattern: '^(?:[0-9]{8})?$',
    });
  });
});

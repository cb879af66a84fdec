/**
 * "No 500s" for the business number register: the shared operation fuzzer
 * (test/support/fuzz-operations.ts) walks every operation of its OpenAPI document with valid, awkward and
 * hostile input built from the schemas and the fixture (./support/harness-fixture.ts), as the owner of the
 * fixtures written to, so writes get past authorisation and reach validation. Below: regressions it found.
 */
import { describe, expect, it } from 'vitest';
import { nzbnService } from '../../../src/services/nzbn/index.ts';
import { dialectCodes, dialectError, expectCatalogued } from '../../support/error-codes.ts';
import { fingerprint as tablesFingerprint } from '../../support/fingerprint.ts';
import { fuzzOperations } from '../../support/fuzz-operations.ts';
import { FIXTURE, type NzbnTest } from './support/api.ts';
import { nzbnFixture } from './support/harness-fixture.ts';

const NZBN_CODES = dialectCodes(nzbnService);

/** The operations that address one item of an organisation part (addresses have no published PUT). */
const PART_ITEMS = Object.fromEntries(
  ['addresses', 'phone-numbers', 'email-addresses', 'custom-data', 'purpose'].flatMap((list) =>
    (list === 'addresses' ? ['DELETE'] : ['PUT', 'DELETE']).map((method) => [
      `${method} /entities/{nzbn}/organisation-parts/{opn}/${list}/{uid}`,
      40,
    ]),
  ),
);

let t: NzbnTest;
fuzzOperations(
  nzbnFixture((ready) => {
    t = ready;
  }),
  {
    seed: 20_250_701,
    runs: 12,
    // A role is addressed by the entity and the role both, an access request by its part and the entity
    // that asked (which must see the part not already): more draws before one names the pair. An item of
    // an organisation part by the entity, the part and the item: more still.
    perOperation: {
      'PUT /entities/{nzbn}/roles/{id}': 30,
      'POST /entities/organisation-parts/action-request-access': 40,
      'PUT /entities/{nzbn}/organisation-parts/{opn}/access-requests/{requestingNzbn}': 40,
      ...PART_ITEMS,
    },
    // Fields that must name something that exists, or be allocated first; and those of a role that
    // rarely hold together when drawn at random (an end date of an active role, a business number
    // with its check digit, addresses), so that a role sent alone reaches the register now and then.
    leaveOut: ['uniqueIdentifier', 'opn', 'parentGln', 'endDate', 'roleEntity', 'roleAddress'],
  },
);

const fingerprint = () =>
  tablesFingerprint(
    { pool: t.gateway.runtime.environments.sandbox.pool, prefixes: ['nzbn_'] },
    { pool: t.gateway.runtime.gateway.pool, tables: ['authorities'] },
  );

describe('regressions found by this fuzzing', () => {
  const E = FIXTURE.authority;
  const post = (path: string, payload: string) =>
    t.call('POST', `/entities/${E}/${path}`, {
      token: t.owner.token,
      headers: { 'content-type': 'application/json' },
      payload,
    });

  it('an address dated in the year 0000 goes to the history when replaced (was a 500)', async () => {
    // The history row's dates were sent to PostgreSQL as text, which refuses the year 0000.
    const body = (address1: string) =>
      JSON.stringify({ addressType: 'SERVICE', address1, startDate: '0000-01-01' });
    const first = await post('addresses', body('1 Year Zero Road'));
    expect(first.statusCode, first.body).toBe(201);
    const second = await post('addresses', body('2 Year Zero Road'));
    expect(second.statusCode, second.body).toBe(201);
    const history = (
      await t.call('GET', `/entities/${E}/history/addresses?address-type=SERVICE`, { token: t.owner.token })
    ).json().addressList;
    expect(history).toContainEqual({ ...first.json(), endDate: second.json().startDate });
  });

  it('a date an offset moves out of the years 0000–9999 of New Zealand time is a 400 naming it', async () => {
    // It was accepted and answered with a date the published schema refuses (a year before 0000).
    const before = await fingerprint();
    for (const startDate of ['0000-01-01T00:00:00.000+1400', '9999-12-31T23:59:59.999-1400']) {
      // The published body of POST trading-names: an array of trading names (the field is the item's).
      const response = await post('trading-names', JSON.stringify([{ name: 'Edge of Time', startDate }]));
      expect(response.statusCode, response.body).toBe(400);
      expect(response.json().list).toEqual([{ field: '0.startDate', message: expect.any(String) }]);
    }
    expect(await fingerprint()).toBe(before);
  });

  it('a body nested 100,000 levels deep is a 400, not a stack overflow (was a 500)', async () => {
    const depth = 100_000;
    for (const payload of [
      `{"url":${'['.repeat(depth)}${']'.repeat(depth)}}`,
      `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`,
    ]) {
      const response = await post('websites', payload);
      expect(response.statusCode, response.body.slice(0, 300)).toBe(400);
      expectCatalogued(dialectError(response, 'nzbn', 'deep body'), 400, NZBN_CODES);
    }
  });
});

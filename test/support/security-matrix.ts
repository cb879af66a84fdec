import { randomBytes } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INVALID_KEY, MISSING_KEY } from '../../src/gateway/http/guard.ts';
import { addOrganisation } from '../../src/identity/operations/organisations.ts';
import { addMember } from '../../src/identity/store/memberships.ts';
import type { Environment, ServiceId } from '../../src/services/contract.ts';
import { expectRefusal } from './error-codes.ts';
import { type FingerprintedTables, fingerprint } from './fingerprint.ts';
import { clientCredentialsToken, type SignedInUser, signedInUser } from './oauth.ts';
import { OpenApi, serviceBase, serviceOf } from './openapi.ts';
import { callOperation, type OperationCall } from './operation-calls.ts';
import { subscriber } from './runtime.ts';
import { accessOf, type ServiceFixture, type ServiceSubject } from './service-fixture.ts';

/**
 * The security matrix: every operation of a service's OpenAPI document (as the running gateway serves
 * it), called with each credential that must be refused, gets the right refusal in the right dialect
 * with the exact code; then, with the right credentials and the fixture's example, it answers with
 * success (which keeps the fixture honest: an operation listed as public that wants a user's token
 * fails, and so does one listed as three-legged that does not, or one listed as needing authority that
 * any user may call). A refused call writes nothing (the fixture's tables are fingerprinted).
 *
 * A service gives a fixture (`ServiceFixture`, service-fixture.ts): how to build its gateway, the ids
 * its paths take, and one entry per operation — `'public'` (a subscription key is all it needs) or what else it needs. An
 * operation of the document without an entry fails the coverage test, so a new operation cannot slip
 * through unexamined. API Management's refusals carry no code on the wire: their published message is
 * the contract (reference/gateway.md), so that is what is compared.
 */

const THREE_LEGGED = 'This operation needs a three-legged OAuth token: an end user must sign in and consent.';

/** Keys a client could send that are no key: sampled, one per operation in turn. */
const MALFORMED_KEYS = ['not-a-key', 'x'.repeat(300), '0'.repeat(32), 'key with spaces', '%00'];
const MALFORMED_TOKENS = ['Bearer not.a.jwt', 'Basic dXNlcjpwYXNz', 'Bearer ', 'Bearer a.b.c.d'];

interface State {
  subject: ServiceSubject;
  key: string;
  productionKey: string;
  otherServiceKey: string;
  otherSubscriberKey: string;
  stranger?: SignedInUser;
  clientToken?: string;
  /** An organisation of this environment that the owner and the subscriber are not in. */
  foreignOrganisation: string;
  tables: FingerprintedTables[];
}

type Call = OperationCall;

export function securityMatrix(fixture: ServiceFixture): void {
  const service = serviceOf(fixture.service);
  const listed = Object.entries(fixture.operations).map(([id, entry], index) => ({
    id,
    index,
    access: accessOf(entry),
  }));
  // Operations another test file covers with its own matrix (`coveredBy`) are only checked as listed.
  const entries = listed.filter((entry) => !entry.access.coveredBy);
  let s: State;
  let api: OpenApi;

  beforeAll(async () => {
    const subject = await fixture.setup();
    const gateway = subject.gateway;
    const product = (environment: Environment, id: ServiceId = fixture.service) => `${environment}-${id}`;
    const key = subject.key ?? (await subscriber(gateway, product('sandbox'))).primaryKey;
    const needsUser = entries.some((e) => e.access.user);
    const stranger = needsUser ? (subject.stranger ?? (await signedInUser(gateway))) : undefined;
    const pool = gateway.runtime.gateway.pool;
    const foreign = await addOrganisation(pool, {
      environment: 'sandbox',
      identifier: `other-${randomBytes(4).toString('hex')}`,
      name: 'Another organisation',
    });
    if (stranger) await addMember(pool, foreign.id, stranger.userId, 'owner');
    s = {
      subject,
      key,
      productionKey: (await subscriber(gateway, product('production'))).primaryKey,
      otherServiceKey: (await subscriber(gateway, product('sandbox', fixture.otherService))).primaryKey,
      otherSubscriberKey: (await subscriber(gateway, product('sandbox'))).primaryKey,
      ...(stranger ? { stranger, clientToken: await clientCredentialsToken(gateway, stranger.userId) } : {}),
      foreignOrganisation: foreign.identifier,
      tables: subject.tables ?? [
        {
          pool: gateway.runtime.environments.sandbox.pool,
          prefixes: [`${service.id.replaceAll('-', '_')}_`],
        },
      ],
    };
    api = await OpenApi.fetch(gateway.app, serviceBase(fixture.service));
  }, 120_000);
  afterAll(() => s?.subject.close());

  const send = (entry: (typeof entries)[number], call: Call): Promise<LightMyRequestResponse> =>
    callOperation(fixture.service, s.subject, s.key, entry, call);

  const apim = (
    response: LightMyRequestResponse,
    status: number,
    message: string | RegExp,
    label: string,
  ) => {
    expect(response.statusCode, `${label}: ${response.body.slice(0, 300)}`).toBe(status);
    expect(response.json(), label).toEqual({ statusCode: status, message: expect.any(String) });
    if (typeof message === 'string') expect(response.json().message, label).toBe(message);
    else expect(response.json().message, label).toMatch(message);
  };
  const bearer = (user: SignedInUser | undefined) => (user ? `Bearer ${user.token}` : undefined);
  const owner = () => {
    if (!s.subject.owner) throw new Error('the fixture has operations that need a user but gives no owner');
    return s.subject.owner;
  };

  it('every operation of the OpenAPI document has a fixture entry, and every entry an operation', () => {
    const documented = api.operations().map((operation) => operation.id);
    const missing = documented.filter((id) => !(id in fixture.operations));
    const unknown = Object.keys(fixture.operations).filter((id) => !documented.includes(id));
    expect({ missing, unknown }, 'operations without a fixture entry / entries for no operation').toEqual({
      missing: [],
      unknown: [],
    });
  });

  describe('refused, in the right dialect with the exact code, writing nothing', () => {
    it.each(entries)('$id', async (entry) => {
      const { access, index } = entry;
      const token = access.user ? bearer(owner()) : undefined;
      const before = await fingerprint(...s.tables);
      const label = (what: string) => `${entry.id}: ${what}`;

      apim(await send(entry, { key: null, authorization: token }), 401, MISSING_KEY, label('no key'));
      const malformed = MALFORMED_KEYS[index % MALFORMED_KEYS.length]!;
      apim(
        await send(entry, { key: malformed, authorization: token }),
        401,
        INVALID_KEY,
        label('malformed key'),
      );
      // The other environment's key, one way round or the other.
      const otherEnvironment =
        index % 2 === 0
          ? await send(entry, { key: s.productionKey, authorization: token })
          : await send(entry, { environment: 'production', key: s.key, authorization: token });
      apim(otherEnvironment, 401, INVALID_KEY, label("other environment's key"));
      const otherService = await send(entry, { key: s.otherServiceKey, authorization: token });
      apim(otherService, 401, INVALID_KEY, label("other service's key"));

      if (access.user) {
        apim(await send(entry, {}), 401, THREE_LEGGED, label('no user token'));
        const client = await send(entry, { authorization: `Bearer ${s.clientToken}` });
        apim(client, 401, THREE_LEGGED, label('client-credentials token'));
        const broken = MALFORMED_TOKENS[index % MALFORMED_TOKENS.length]!;
        apim(await send(entry, { authorization: broken }), 401, /^Invalid JWT/, label('malformed token'));
        // A sandbox user's token on production, with a production key.
        const environmentToken = await send(entry, {
          environment: 'production',
          key: s.productionKey,
          authorization: token,
        });
        apim(environmentToken, 401, /^Invalid JWT/, label("other environment's token"));
      }
      if (access.user === 'authority') {
        const refusal = fixture.refusals?.noAuthority;
        if (!refusal)
          throw new Error(`${entry.id}: the fixture names no refusal for a user without authority`);
        const response = await send(entry, { authorization: bearer(s.stranger) });
        expectRefusal(response, service.dialect, refusal, label('no authority over the object'));
      }
      if (access.owned) {
        const refusal = fixture.refusals?.notOwned;
        if (!refusal) throw new Error(`${entry.id}: the fixture names no refusal for another subscriber`);
        const response = await send(entry, { key: s.otherSubscriberKey, authorization: token });
        expectRefusal(response, service.dialect, refusal, label("another subscriber's object"));
      }
      if (access.organisation) {
        const response = await send(entry, { authorization: token, organisation: s.foreignOrganisation });
        apim(
          response,
          403,
          `The caller does not act for the organisation "${s.foreignOrganisation}" in this environment.`,
          label('another organisation'),
        );
      }
      expect(await fingerprint(...s.tables), label('a refused call wrote nothing')).toBe(before);
    });
  });

  // Deletions last, so they do not take away what the other operations use.
  const allowed = [...entries].sort(
    (a, b) => Number(a.id.startsWith('DELETE ')) - Number(b.id.startsWith('DELETE ')),
  );
  describe('answered with success for the right credentials (the fixture says no more than the gateway asks)', () => {
    it.each(allowed)('$id', async (entry) => {
      const passes = async (call: Call, who: string) => {
        const response = await send(entry, call);
        const where = `${entry.id} (${who}) → ${response.statusCode} ${response.body.slice(0, 300)}`;
        // Not refused, and the fixture's example is valid: the operation answers with success.
        expect(response.statusCode, where).toBeGreaterThanOrEqual(200);
        expect(response.statusCode, where).toBeLessThan(400);
      };
      if (entry.access.user === 'any')
        await passes({ authorization: bearer(s.stranger) }, 'any signed-in user');
      await passes(
        entry.access.user ? { authorization: bearer(owner()) } : {},
        entry.access.user ? 'the owner' : 'a key alone',
      );
    });
  });
}

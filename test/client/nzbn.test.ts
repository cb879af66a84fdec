import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createClient,
  type NzbnClient,
  PreconditionFailedError,
  RegisterError,
} from '../../packages/client/src/index.ts';
import { FIXTURE, type NzbnTest, nzbnTest } from '../services/nzbn/support/api.ts';
import { partRequest } from '../services/nzbn/support/bodies.ts';
import { listening, servesCommittedDocuments } from './support.ts';

/**
 * The business number register through the client, against a running gateway with the sandbox seed:
 * searches paged from page 0, an entity and its parts, a conditional write by a user who holds
 * authority, and the register's own error dialect (`errorCode` and its `list`).
 */
let t: NzbnTest;
let baseUrl: string;
let nzbn: NzbnClient;

beforeAll(async () => {
  t = await nzbnTest({ entities: 300 });
  baseUrl = await listening(t.gateway);
  nzbn = createClient({ register: 'nzbn', environment: 'sandbox', baseUrl, key: t.key });
}, 180_000);
afterAll(async () => t?.close());

it('is served the documents its types were made from', async () => {
  await servesCommittedDocuments(baseUrl, 'nzbn', '/nzbn/v5');
});

describe('reads', () => {
  it('searches page after page from the register’s page 0', async () => {
    const first = await nzbn.EntitiesGet({ query: { 'search-term': 'sandbox', 'page-size': 5 } });
    expect(first.page).toBe(0);
    const all = [];
    for await (const item of nzbn.paginate('EntitiesGet', {
      query: { 'search-term': 'sandbox', 'page-size': 5 },
    })) {
      all.push(item.nzbn);
    }
    expect(all.length).toBe(first.totalItems);
    expect(new Set(all).size).toBe(all.length);
  });

  it('reads an entity and its addresses by their operation ids', async () => {
    const entity = await nzbn.EntitiesByNzbnGet({ path: { nzbn: FIXTURE.company } });
    expect(entity.nzbn).toBe(FIXTURE.company);
    const addresses = await nzbn.EntitiesAddressesByNzbnGet({
      path: { nzbn: FIXTURE.company },
      query: { 'address-type': 'ALL' },
    });
    expect(Array.isArray(addresses.links)).toBe(true);
  });
});

/** What the client sent, attempt by attempt, and what the gateway answered. */
interface Attempt {
  call: string;
  ifMatch: string | null;
  requestId: string | null;
  status: number;
  retryAfter: string | null;
  at: number;
}

/**
 * The owner's client, and every attempt it makes. `scenarios`: the `Sandbox-Scenario` header of the
 * first attempts, in order (a fault on those only, as a user's own fetch wrapper would rehearse one).
 */
function ownerClient(scenarios: string[] = []) {
  const sent: Attempt[] = [];
  const client = createClient({
    register: 'nzbn',
    environment: 'sandbox',
    baseUrl,
    key: t.key,
    oauth: { token: async () => t.owner.token },
    retry: { attempts: 3 },
    fetch: async (input, init) => {
      const request = new Request(input, init);
      const scenario = scenarios.shift();
      if (scenario) request.headers.set('Sandbox-Scenario', scenario);
      const answer = await fetch(request);
      sent.push({
        call: `${request.method} ${new URL(request.url).pathname}`,
        ifMatch: request.headers.get('if-match'),
        requestId: request.headers.get('api-business-govt-nz-Request-Id'),
        status: answer.status,
        retryAfter: answer.headers.get('retry-after'),
        at: performance.now(),
      });
      return answer;
    },
  });
  return { client, sent, scenarios };
}

describe('a conditional write', () => {
  it('sends the ETag its x-etag-of names as If-Match, and a stale one gets a typed 412', async () => {
    const { client: owner, sent } = ownerClient();
    const path = { nzbn: FIXTURE.authority };
    // The privacy settings hold against the entity's ETag (its authorised view): read both, write one.
    await owner.EntitiesByNzbnGet({ path });
    const entityEtag = owner.transport.etagOf(`/entities/${FIXTURE.authority}`);
    expect(entityEtag).toMatch(/"/);
    const settings = await owner.EntitiesPrivacySettingsByNzbnGet({ path });
    const changed = await owner.EntitiesPrivacySettingsByNzbnPut({
      path,
      body: { ...settings, phonePrivateInformation: !settings.phonePrivateInformation },
    });
    expect(changed.phonePrivateInformation).toBe(!settings.phonePrivateInformation);
    expect(sent.at(-1)).toMatchObject({
      call: `PUT /sandbox/nzbn/v5/entities/${FIXTURE.authority}/privacy-settings`,
      ifMatch: entityEtag,
    });
    const stale = await owner
      .EntitiesPrivacySettingsByNzbnPut({ path, body: settings, ifMatch: '"stale"' })
      .catch((e) => e);
    expect(stale).toBeInstanceOf(PreconditionFailedError);
    expect(stale.status).toBe(412);
    expect(stale.sentEtag).toBe('"stale"');
    expect(stale.details.kind).toBe('nzbn');
  });

  it('holds an organisation part’s item against the part’s ETag, not the entity’s', async () => {
    const { client: owner, sent } = ownerClient();
    const nzbn = FIXTURE.authority;
    const made = await owner.EntitiesOrganisationPartByNzbnPost({
      path: { nzbn },
      body: partRequest({ name: 'Client Depot' }) as never,
    });
    const opn = made.opn!;
    await owner.EntitiesByNzbnGet({ path: { nzbn } });
    await owner.EntitiesOrganisationPartByNzbnGet({ path: { nzbn, opn } });
    const partEtag = owner.transport.etagOf(`/entities/${nzbn}/organisation-parts/${opn}`);
    expect(partEtag).toMatch(/"/);
    expect(partEtag).not.toBe(owner.transport.etagOf(`/entities/${nzbn}`));
    await owner.EntitiesOrganisationPartByNzbnPhoneNumberPost({
      path: { nzbn, opn },
      body: { phoneAreaCode: '6', phoneNumber: '8351234', phonePurpose: 'Primary' } as never,
    });
    expect(sent.at(-1)).toMatchObject({
      call: `POST /sandbox/nzbn/v5/entities/${nzbn}/organisation-parts/${opn}/phone-numbers`,
      ifMatch: partEtag,
    });
  });
});

describe('errors', () => {
  it('gives the register’s errorCode and list', async () => {
    const refused = await nzbn
      .EntitiesGet({ query: { 'search-term': 'sandbox', 'page-size': 1000 } })
      .catch((e) => e);
    expect(refused).toBeInstanceOf(RegisterError);
    expect(refused.details.kind).toBe('nzbn');
    expect(refused.details.errorCode).toMatch(/\S/);
    expect(refused.details.list.map((p: { field: string }) => p.field)).toContain('page-size');
  });
});

describe('retries against the sandbox’s scenarios', () => {
  const path = { nzbn: FIXTURE.authority };

  it('waits out a 429’s Retry-After on a read, then succeeds', async () => {
    const { client, sent } = ownerClient(['throttled=1']);
    const entity = await client.EntitiesByNzbnGet({ path });
    expect(entity.nzbn).toBe(FIXTURE.authority);
    expect(sent.map((a) => a.status)).toEqual([429, 200]);
    expect(sent[0]!.retryAfter).toBe('1');
    // The wait is the client's own sleep of Retry-After: a lower bound, never an upper one.
    expect(sent[1]!.at - sent[0]!.at).toBeGreaterThanOrEqual(950);
  });

  it('retries a write that carries a request id, under that id, once the 429 has passed', async () => {
    const { client, sent, scenarios } = ownerClient();
    await client.EntitiesByNzbnGet({ path });
    const settings = await client.EntitiesPrivacySettingsByNzbnGet({ path });
    const requestId = crypto.randomUUID();
    scenarios.push('throttled=1');
    const changed = await client.EntitiesPrivacySettingsByNzbnPut({
      path,
      body: { ...settings, emailPrivateInformation: !settings.emailPrivateInformation },
      requestId,
    });
    expect(changed.emailPrivateInformation).toBe(!settings.emailPrivateInformation);
    const writes = sent.filter((a) => a.call.startsWith('PUT'));
    expect(writes.map((a) => [a.status, a.requestId])).toEqual([
      [429, requestId],
      [200, requestId],
    ]);
  });

  it('never resends a refused write that carries no request id (maintenance, 503)', async () => {
    const { client, sent, scenarios } = ownerClient();
    await client.EntitiesByNzbnGet({ path });
    const settings = await client.EntitiesPrivacySettingsByNzbnGet({ path });
    sent.length = 0;
    scenarios.push('maintenance=1', 'maintenance=1', 'maintenance=1');
    const refused = await client.EntitiesPrivacySettingsByNzbnPut({ path, body: settings }).catch((e) => e);
    expect(refused).toBeInstanceOf(RegisterError);
    expect(refused.status).toBe(503);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.retryAfter).toMatch(/^\d+$/);
    expect(refused.details.kind).toBe('nzbn');
    // A read under the same fault is retried: it meets the fault twice more, then answers.
    sent.length = 0;
    const read = await client.EntitiesPrivacySettingsByNzbnGet({ path });
    expect(read).toEqual(settings);
    // The last attempt sends the remembered ETag: 304, answered with the body the client holds.
    expect(sent.map((a) => a.status)).toEqual([503, 503, 304]);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createClient,
  NoAnswerError,
  type PpsrClient,
  PreconditionFailedError,
  RegisterError,
} from '../../packages/client/src/index.ts';
import { type PpsrTest, ppsrTest, registration as untyped } from '../services/ppsr/support/api.ts';
import { listening, servesCommittedDocuments } from './support.ts';

/**
 * The secured interests register through the client, against a running gateway: every operation family
 * (registrations and their ETags, searches, groups, fees and transactions), its errors as typed values,
 * and the register's timeout pattern against the sandbox's `Sandbox-Processing-Delay`.
 */
let test: PpsrTest;
let baseUrl: string;
let ppsr: PpsrClient;

beforeAll(async () => {
  test = await ppsrTest();
  baseUrl = await listening(test.gateway);
  ppsr = createClient({
    register: 'ppsr',
    environment: 'sandbox',
    baseUrl,
    key: test.key,
    oauth: { token: async () => test.user.token },
  });
}, 120_000);
afterAll(async () => test?.close());

/** The harness's registration body, as the client's type of it (the harness's is untyped). */
type Registration = NonNullable<Parameters<PpsrClient['PPSR_17']>[0]>['body'];
const registration = (overrides: Record<string, unknown> = {}) => untyped(overrides) as Registration;

const sandbox = () => test.gateway.runtime.environments.sandbox.pool;
const count = async (sql: string, params: unknown[]) =>
  Number((await sandbox().query<{ n: string }>(sql, params)).rows[0]!.n);

it('is served the documents its types were made from', async () => {
  await servesCommittedDocuments(baseUrl, 'ppsr', '/ppsr/v2');
});

describe('financing statements', () => {
  it('registers, reads with the ETag remembered, and amends with If-Match', async () => {
    const created = await ppsr.PPSR_17({ body: registration(), requestId: crypto.randomUUID() });
    const path = { registrationNumber: created.registrationNumber };
    const read = await ppsr.PPSR_01({ path });
    expect(read.registrationNumber).toBe(created.registrationNumber);
    const etag = ppsr.transport.etagOf(`/financing-statements/${created.registrationNumber}`);
    expect(etag).toBeTruthy();
    // A second read sends If-None-Match: the gateway answers 304 and the client the body it holds.
    const again = await ppsr.send('PPSR_01', { path });
    expect(again.body).toEqual(read);
    const amended = await ppsr.PPSR_03({
      path,
      body: registration({ expiryDate: '2029-01-01' }),
    });
    expect(amended.version).toBe(read.version + 1);
  });

  it('answers a write on a stale ETag with a typed 412', async () => {
    const created = await ppsr.PPSR_17({ body: registration() });
    const path = { registrationNumber: created.registrationNumber };
    await ppsr.PPSR_01({ path });
    const stale = '"not-the-current-version"';
    const refused = await ppsr.PPSR_03({ path, body: registration(), ifMatch: stale }).catch((e) => e);
    expect(refused).toBeInstanceOf(PreconditionFailedError);
    expect(refused.sentEtag).toBe(stale);
    expect(refused.details.kind).toBe('problem');
  });

  it('lists versions, searches, and pages through the fees', async () => {
    const created = await ppsr.PPSR_17({ body: registration() });
    const versions = await ppsr.PPSR_55({ path: { registrationNumber: created.registrationNumber } });
    expect(versions.versions.map((v) => v.version)).toEqual([1]);
    const found = await ppsr.PPSR_02({
      body: {
        searchBy: 'registrationNumber',
        legitimateSearchReason: 'yes',
        searchByRegistrationNumber: { registrationNumber: created.registrationNumber },
      } as never,
    });
    expect(found.financingStatements.map((s) => s.registrationNumber)).toContain(created.registrationNumber);
    const fees = [];
    for await (const fee of ppsr.paginate('PPSR_43', { query: { 'page-size': 2 } })) fees.push(fee);
    expect(fees.length).toBeGreaterThan(2);
  });
});

describe('errors as typed values', () => {
  it('gives the register’s problem+json for an unknown statement', async () => {
    const missing = await ppsr.PPSR_01({ path: { registrationNumber: 'ZZ00Z000Z0ZZ0000' } }).catch((e) => e);
    expect(missing).toBeInstanceOf(RegisterError);
    expect(missing.details.kind).toBe('problem');
    expect(missing.status).toBe(404);
  });

  it('gives API Management’s body for a wrong key', async () => {
    const stranger = createClient({ register: 'ppsr', environment: 'sandbox', baseUrl, key: 'not-a-key' });
    const refused = await stranger.PPSR_44().catch((e) => e);
    expect(refused).toBeInstanceOf(RegisterError);
    expect(refused.details.kind).toBe('gateway');
    expect(refused.status).toBe(401);
  });
});

describe('the timeout pattern', () => {
  it('outlasts a slow registration: one registration, one fee, no duplicate', async () => {
    const steps: string[] = [];
    // The sandbox holds the work 3 s; the client's own timeout is 1 s here (above 180 s by default).
    const outcome = await ppsr.transact(
      'PPSR_17',
      { body: registration(), header: { 'Sandbox-Processing-Delay': 3 } as never },
      { timeoutMs: 1_000, backOffMs: 500, rounds: 6, onStep: (s) => steps.push(s.step) },
    );
    expect(steps.slice(0, 3)).toEqual(['sent', 'no-answer', 'looked-up']);
    expect(outcome.answer.registrationNumber).toMatch(/^[A-Z0-9]{16}$/);
    const id = outcome.requestId;
    expect(await count('SELECT count(*) AS n FROM ppsr_transactions WHERE request_id = $1', [id])).toBe(1);
    expect(await count('SELECT count(*) AS n FROM fee_records WHERE request_id = $1', [id])).toBe(1);
    const [record] = await ppsr.transactionsOf(id);
    expect(record?.registrationNumber).toBe(outcome.answer.registrationNumber);
  });

  it('gives up with NoAnswerError after its rounds, having resent under one request id only', async () => {
    const requestId = crypto.randomUUID();
    const failed = await ppsr
      .transact(
        'PPSR_17',
        { body: registration(), requestId, header: { 'Sandbox-Processing-Delay': 2 } as never },
        { timeoutMs: 300, backOffMs: 100, rounds: 2 },
      )
      .catch((e) => e);
    expect(failed).toBeInstanceOf(NoAnswerError);
    // The work goes on and completes once: its record, under the one id.
    await expect.poll(async () => (await ppsr.transactionsOf(requestId)).length, { timeout: 10_000 }).toBe(1);
    expect(await count('SELECT count(*) AS n FROM fee_records WHERE request_id = $1', [requestId])).toBe(1);
  });
});

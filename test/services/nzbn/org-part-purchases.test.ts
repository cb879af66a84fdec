import type { QueryResultRow } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember } from '../../../src/identity/store/memberships.ts';
import { signedInUser } from '../../support/oauth.ts';
import { subscriber } from '../../support/runtime.ts';
import { FIXTURE, type NzbnTest, nzbnTest } from './support/api.ts';
import { PURCHASER, partRequest } from './support/bodies.ts';
import { OpenApi } from './support/openapi.ts';

/**
 * Purchases of organisation parts in the sandbox: a part beyond an entity's second is a purchase
 * (purchaserDetails required), APPROVED at once with its fee charged once through the ledger, read back at
 * GET /entities/organisation-parts-purchase/{transaction_id} by its purchaser only; a request id runs
 * once. The production refusal (DECLINED, 402) is in test/billing/nzbn-fees.test.ts.
 */
let t: NzbnTest;
let api: OpenApi;
beforeAll(async () => {
  t = await nzbnTest({ entities: 1_000 });
  api = await OpenApi.load(t);
  await t.grant(t.owner.userId, FIXTURE.orgParts);
});
afterAll(() => t?.close());

// The fixed test case with three parts: every new part of it is a purchase.
const P = FIXTURE.orgParts;
const sql = <T extends QueryResultRow>(text: string, values: unknown[] = []) =>
  t.gateway.runtime.environments.sandbox.pool.query<T>(text, values).then((r) => r.rows);
const create = (body: unknown, headers: Record<string, string> = {}) =>
  t.call('POST', `/entities/${P}/organisation-parts`, { token: t.owner.token, payload: body, headers });
const purchaseOf = (response: { headers: Record<string, unknown> }) => {
  const link = /^<([^>]+\/entities\/organisation-parts-purchase\/([0-9a-f-]{36}))>; rel="related"$/.exec(
    String(response.headers.link),
  );
  if (!link) throw new Error(`no purchase link: ${String(response.headers.link)}`);
  return { url: link[1]!, id: link[2]! };
};
const read = (id: string, options: { key?: string; token?: string; headers?: Record<string, string> } = {}) =>
  t.call('GET', `/entities/organisation-parts-purchase/${id}`, options);
const counts = async () =>
  (
    await sql<{ parts: number; purchases: number; fees: number }>(
      `SELECT (SELECT count(*)::int FROM nzbn_organisation_parts WHERE parent_nzbn = $1) AS parts,
              (SELECT count(*)::int FROM nzbn_part_purchases WHERE nzbn = $1) AS purchases,
              (SELECT count(*)::int FROM fee_records WHERE service = 'nzbn') AS fees`,
      [P],
    )
  )[0]!;

describe('a part beyond the second is a purchase', () => {
  it('is APPROVED at once, its fee charged once, and read back in the published shape', async () => {
    const before = await counts();
    const made = await create(partRequest({ name: 'Bought Kiosk', privacy: 'PRIVATE' }));
    expect(made.statusCode, made.body).toBe(201);
    api.conforms('POST', '/entities/{nzbn}/organisation-parts', made);
    const opn = made.json().opn as string;
    const { url, id } = purchaseOf(made);
    expect(url).toMatch(/^http:\/\/[^/]+\/sandbox\/nzbn\/v5\/entities\/organisation-parts-purchase\//);
    expect(await counts()).toEqual({
      parts: before.parts + 1,
      purchases: before.purchases + 1,
      fees: before.fees + 1,
    });

    const answer = await read(id);
    expect(answer.statusCode, answer.body).toBe(200);
    api.conforms('GET', '/entities/organisation-parts-purchase/{transaction_id}', answer);
    const fee = await sql<{ id: string; amount_cents: number; gst_cents: number; object_id: string }>(
      "SELECT id::text, amount_cents, gst_cents, object_id FROM fee_records WHERE service = 'nzbn' ORDER BY id DESC LIMIT 1",
    );
    expect(fee[0]!.object_id).toBe(opn);
    expect(answer.json()).toEqual({
      purchaseId: id,
      purchaserName: PURCHASER.purchaserName,
      purchaserEmailAddress: PURCHASER.purchaserEmailAddress,
      purchaserPhoneNumber: PURCHASER.purchaserPhoneNumber,
      purchaseRedirectUrl: PURCHASER.purchaseRedirectUrl,
      purchaseAmount: 5.75,
      purchaseStatus: 'APPROVED',
      paymentTransactionId: String(made.headers['api-business-govt-nz-request-id']),
      paymentOrderUrl: null,
      paymentOrderTime: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[+-]\d{4}$/),
      paymentNumber: expect.stringMatching(/\S/),
      paymentResponseCode: 'charged',
      paymentReceiptNumber: fee[0]!.id,
      issuedOpn: opn,
    });
    // A read like any other: 304 to its ETag.
    const again = await read(id, { headers: { 'if-none-match': String(answer.headers.etag) } });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    expect(answer.headers['last-modified']).toBeDefined();
  });

  it('needs purchaserDetails with its four published fields; nothing is written without them', async () => {
    const before = await counts();
    const bare = await create({ termsAndConditionsAccepted: true, organisationPart: { name: 'Unpaid' } });
    expect(bare.statusCode).toBe(400);
    expect(bare.json().list[0].field).toBe('purchaserDetails');
    const { purchaserName: _, ...nameless } = PURCHASER;
    const partial = await create({ ...partRequest({ name: 'Unpaid' }), purchaserDetails: nameless });
    expect(partial.statusCode).toBe(400);
    expect(partial.json().list.map((f: { field: string }) => f.field)).toContain(
      'purchaserDetails.purchaserName',
    );
    const redirect = await create({
      ...partRequest({ name: 'Unpaid' }),
      purchaserDetails: { ...PURCHASER, purchaseRedirectUrl: 'http://example.test/back' },
    });
    expect(redirect.statusCode).toBe(400);
    expect(redirect.json().list[0]).toEqual({
      field: 'purchaserDetails.purchaseRedirectUrl',
      message: 'must use https (http only for localhost)',
    });
    // A bad part is refused before anything is paid.
    const odd = await create(partRequest({ name: 'Odd', function: 'Warehouse' }));
    expect(odd.statusCode).toBe(400);
    expect(odd.json().list[0].field).toBe('function');
    expect(await counts()).toEqual(before);
  });

  it('a retried request (the same request id) answers the first answer: one part, one purchase, one fee', async () => {
    const before = await counts();
    const id = { 'api-business-govt-nz-Request-Id': `retry-${Date.now()}` };
    const body = partRequest({ name: 'Retried Counter' });
    // A retry may arrive while the first still runs.
    const [first, second] = await Promise.all([create(body, id), create(body, id)]);
    const third = await create(body, id);
    for (const answer of [first, second, third]) {
      expect(answer.statusCode, answer.body).toBe(201);
      expect(answer.json()).toEqual(first.json());
      expect(answer.headers.link).toBe(first.headers.link);
      expect(answer.headers.location).toBe(first.headers.location);
    }
    expect(await counts()).toEqual({
      parts: before.parts + 1,
      purchases: before.purchases + 1,
      fees: before.fees + 1,
    });
    const charged = await sql<{ n: number }>(
      `SELECT count(*)::int AS n FROM fee_records f JOIN nzbn_part_purchases p ON p.fee_record_id = f.id
        WHERE p.purchase_id = $1`,
      [purchaseOf(first).id],
    );
    expect(charged[0]!.n).toBe(1);
    // The same id for another request is refused, naming the header; nothing is written.
    const reused = await create(partRequest({ name: 'Another Counter' }), id);
    expect(reused.statusCode).toBe(400);
    expect(reused.json().list[0].field).toBe('api-business-govt-nz-Request-Id');
    expect(await counts()).toEqual({
      parts: before.parts + 1,
      purchases: before.purchases + 1,
      fees: before.fees + 1,
    });
    // Without a request id, each request is its own purchase.
    await create(body);
    await create(body);
    expect((await counts()).purchases).toBe(before.purchases + 3);
  });
});

describe('a purchase is its purchaser’s', () => {
  it('another subscription or user gets the 404 of a purchase that does not exist; a member of the paying organisation reads it', async () => {
    const made = await create(partRequest({ name: 'Guarded Kiosk' }));
    const { id } = purchaseOf(made);
    const other = (await subscriber(t.gateway, 'sandbox-nzbn')).primaryKey;
    const missing = await read('00000000-0000-4000-8000-000000000000');
    expect(missing.statusCode).toBe(404);
    for (const options of [{ key: other }, { key: other, token: t.stranger.token }]) {
      const hidden = await read(id, options);
      expect(hidden.statusCode).toBe(404);
      expect(hidden.json()).toEqual({ ...missing.json(), errorDescription: expect.any(String) });
      expect(hidden.json().errorDescription).toBe(
        `Object Not Found: no organisation part purchase has the id ${id}`,
      );
    }
    // The same subscription reads it with or without a user; so does the paying organisation's member.
    expect((await read(id, { token: t.stranger.token })).statusCode).toBe(200);
    const paying = await sql<{ organisation_id: string }>(
      'SELECT organisation_id FROM nzbn_part_purchases WHERE purchase_id = $1',
      [id],
    );
    const member = await signedInUser(t.gateway);
    await addMember(t.gateway.runtime.gateway.pool, paying[0]!.organisation_id, member.userId, 'member');
    expect((await read(id, { key: other, token: member.token })).statusCode).toBe(200);
  });

  it('a transaction id that is not a purchase id is a 400 naming it', async () => {
    const bad = await read('1%20OR%201=1');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().list[0]).toEqual({
      field: 'transaction_id',
      message: 'must be a purchase id (a UUID)',
    });
  });
});

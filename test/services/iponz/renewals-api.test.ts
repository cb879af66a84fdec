import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, addMonths } from '../../../src/platform/calendar.ts';
import { setClock } from '../../../src/platform/environment-clocks.ts';
import { FIXED_CLIENTS, fixedCases } from '../../../src/services/iponz/sandbox/fixtures.ts';
import { loadCases, loadClients } from '../../../src/services/iponz/store/seed.ts';
import { fingerprint, organisationOf } from '../../billing/support/api.ts';
import { signedInUser } from '../../support/oauth.ts';
import { type IponzTest, iponzTest, NOW, TODAY } from './support/api.ts';

/**
 * Renewals through the API: the check on the fixed cases (due now, in grace, none), the payment by a
 * registered user (fee records through the billing module, expiry and status history moved, one
 * transaction), exactly once per request id, If-Match, refusals (an unregistered user; in production
 * no organisation or no direct debit authority) that write nothing, and the check's state at each
 * boundary date as the sandbox clock moves.
 */
let t: IponzTest;
beforeAll(async () => {
  t = await iponzTest();
}, 120_000);
afterAll(async () => t?.close());

const sandbox = () => t.gateway.runtime.environments.sandbox.pool;
const REQUEST_ID = 'api-business-govt-nz-request-id';
const feeCount = async (id: string) =>
  Number(
    (
      await sandbox().query(`SELECT count(*) FROM fee_records WHERE object_id = $1 AND service = 'iponz'`, [
        id,
      ])
    ).rows[0].count,
  );
const renew = (
  path: string,
  requestId: string,
  headers: Record<string, string> = {},
  token = t.owner.token,
) =>
  t.call('POST', `${path}/renew`, { token, headers: { [REQUEST_ID]: requestId, ...headers }, payload: {} });

describe('the check', () => {
  it('a renewal due now: open, its window and amount (NZ$200 + GST)', async () => {
    const response = await t.call('GET', '/patents/500050/renewal');
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({
      caseType: 'patent',
      renewalDue: true,
      state: 'open',
      fee: 'renewal',
      anniversary: 5,
      dueDate: addMonths(TODAY, 1),
      amount: {
        feeCode: 'IPONZ_PATENT_RENEWAL_4_TO_9',
        amountCents: 20_000,
        gstCents: 3_000,
        totalCents: 23_000,
      },
    });
  });
  it('in grace: the late fee added for a patent, none for a trade mark', async () => {
    expect((await t.call('GET', '/patents/500051/renewal')).json()).toMatchObject({
      state: 'grace',
      amount: { baseFeeCents: 20_000, lateFeeCents: 10_000, amountCents: 30_000 },
    });
    expect((await t.call('GET', '/trademarks/1000051/renewal')).json()).toMatchObject({
      state: 'grace',
      status: 'Registered - past expiry date',
      amount: { lateFeeCents: 0, amountCents: 40_000 }, // two classes
    });
  });
  it('none in a status that takes no fee', async () => {
    const response = await t.call('GET', '/patents/500004/renewal'); // Withdrawn
    expect(response.json()).toMatchObject({
      renewalDue: false,
      state: 'none',
      reason: 'status',
      amount: null,
    });
  });
});

describe('paying', () => {
  it('charges once, moves the expiry, writes the status history; a repeat answers the same', async () => {
    const before = (await t.call('GET', '/designs/400050/renewal')).json();
    const first = await renew('/designs/400050', 'renew-design-1');
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toMatchObject({
      caseType: 'design',
      renewedDueDate: before.dueDate,
      expiryDate: before.nextExpiryDate,
      amountCents: 10_000,
      late: false,
    });
    expect(first.json().feeRecordIds).toHaveLength(1);
    expect(await feeCount('400050')).toBe(1);
    const again = await renew('/designs/400050', 'renew-design-1');
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual(first.json());
    expect(await feeCount('400050')).toBe(1);
    // The next fee is now the second renewal, not yet open; the XML shows the new expiry and history.
    expect((await t.call('GET', '/designs/400050/renewal')).json()).toMatchObject({
      renewal: 2,
      renewalDue: false,
    });
    const xml = (await t.call('GET', '/designs/400050')).body;
    expect(xml).toContain(`<ExpiryDate>${before.nextExpiryDate}</ExpiryDate>`);
    expect(xml.match(/<Status>/g)?.length).toBeGreaterThan(1);
  });

  it('in grace: the base fee and the late payment fee; a trade mark is registered again', async () => {
    const patent = await renew('/patents/500051', 'renew-patent-grace');
    expect(patent.statusCode, patent.body).toBe(200);
    expect(patent.json()).toMatchObject({ late: true, amountCents: 30_000 });
    expect(patent.json().feeRecordIds).toHaveLength(2);
    const mark = await renew('/trademarks/1000051', 'renew-mark-grace');
    expect(mark.json()).toMatchObject({ status: 'Registered', late: true });
    const { rows } = await sandbox().query(
      `SELECT fee_code, amount_cents FROM fee_records WHERE object_id = '1000051'`,
    );
    expect(rows).toMatchObject([{ fee_code: 'IPONZ_TRADE_MARK_RENEWAL', amount_cents: 40_000 }]); // two classes
  });

  it('honours If-Match: a stale ETag is 412 and writes nothing; the current one pays', async () => {
    const etag = String((await t.call('GET', '/trademarks/1000050/renewal')).headers.etag);
    const stale = await renew('/trademarks/1000050', 'renew-mark-stale', {
      'if-match': '"trademark-1000050-v0"',
    });
    expect(stale.statusCode).toBe(412);
    expect(await feeCount('1000050')).toBe(0);
    const ok = await renew('/trademarks/1000050', 'renew-mark-current', { 'if-match': etag });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.headers.etag).not.toBe(etag);
  });

  it('If-Match may name any ETag of the case as it stands; a weak or an older one is 412', async () => {
    // Paid in the test before: its renewal is not payable now, so a precondition that holds meets the
    // domain's 400 and one that fails is 412, neither writing anything.
    const before = await fingerprint(sandbox());
    const read = await t.call('GET', '/trademarks/1000050');
    const xmlEtag = String(read.headers.etag);
    const held = await renew('/trademarks/1000050', 'renew-mark-xml-etag', { 'if-match': xmlEtag });
    expect(held.statusCode, held.body).toBe(400);
    expect(held.json().errors[0].field).toBe('trademark-number');
    const preconditions: Record<string, string>[] = [
      { 'if-match': `W/${xmlEtag}` },
      { 'if-match': xmlEtag.replace(/-v([0-9]+)-/, (_, v) => `-v${Number(v) - 1}-`) },
      { 'if-unmodified-since': 'Sat, 01 Jan 2000 00:00:00 GMT' },
    ];
    for (const headers of preconditions) {
      const refused = await renew('/trademarks/1000050', 'renew-mark-refused', headers);
      expect(refused.statusCode, JSON.stringify(headers)).toBe(412);
    }
    expect(await fingerprint(sandbox())).toBe(before);
  });

  it('refuses an unregistered user, writing nothing', async () => {
    const before = await fingerprint(sandbox());
    const response = await renew('/patents/500050', 'renew-stranger', {}, t.stranger.token);
    expect(response.statusCode).toBe(403);
    expect(response.json().type).toBe('about:blank#not-registered-user');
    expect(await fingerprint(sandbox())).toBe(before);
  });

  it('refuses what is not payable, naming the case number; a request id reused for another case', async () => {
    const withdrawn = await renew('/patents/500004', 'renew-withdrawn');
    expect(withdrawn.statusCode).toBe(400);
    expect(withdrawn.json().errors[0].field).toBe('patent-number');
    const reused = await renew('/patents/500050', 'renew-design-1');
    expect(reused.statusCode).toBe(400);
    expect(reused.json().errors[0].field).toBe(REQUEST_ID);
  });

  it('concurrent repeats of one request id charge once', async () => {
    const answers = await Promise.all(
      Array.from({ length: 4 }, () => renew('/patents/500050', 'renew-patent-concurrent')),
    );
    for (const answer of answers) expect(answer.statusCode, answer.body).toBe(200);
    expect(new Set(answers.map((a) => a.body)).size).toBe(1);
    expect(await feeCount('500050')).toBe(1);
  });

  it('keys nothing by an id the gateway made: sending it later is a request of its own, not a replay', async () => {
    const first = await t.call('POST', '/designs/400051/renew', { token: t.owner.token, payload: {} });
    expect(first.statusCode, first.body).toBe(200);
    const generated = String(first.headers[REQUEST_ID]);
    expect(first.json().requestId).toBe(generated);
    expect(await feeCount('400051')).toBe(1);
    // The same renewal under that id, sent explicitly: handled as a renewal of its own (the next one
    // owed on this case in grace), not the first answer replayed.
    const again = await renew('/designs/400051', generated);
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json().feeRecordIds).not.toEqual(first.json().feeRecordIds);
    expect(again.json().renewedDueDate).not.toBe(first.json().renewedDueDate);
    expect(await feeCount('400051')).toBeGreaterThan(1);
  });
});

describe('production', () => {
  it('refuses without an organisation, then without a direct debit authority, writing nothing', async () => {
    const production = t.gateway.runtime.environments.production.pool;
    await loadClients(production, FIXED_CLIENTS, new Date());
    await loadCases(
      production,
      fixedCases(TODAY).filter((c) => c.caseNumber === 500050),
      new Date(),
    );
    const user = await signedInUser(t.gateway, 'production');
    await t.register(user.userId, 'production');
    const call = () =>
      t.call('POST', '/gateway/iponz/v5/patents/500050/renew', {
        key: t.productionKey,
        token: user.token,
        headers: { [REQUEST_ID]: 'production-1' },
        payload: {},
      });
    const before = await fingerprint(production);
    const noOrganisation = await call();
    expect(noOrganisation.statusCode).toBe(403);
    expect(noOrganisation.json().type).toBe('about:blank#billing-organisation-required');
    await organisationOf(t.gateway, 'production', user.userId, 'member');
    const noAuthority = await call();
    expect(noAuthority.statusCode).toBe(403);
    expect(noAuthority.json().type).toBe('about:blank#direct-debit-authority-required');
    expect(await fingerprint(production)).toBe(before);
  });
});

describe('the check at each boundary date (the sandbox clock moved)', () => {
  it('not yet open, open, due, grace, last day of grace, lapsed', async () => {
    const check = (await t.call('GET', '/trademarks/1000004/renewal')).json(); // Registered, not due yet
    const { windowOpens, dueDate, graceEnds } = check;
    const states: [string, string][] = [
      [addDays(windowOpens, -1), 'not-yet-open'],
      [windowOpens, 'open'],
      [dueDate, 'open'],
      [addDays(dueDate, 1), 'grace'],
      [graceEnds, 'grace'],
      [addDays(graceEnds, 1), 'lapsed'],
    ];
    try {
      for (const [day, state] of states) {
        await setClock(t.gateway.runtime.gateway.pool, 'sandbox', `${day}T12:00:00+12:00`);
        await t.gateway.runtime.clocks.reload();
        const response = (await t.call('GET', '/trademarks/1000004/renewal')).json();
        expect(response.state, day).toBe(state);
        expect(response.renewalDue, day).toBe(state === 'open' || state === 'grace');
      }
    } finally {
      await setClock(t.gateway.runtime.gateway.pool, 'sandbox', NOW);
      await t.gateway.runtime.clocks.reload();
    }
  });
});

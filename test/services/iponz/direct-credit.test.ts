import { randomUUID } from 'node:crypto';
import * as soap from 'soap';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { BILLING_ERRORS } from '../../../src/billing/errors.ts';
import { identityDirectory } from '../../../src/billing/store/directory.ts';
import { closeDueMonths } from '../../../src/billing/store/month-end.ts';
import { serviceContext } from '../../../src/gateway/service-context.ts';
import { addMember } from '../../../src/identity/store/memberships.ts';
import { withTransaction } from '../../../src/platform/db/pool.ts';
import { fingerprint, organisationOf } from '../../billing/support/api.ts';
import { signedInUser as portalUser } from '../../portal/support/api.ts';
import { rsg } from '../../support/cli.ts';
import { signedInUser } from '../../support/oauth.ts';
import { expectValidAnswer, type SoapTest, soapTest } from './support/soap-filing.ts';

/**
 * Direct credit from outside, in production: an organisation without a direct debit authority has its
 * prepaid account topped up by an operator (the `rsg` command, then the portal's form); a trade mark
 * filed through the `soap` client reading the production WSDL is charged to it (fee and GST taken from
 * the balance, shown in the portal and on the month's invoice); a filing the balance cannot cover is
 * refused (402 `direct-credit-insufficient`) and writes nothing. The secured interests register, whose
 * rules accept no direct credit, still refuses the same organisation for want of a direct debit
 * authority.
 */
let t: SoapTest;
beforeAll(async () => {
  t = await soapTest();
}, 300_000);
afterAll(async () => t?.close());

const APPLICANT = {
  ApplicantDetails: {
    Name: 'Koru Exports Limited',
    ClientType: 'Organisation',
    Address: { AddressLine1: '5 Quay Street', City: 'Auckland', Postcode: '1010', CountryCode: 'NZ' },
  },
};
const tradeMark = (reference: string, classes: number) => ({
  TransactionCode: 'Trade Mark E-Filing',
  ApplicationReference: reference,
  ApplicationContact: 'Applicant',
  RegistrationOfficeCode: 'NZ',
  IntendedUseCode: 'YAPP',
  MarkTitle: `KORU ${reference}`,
  Applicant: APPLICANT,
  GoodsAndServices: {
    ClassDescription: Array.from({ length: classes }, (_, i) => ({
      ClassNumber: String(i + 1),
      Description: 'Goods',
    })),
  },
});

/** Waits until the IP office's job has sent every discussion's email (it runs once a second). */
const waitForMail = (pool: typeof t.gateway.runtime.environments.production.pool) =>
  vi.waitFor(
    async () => {
      const { rows } = await pool.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM iponz_discussions WHERE mailed_at IS NULL AND recipient_email IS NOT NULL',
      );
      expect(rows[0]!.n, 'discussions still to mail').toBe(0);
    },
    { timeout: 30_000, interval: 50 },
  );

describe('direct credit (production)', () => {
  it('an operator tops up; the IP office charges each fee to the balance; short, it refuses and writes nothing', async () => {
    const production = t.gateway.runtime.environments.production.pool;
    const user = await signedInUser(t.gateway, 'production');
    await t.register(user.userId, 'production');
    const organisation = await organisationOf(t.gateway, 'production', user.userId, 'owner');
    const origin = t.base.replace(/\/sandbox\/iponz\/v5$/, '');
    const headers = { 'Ocp-Apim-Subscription-Key': t.productionKey, authorization: `Bearer ${user.token}` };
    const client = await soap.createClientAsync(`${origin}/gateway/iponz/v5/trademark?wsdl`, {
      wsdl_headers: headers,
    });
    for (const [name, value] of Object.entries(headers)) client.addHttpHeader(name, value);
    const file = async (reference: string, classes: number) => {
      try {
        const [result, raw] = await client.FileTradeMarkApplicationAsync(tradeMark(reference, classes));
        return { status: 200, result, raw: raw as string };
      } catch (error) {
        const response = (error as { response?: { status: number; data: string } }).response;
        if (!response) throw error;
        return { status: response.status, result: undefined, raw: response.data };
      }
    };

    // The operator tops up NZ$250 by the command line: the account is opened.
    const cli = await rsg(
      [
        'billing',
        'credit',
        'top-up',
        '--environment',
        'production',
        '--organisation',
        organisation.identifier,
        '--amount',
        '250',
        '--note',
        'receipt 1',
      ],
      { urls: t.gateway.urls },
    );
    expect(cli.code, cli.stderr).toBe(0);
    expect(cli.stdout).toContain('direct credit balance NZ$250.00');
    const bad = await rsg(
      [
        'billing',
        'credit',
        'top-up',
        '--environment',
        'production',
        '--organisation',
        organisation.identifier,
        '--amount',
        '-5',
      ],
      { urls: t.gateway.urls },
    );
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('--amount');

    // Two classes: NZ$200 + GST NZ$30 from the balance; no direct debit authority was needed.
    const paid = await file('DC-1', 2);
    expect(paid.status, paid.raw).toBe(200);
    await expectValidAnswer('trademark', paid.raw);
    expect(paid.result.TransactionErrorCode).toBeUndefined();
    const shown = await rsg(
      [
        'billing',
        'credit',
        'show',
        '--environment',
        'production',
        '--organisation',
        organisation.identifier,
        '--json',
      ],
      { urls: t.gateway.urls },
    );
    const account = JSON.parse(shown.stdout);
    expect(account.balanceCents).toBe(2_000);
    expect(
      account.movements.map((m: { kind: string; amountCents: number }) => [m.kind, m.amountCents]),
    ).toEqual([
      ['charge', 23_000],
      ['top-up', 25_000],
    ]);

    // One class costs NZ$115 with GST; NZ$20 is left: refused, nothing written anywhere. The first
    // filing's acknowledgement email is sent by a job that marks its discussion mailed; the comparison
    // starts once it has, so that it sees only what the refused filing does.
    await waitForMail(production);
    const before = await fingerprint(production);
    const short = await file('DC-2', 1);
    expect(short.status).toBe(402);
    expect(short.raw).toContain('<ErrorCode>direct-credit-insufficient</ErrorCode>');
    expect(short.raw).toContain('NZ$20.00');
    expect(await fingerprint(production)).toBe(before);

    // The operator tops up in the portal; the same filing goes through.
    const operator = await portalUser(t.gateway, { operator: true });
    const topped = await operator.client.submit(
      '/portal/operator/approvals',
      '/portal/operator/direct-credit',
      {
        environment: 'production',
        organisation: organisation.identifier,
        amount: '100.00',
        note: 'receipt 2',
      },
    );
    expect(topped.statusCode).toBe(303);
    expect(topped.headers.location).toBe('/portal/operator/approvals?credit=12000#direct-credit');
    const refused = await operator.client.submit(
      '/portal/operator/approvals',
      '/portal/operator/direct-credit',
      {
        environment: 'production',
        organisation: organisation.identifier,
        amount: 'lots',
        note: '',
      },
    );
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toContain('amount');
    const again = await file('DC-2', 1);
    expect(again.status, again.raw).toBe(200);
    expect(again.result.TransactionErrorCode).toBeUndefined();

    // The fee records are the ledger's as ever; the balance is shown to the organisation's members.
    const fees = await production.query(
      `SELECT f.amount_cents + f.gst_cents AS total, m.balance_after_cents::int AS after
         FROM fee_records f JOIN direct_credit_movements m ON m.fee_record_id = f.id
        WHERE f.organisation_id = $1 ORDER BY f.id`,
      [organisation.id],
    );
    expect(fees.rows).toEqual([
      { total: 23_000, after: 2_000 },
      { total: 11_500, after: 500 },
    ]);

    // A member sees the balance in the portal; the month's invoice shows what the account paid.
    const member = await portalUser(t.gateway);
    await addMember(t.gateway.runtime.gateway.pool, organisation.id, member.user.id, 'member');
    const billing = await member.client.get('/portal/billing');
    expect(billing.body).toMatch(/Balance: <strong data-direct-credit-balance>NZ\$5\.00<\/strong>/);
    expect(billing.body).toContain('top-up (receipt 2)');
    const nextMonth = new Date(Date.now() + 40 * 24 * 3600 * 1000);
    await closeDueMonths(production, nextMonth, identityDirectory(t.gateway.runtime.gateway.pool));
    const invoice = await production.query(
      `SELECT number FROM invoices WHERE organisation_id = $1 AND kind = 'invoice'`,
      [organisation.id],
    );
    const url = `/portal/billing/production/invoices/INV-${String(invoice.rows[0].number).padStart(6, '0')}`;
    const view = await member.client.get(url);
    expect(view.body).toContain('Paid from the direct credit account');
    expect(view.body).toMatch(/Balance due<\/th><td data-label="Balance due" class="num"><strong>NZ\$0\.00/);
    const csv = (await member.client.get(`${url}/csv`)).body.trim().split('\n');
    expect(csv.at(-2)).toMatch(/,DIRECT CREDIT,,,Paid from the direct credit account,,,,,,-345\.00$/);
    expect(csv.at(-1)).toMatch(/,BALANCE DUE,,,,,,,,,0\.00$/);
  });

  it('the secured interests register, which takes no direct credit, still needs a direct debit authority', async () => {
    const production = t.gateway.runtime.environments.production.pool;
    const user = await signedInUser(t.gateway, 'production');
    const organisation = await organisationOf(t.gateway, 'production', user.userId, 'owner');
    await rsg(
      [
        'billing',
        'credit',
        'top-up',
        '--environment',
        'production',
        '--organisation',
        organisation.identifier,
        '--amount',
        '1000',
      ],
      { urls: t.gateway.urls },
    );
    const runtime = t.gateway.runtime;
    const ppsr = runtime.services.find((service) => service.id === 'ppsr')!;
    expect(ppsr.acceptsDirectCredit).toBeFalsy();
    const fees = serviceContext(runtime, 'production', ppsr).fees;
    const caller = { subscriptionId: randomUUID(), subscriberId: user.userId, userId: user.userId };
    await expect(fees.requireAuthority(caller)).rejects.toMatchObject({
      code: BILLING_ERRORS.directDebitAuthorityRequired,
    });
    // What a charge writes: the billing tables. The IP office's own jobs (its cases moving with time,
    // discussions) and the invoice mailer change theirs at any moment, for reasons of their own.
    const ledger = async () =>
      (await fingerprint(production, ['invoice_mailings']))
        .split('\n')
        .filter((line) => !line.startsWith('iponz_'))
        .join('\n');
    const before = await ledger();
    await expect(
      withTransaction(production, (tx) =>
        fees.charge(tx, { operation: 'PPSR_02', feeCode: 'PPSR_SEARCH_DEBTOR_ORGANISATION', caller }),
      ),
    ).rejects.toMatchObject({ code: BILLING_ERRORS.directDebitAuthorityRequired });
    expect(await ledger()).toBe(before);
  });
});

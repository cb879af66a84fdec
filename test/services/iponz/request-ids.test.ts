import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approveAuthority, requestAuthority } from '../../../src/billing/store/authorities.ts';
import { FIXED_CLIENTS, fixedCases } from '../../../src/services/iponz/sandbox/fixtures.ts';
import { loadCases, loadClients } from '../../../src/services/iponz/store/seed.ts';
import { organisationOf } from '../../billing/support/api.ts';
import { signedInUser } from '../../support/oauth.ts';
import { TODAY } from './support/api.ts';
import { call, type SoapTest, soapTest, tradeMarkArgs } from './support/soap-filing.ts';

/**
 * Idempotency keys of the IP office, run by the platform's one implementation: a renewal's request id and
 * a filing's TransactionIdentifier. A request refused before the register starts (no direct debit
 * authority) keeps nothing under its key, so the same key runs once the authority is approved, with one
 * fee and the next application number; a concurrent burst of one key has one effect and one fee; a key
 * reused for another request is refused; a key kept before requests were hashed still repeats.
 */
let t: SoapTest;
beforeAll(async () => {
  t = await soapTest();
}, 300_000);
afterAll(async () => t?.close());

const REQUEST_ID = 'api-business-govt-nz-request-id';
const production = () => t.gateway.runtime.environments.production.pool;
const sandbox = () => t.gateway.runtime.environments.sandbox.pool;
const count = async (
  pool: typeof production extends () => infer P ? P : never,
  sql: string,
  params: unknown[] = [],
) => Number((await pool.query(sql, params)).rows[0].count);
const tag = () => randomBytes(4).toString('hex');

const tradeMarkEnvelope = (transactionIdentifier: string, reference: string) =>
  '<?xml version="1.0"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body>' +
  '<FileTradeMarkApplication xmlns="http://www.iponz.govt.nz/services">' +
  `<TransactionIdentifier>${transactionIdentifier}</TransactionIdentifier><TransactionCode>Trade Mark E-Filing</TransactionCode>` +
  `<ApplicationReference>${reference}</ApplicationReference><ApplicationContact>Applicant</ApplicationContact>` +
  '<RegistrationOfficeCode>NZ</RegistrationOfficeCode><IntendedUseCode>YAPP</IntendedUseCode><MarkTitle>PROD</MarkTitle>' +
  '<Applicant><ClientIdentifier>100000</ClientIdentifier></Applicant><GoodsAndServices><ClassDescription>' +
  '<ClassNumber>9</ClassNumber><Description>Software</Description></ClassDescription></GoodsAndServices>' +
  '</FileTradeMarkApplication></soap:Body></soap:Envelope>';

/** A registered production user in an organisation without an authority, and its approval. */
async function productionFiler() {
  const user = await signedInUser(t.gateway, 'production');
  await t.register(user.userId, 'production');
  const organisation = await organisationOf(t.gateway, 'production', user.userId, 'member');
  const approve = async () => {
    const requested = await requestAuthority(production(), 'production', {
      organisationId: organisation.id,
      accountName: 'Production Filer Ltd',
      accountNumber: '12-3140-0123456-00',
      now: new Date(),
    });
    await approveAuthority(production(), requested.id, { now: new Date() });
  };
  return { user, approve };
}

describe('production: refused before the register starts, then approved', () => {
  beforeAll(async () => {
    await loadClients(production(), FIXED_CLIENTS, new Date());
    await loadCases(
      production(),
      fixedCases(TODAY).filter((c) => c.caseNumber === 400050),
      new Date(),
    );
  });

  it('a renewal: nothing kept under the id; once approved the same id pays once, one fee', async () => {
    const { user, approve } = await productionFiler();
    const id = `renew-${tag()}`;
    const renew = () =>
      t.call('POST', '/gateway/iponz/v5/designs/400050/renew', {
        key: t.productionKey,
        token: user.token,
        headers: { [REQUEST_ID]: id },
        payload: {},
      });
    const refused = await renew();
    expect(refused.statusCode).toBe(403);
    expect(refused.json().type).toBe('about:blank#direct-debit-authority-required');
    expect(await count(production(), 'SELECT count(*) FROM iponz_renewals WHERE request_id = $1', [id])).toBe(
      0,
    );
    await approve();
    const paid = await renew();
    expect(paid.statusCode, paid.body).toBe(200);
    const again = await renew();
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual(paid.json());
    expect(
      await count(
        production(),
        `SELECT count(*) FROM fee_records WHERE service = 'iponz' AND object_id = '400050'`,
      ),
    ).toBe(1);
  });

  it('a filing: nothing kept, no number used; once approved the same TransactionIdentifier files once', async () => {
    const { user, approve } = await productionFiler();
    const transaction = `TX-${tag()}`;
    const file = () =>
      t.call('POST', '/gateway/iponz/v5/trademark', {
        key: t.productionKey,
        token: user.token,
        headers: { 'content-type': 'text/xml', soapaction: 'FileTradeMarkApplication' },
        payload: tradeMarkEnvelope(transaction, `PROD-${transaction}`),
      });
    const next = async () =>
      (
        await production().query<{ next_number: number }>(
          `SELECT next_number FROM iponz_case_numbers WHERE kind = 'trademark'`,
        )
      ).rows[0]?.next_number;
    const numberBefore = await next();
    const refused = await file();
    expect(refused.statusCode).toBe(403);
    expect(refused.body).toContain('<ErrorCode>direct-debit-authority-required</ErrorCode>');
    expect(await next()).toBe(numberBefore);
    await approve();
    const filed = await file();
    expect(filed.statusCode, filed.body).toBe(200);
    const number = /<ApplicationNumber>(\d+)<\/ApplicationNumber>/.exec(filed.body)?.[1];
    expect(number).toBeDefined();
    expect(numberBefore).toBeDefined();
    expect(Number(number)).toBe(numberBefore);
    const again = await file();
    expect(again.body).toBe(filed.body);
    expect(
      await count(
        production(),
        `SELECT count(*) FROM fee_records WHERE service = 'iponz' AND object_id = $1`,
        [number],
      ),
    ).toBe(1);
    expect(
      await count(production(), 'SELECT count(*) FROM iponz_filings WHERE transaction_identifier = $1', [
        transaction,
      ]),
    ).toBe(1);
  });
});

describe('a concurrent burst of 50 with one key', () => {
  it('renewals: one payment, one fee, one answer', async () => {
    const id = `burst-${tag()}`;
    const answers = await Promise.all(
      Array.from({ length: 50 }, () =>
        t.call('POST', '/patents/500050/renew', {
          token: t.owner.token,
          headers: { [REQUEST_ID]: id },
          payload: {},
        }),
      ),
    );
    for (const answer of answers) expect(answer.statusCode, answer.body).toBe(200);
    expect(new Set(answers.map((a) => a.body)).size).toBe(1);
    expect(
      await count(
        sandbox(),
        `SELECT count(*) FROM fee_records WHERE service = 'iponz' AND object_id = '500050'`,
      ),
    ).toBe(1);
  }, 60_000);

  it('filings: one case, one fee, one answer', async () => {
    const client = await t.client('trademark');
    const transaction = `TX-BURST-${tag()}`;
    const args = tradeMarkArgs({ TransactionIdentifier: transaction, ApplicationReference: transaction });
    const answers = await Promise.all(
      Array.from({ length: 50 }, () => call(client, 'FileTradeMarkApplication', args)),
    );
    expect(new Set(answers.map((a) => a.raw)).size).toBe(1);
    const number = String(answers[0]!.result.ApplicationNumber);
    expect(
      await count(sandbox(), `SELECT count(*) FROM iponz_applications WHERE client_reference = $1`, [
        transaction,
      ]),
    ).toBe(1);
    expect(
      await count(sandbox(), `SELECT count(*) FROM fee_records WHERE service = 'iponz' AND object_id = $1`, [
        number,
      ]),
    ).toBe(1);
  }, 120_000);
});

describe('reuse and kept keys', () => {
  it('a renewal id reused with another billing reference is refused, naming the header; nothing charged', async () => {
    const id = `reuse-${tag()}`;
    const renew = (billingReference: string) =>
      t.call('POST', '/designs/400050/renew', {
        token: t.owner.token,
        headers: { [REQUEST_ID]: id },
        payload: { billingReference },
      });
    const first = await renew('PO-1');
    expect(first.statusCode, first.body).toBe(200);
    const fees = await count(sandbox(), `SELECT count(*) FROM fee_records WHERE service = 'iponz'`);
    const reused = await renew('PO-2');
    expect(reused.statusCode).toBe(400);
    expect(reused.json().errors[0].field).toBe(REQUEST_ID);
    expect(await count(sandbox(), `SELECT count(*) FROM fee_records WHERE service = 'iponz'`)).toBe(fees);
  });

  it('a renewal kept before requests were hashed still repeats, and still refuses another case', async () => {
    const id = `legacy-${tag()}`;
    const first = await t.call('POST', '/designs/400051/renew', {
      token: t.owner.token,
      headers: { [REQUEST_ID]: id },
      payload: {},
    });
    expect(first.statusCode, first.body).toBe(200);
    await sandbox().query('UPDATE iponz_renewals SET request_hash = NULL WHERE request_id = $1', [id]);
    const again = await t.call('POST', '/designs/400051/renew', {
      token: t.owner.token,
      headers: { [REQUEST_ID]: id },
      payload: { billingReference: 'another, as before hashes' },
    });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual(first.json());
    const other = await t.call('POST', '/trademarks/1000050/renew', {
      token: t.owner.token,
      headers: { [REQUEST_ID]: id },
      payload: {},
    });
    expect(other.statusCode).toBe(400);
    expect(other.json().errors[0].field).toBe(REQUEST_ID);
  });
});

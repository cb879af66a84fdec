import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { periodOf } from '../../src/billing/domain/invoice-month.ts';
import { approveAuthority, cancelAuthority, requestAuthority } from '../../src/billing/store/authorities.ts';
import { listFeeRecords } from '../../src/billing/store/fee-records.ts';
import { withTransaction } from '../../src/platform/db/pool.ts';
import { RuleError } from '../../src/platform/errors.ts';
import { type TestGateway, testGateway } from '../support/runtime.ts';
import { apiCaller, feesOf, fingerprint, organisationOf } from './support/api.ts';

let gateway: TestGateway;
beforeAll(async () => {
  gateway = await testGateway({ clockMode: 'virtual' });
});
afterAll(() => gateway?.close());

const production = () => gateway.runtime.environments.production.pool;
const sandbox = () => gateway.runtime.environments.sandbox.pool;
const search = { operation: 'PPSR_02', feeCode: 'PPSR_SEARCH_DEBTOR_ORGANISATION' } as const;

async function refusal(promise: Promise<unknown>): Promise<RuleError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RuleError);
  return error as RuleError;
}

async function approved(organisationId: string) {
  const now = new Date();
  const requested = await requestAuthority(production(), 'production', {
    organisationId,
    accountName: 'Acme Ltd',
    accountNumber: '12-3140-0123456-00',
    now,
  });
  return approveAuthority(production(), requested.id, { now });
}

describe('production', () => {
  it('refuses a fee-bearing call without an approved authority before it runs, writing nothing', async () => {
    const caller = await apiCaller(gateway, 'production');
    const fees = feesOf(gateway, 'production');
    // No organisation at all.
    const before = await fingerprint(production());
    expect((await refusal(fees.requireAuthority(caller))).code.code).toBe('billing-organisation-required');
    const organisation = await organisationOf(gateway, 'production', caller.subscriberId);
    const other = { ...caller }; // a new request: the payer is resolved again
    const refused = await refusal(fees.requireAuthority(other));
    expect(refused.code).toMatchObject({ code: 'direct-debit-authority-required', status: 403 });
    expect(refused.message).toContain(organisation.id);
    // An operation that skips requireAuthority is refused by charge: its transaction rolls back.
    const operation = withTransaction(production(), async (tx) => {
      await tx.query('INSERT INTO billing_accounts (organisation_id, created_at) VALUES ($1, now())', [
        organisation.id,
      ]);
      await fees.charge(tx, { ...search, caller: other, requestId: 'r-refused' });
    });
    expect((await refusal(operation)).code.code).toBe('direct-debit-authority-required');
    // A requested (not yet approved) authority is not enough.
    await requestAuthority(production(), 'production', {
      organisationId: organisation.id,
      accountName: 'Acme Ltd',
      accountNumber: '12-3140-0123456-00',
      now: new Date(),
    });
    const pending = await fingerprint(production());
    expect((await refusal(fees.requireAuthority({ ...caller }))).code.code).toBe(
      'direct-debit-authority-required',
    );
    expect(await fingerprint(production())).toBe(pending);
    expect(pending).not.toBe(before); // the fingerprint sees a write (the request above)
    // Undo the request (and the billing account it made): back to the first fingerprint.
    await production().query('DELETE FROM direct_debit_authorities WHERE organisation_id = $1', [
      organisation.id,
    ]);
    await production().query('DELETE FROM billing_accounts WHERE organisation_id = $1', [organisation.id]);
    expect(await fingerprint(production())).toBe(before);
  });

  it('charges the paying organisation in the operation’s transaction, at the environment’s clock', async () => {
    const caller = await apiCaller(gateway, 'production');
    const organisation = await organisationOf(gateway, 'production', caller.subscriberId);
    await approved(organisation.id);
    const fees = feesOf(gateway, 'production');
    expect(await fees.requireAuthority(caller)).toEqual({
      organisationId: organisation.id,
      userId: caller.subscriberId,
      subscriptionId: caller.subscriptionId,
    });
    const charged = await withTransaction(production(), (tx) =>
      fees.charge(tx, {
        ...search,
        caller,
        requestId: 'req-1',
        billingReference: 'INV-77',
        object: { kind: 'search', id: 'S-1' },
      }),
    );
    expect(charged).toMatchObject({
      organisationId: organisation.id,
      amountCents: 150,
      gstCents: 23,
      channel: 'API',
    });
    const rows = await production().query('SELECT * FROM fee_records WHERE id = $1', [charged!.id]);
    expect(rows.rows[0]).toMatchObject({
      organisation_id: organisation.id,
      user_id: caller.subscriberId,
      subscription_id: caller.subscriptionId,
      service: 'ppsr',
      operation: 'PPSR_02',
      fee_code: 'PPSR_SEARCH_DEBTOR_ORGANISATION',
      description: 'Search by debtor organisation',
      amount_cents: 150,
      gst_cents: 23,
      currency: 'NZD',
      channel: 'API',
      request_id: 'req-1',
      billing_reference: 'INV-77',
      object_kind: 'search',
      object_id: 'S-1',
    });
    // Its billing month: the clock's, in New Zealand time.
    expect(rows.rows[0].billing_period).toBe(periodOf(charged!.chargedAt));
    expect(rows.rows[0].charged_at).toEqual(charged!.chargedAt);
  });

  it('leaves no fee when the operation rolls back', async () => {
    const caller = await apiCaller(gateway, 'production');
    const organisation = await organisationOf(gateway, 'production', caller.subscriberId);
    await approved(organisation.id);
    const fees = feesOf(gateway, 'production');
    const failing = withTransaction(production(), async (tx) => {
      await fees.charge(tx, { ...search, caller, requestId: 'req-rolled-back' });
      throw new Error('the register failed after charging');
    });
    await expect(failing).rejects.toThrow('the register failed after charging');
    const left = await production().query(
      'SELECT count(*)::int AS n FROM fee_records WHERE organisation_id = $1',
      [organisation.id],
    );
    expect(left.rows[0].n).toBe(0);
  });

  it("holds the month end's charge barrier until the operation's transaction ends", async () => {
    const caller = await apiCaller(gateway, 'production');
    const organisation = await organisationOf(gateway, 'production', caller.subscriberId);
    await approved(organisation.id);
    const fees = feesOf(gateway, 'production');
    const held = await withTransaction(production(), async (tx) => {
      await fees.charge(tx, { ...search, caller });
      const locks = await tx.query(
        `SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND mode = 'ShareLock' AND granted
            AND pid = pg_backend_pid()`,
      );
      return locks.rowCount;
    });
    expect(held).toBe(1);
  });

  it('stops charging once the authority is cancelled', async () => {
    const caller = await apiCaller(gateway, 'production');
    const organisation = await organisationOf(gateway, 'production', caller.subscriberId);
    const authority = await approved(organisation.id);
    const fees = feesOf(gateway, 'production');
    await withTransaction(production(), (tx) => fees.charge(tx, { ...search, caller }));
    await cancelAuthority(production(), authority.id, { now: new Date() });
    const later = withTransaction(production(), (tx) =>
      fees.charge(tx, { ...search, caller: { ...caller } }),
    );
    expect((await refusal(later)).code.code).toBe('direct-debit-authority-required');
    expect((await listFeeRecords(production(), { organisationId: organisation.id })).total).toBe(1);
  });

  it('chooses the payer: x-organisation first; else the authority holder, then by role, then the oldest', async () => {
    const caller = await apiCaller(gateway, 'production');
    const owned = await organisationOf(gateway, 'production', caller.subscriberId, 'owner');
    const member = await organisationOf(gateway, 'production', caller.subscriberId, 'member');
    const fees = feesOf(gateway, 'production');
    // Neither holds an authority: the owner's is named (and refused).
    expect((await fees.payer({ ...caller })).organisationId).toBe(owned.id);
    await approved(member.id);
    expect((await fees.payer({ ...caller })).organisationId).toBe(member.id);
    expect((await fees.payer({ ...caller, organisationId: owned.id })).organisationId).toBe(owned.id);
    // A three-legged call: the token's user pays through their own organisation.
    const endUser = await apiCaller(gateway, 'production');
    const theirs = await organisationOf(gateway, 'production', endUser.subscriberId, 'admin');
    expect((await fees.payer({ ...caller, userId: endUser.subscriberId })).organisationId).toBe(theirs.id);
    // Sandbox memberships do not count in production.
    const sandboxOnly = await apiCaller(gateway, 'production');
    await organisationOf(gateway, 'sandbox', sandboxOnly.subscriberId);
    expect((await refusal(fees.payer(sandboxOnly))).code.code).toBe('billing-organisation-required');
    expect((await refusal(fees.payer(undefined))).code.code).toBe('billing-organisation-required');
  });

  it('refuses a fee code of another register (a programming error, not a client’s)', async () => {
    const caller = await apiCaller(gateway, 'production');
    const organisation = await organisationOf(gateway, 'production', caller.subscriberId);
    await approved(organisation.id);
    const charge = withTransaction(production(), (tx) =>
      feesOf(gateway, 'production').charge(tx, { operation: 'x', feeCode: 'NZBN_ORGANISATION_PART', caller }),
    );
    await expect(charge).rejects.toThrow('the fee NZBN_ORGANISATION_PART belongs to nzbn, not ppsr');
  });

  it('charges and refuses nothing when charging is off', async () => {
    const caller = await apiCaller(gateway, 'production');
    await organisationOf(gateway, 'production', caller.subscriberId);
    const fees = feesOf(gateway, 'production', { enabled: false });
    const before = await fingerprint(production());
    await fees.requireAuthority(caller);
    expect(
      await withTransaction(production(), (tx) => fees.charge(tx, { ...search, caller })),
    ).toBeUndefined();
    expect(await fingerprint(production())).toBe(before);
  });
});

describe('sandbox', () => {
  it('makes a dummy authority (and a personal organisation) on first need, and never refuses', async () => {
    const caller = await apiCaller(gateway, 'sandbox');
    const fees = feesOf(gateway, 'sandbox');
    const payer = await fees.requireAuthority(caller);
    const organisation = await gateway.runtime.gateway.pool.query(
      'SELECT o.identifier, m.role FROM organisations o JOIN memberships m ON m.organisation_id = o.id WHERE o.id = $1',
      [payer.organisationId],
    );
    // A random identifier: one derived from the user's id could be made first by somebody else.
    expect(organisation.rows).toEqual([
      { identifier: expect.stringMatching(/^sandbox-[0-9a-f]{12}$/), role: 'owner' },
    ]);
    expect(organisation.rows[0].identifier).not.toBe(
      `sandbox-${caller.subscriberId.replaceAll('-', '').slice(0, 12)}`,
    );
    const first = await withTransaction(sandbox(), (tx) => fees.charge(tx, { ...search, caller }));
    const second = await withTransaction(sandbox(), (tx) =>
      fees.charge(tx, { ...search, caller: { ...caller } }),
    );
    expect(second!.organisationId).toBe(first!.organisationId);
    const authorities = await sandbox().query(
      'SELECT state, decision_note FROM direct_debit_authorities WHERE organisation_id = $1',
      [payer.organisationId],
    );
    expect(authorities.rows).toEqual([
      { state: 'approved', decision_note: 'Sandbox: a dummy authority, approved at once' },
    ]);
    const account = await sandbox().query('SELECT 1 FROM billing_accounts WHERE organisation_id = $1', [
      payer.organisationId,
    ]);
    expect(account.rowCount).toBe(1);
    expect((await listFeeRecords(sandbox(), { organisationId: payer.organisationId })).total).toBe(2);
  });

  it('charges at the sandbox’s virtual clock', async () => {
    const caller = await apiCaller(gateway, 'sandbox');
    const fees = feesOf(gateway, 'sandbox');
    const { advanceClock } = await import('../../src/platform/environment-clocks.ts');
    await advanceClock(gateway.runtime.gateway.pool, 'sandbox', '30d');
    await gateway.runtime.clocks.reload();
    const expected = gateway.runtime.clocks.for('sandbox').now().getTime();
    const charged = await withTransaction(sandbox(), (tx) => fees.charge(tx, { ...search, caller }));
    expect(charged!.chargedAt.getTime() - Date.now()).toBeGreaterThan(29 * 86_400_000);
    expect(Math.abs(charged!.chargedAt.getTime() - expected)).toBeLessThan(60_000);
  });
});

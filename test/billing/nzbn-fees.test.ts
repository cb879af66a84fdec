import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BILLING_MIGRATIONS } from '../../src/billing/index.ts';
import { approveAuthority, requestAuthority } from '../../src/billing/store/authorities.ts';
import { listFeeRecords, UNATTRIBUTED_ORGANISATION } from '../../src/billing/store/fee-records.ts';
import { grantAuthority } from '../../src/identity/operations/authorities.ts';
import { migrate } from '../../src/platform/db/migrations.ts';
import { openDatabase } from '../../src/platform/db/pool.ts';
import { migrateAll } from '../../src/runtime.ts';
import { nzbnService } from '../../src/services/nzbn/index.ts';
import { FIXTURE, type NzbnTest, nzbnTest } from '../services/nzbn/support/api.ts';
import { partRequest } from '../services/nzbn/support/bodies.ts';
import { signedInUser } from '../support/oauth.ts';
import { freshDatabases } from '../support/runtime.ts';
import { feesOf, fingerprint, organisationOf } from './support/api.ts';

/** The business number register's organisation-part fee, in production, through the API. */
let t: NzbnTest;
beforeAll(async () => {
  t = await nzbnTest({ entities: 1_000 });
});
afterAll(() => t?.close());

const E = FIXTURE.authority;
const production = () => t.gateway.runtime.environments.production.pool;

describe('an organisation part beyond the second, in production', () => {
  it('is refused without an organisation (403), declined without an authority (402, the purchase kept), then lands in the ledger', async () => {
    // The production register holds the entity (copied from the sandbox's fixture).
    const entity = await t.gateway.runtime.environments.sandbox.pool.query(
      'SELECT row_to_json(e) AS row FROM nzbn_entities e WHERE nzbn = $1',
      [E],
    );
    const columns = await production().query<{ name: string }>(
      `SELECT quote_ident(column_name) AS name FROM information_schema.columns
        WHERE table_name = 'nzbn_entities' AND is_generated = 'NEVER' ORDER BY ordinal_position`,
    );
    const list = columns.rows.map((c) => c.name).join(', ');
    await production().query(
      `INSERT INTO nzbn_entities (${list}) SELECT ${list} FROM json_populate_record(NULL::nzbn_entities, $1)`,
      [entity.rows[0].row],
    );
    const user = await signedInUser(t.gateway, 'production');
    await grantAuthority(
      t.gateway.runtime.gateway.pool,
      { environment: 'production', service: 'nzbn', kind: 'entity', id: E },
      { userId: user.userId },
    );
    const create = (name: string, headers: Record<string, string> = {}) =>
      t.call('POST', `/gateway/nzbn/v5/entities/${E}/organisation-parts`, {
        key: t.productionKey,
        token: user.token,
        headers,
        // The published OrganisationPartRequest, with who buys a part beyond the free ones.
        payload: partRequest({ name }),
      });
    const purchase = async (answer: { headers: Record<string, unknown> }) => {
      const url = /^<([^>]+)>; rel="related"$/.exec(String(answer.headers.link))![1]!;
      const read = await t.call('GET', url.slice(url.indexOf('/gateway/')), {
        key: t.productionKey,
        token: user.token,
      });
      expect(read.statusCode, read.body).toBe(200);
      return read.json();
    };
    // Everything but the purchases: a declined purchase is kept, nothing else is written.
    const rest = async () =>
      (await fingerprint(production()))
        .split('\n')
        .filter((line) => !line.startsWith('nzbn_part_purchases:'))
        .join('\n');
    // The first two parts are free: no organisation, no authority needed.
    expect((await create('First')).statusCode).toBe(201);
    expect((await create('Second')).statusCode).toBe(201);

    const before = await rest();
    const purchases = async () =>
      (await production().query<{ status: string }>('SELECT status FROM nzbn_part_purchases')).rows;
    const noOrganisation = await create('Third');
    expect(noOrganisation.statusCode).toBe(403);
    expect(noOrganisation.json()).toMatchObject({
      status: '403',
      errorCode: 'billing-organisation-required',
    });
    expect(await rest()).toBe(before);
    expect(await purchases()).toEqual([]);

    const organisation = await organisationOf(t.gateway, 'production', user.userId, 'member');
    // Without an approved direct debit authority the purchase is declined: 402, the purchase kept
    // DECLINED, nothing made or charged.
    const requestId = { 'api-business-govt-nz-Request-Id': 'third-part' };
    const noAuthority = await create('Third', requestId);
    expect(noAuthority.statusCode).toBe(402);
    expect(noAuthority.json()).toMatchObject({ status: '402', errorCode: 'purchase-declined' });
    expect(noAuthority.json().errorDescription).toContain('approved direct debit authority');
    expect(noAuthority.json().list[0].field).toBe('purchaserDetails');
    expect(await rest()).toBe(before);
    expect(await purchases()).toEqual([{ status: 'DECLINED' }]);
    expect(await purchase(noAuthority)).toMatchObject({
      purchaseStatus: 'DECLINED',
      purchaseAmount: 5.75,
      paymentResponseCode: 'direct-debit-authority-required',
      paymentReceiptNumber: null,
      issuedOpn: null,
      paymentNumber: organisation.identifier,
    });

    const requested = await requestAuthority(production(), 'production', {
      organisationId: organisation.id,
      accountName: 'Kowhai Ltd',
      accountNumber: '02-0100-0123456-001',
      now: new Date(),
    });
    await approveAuthority(production(), requested.id, { now: new Date() });
    // The declined request's id was not kept: the same request runs again once the authority is there.
    const third = await create('Third', requestId);
    expect(third.statusCode, third.body).toBe(201);
    const opn = third.json().opn;
    expect(third.headers.link).not.toBe(noAuthority.headers.link);
    expect(await purchase(third)).toMatchObject({ purchaseStatus: 'APPROVED', issuedOpn: opn });

    // Read back through the billing module, as a register's fee operation would.
    const { records, total } = await feesOf(t.gateway, 'production', { service: 'nzbn' }).list(
      { subscriptionId: 'unused', subscriberId: user.userId },
      {},
    );
    expect(total).toBe(1);
    expect(records[0]).toMatchObject({
      organisationId: organisation.id,
      userId: user.userId,
      service: 'nzbn',
      operation: 'createOrganisationPart',
      feeCode: 'NZBN_ORGANISATION_PART',
      amountCents: 500,
      gstCents: 75,
      currency: 'NZD',
      channel: 'API',
      requestId: 'third-part',
      objectKind: 'organisation-part',
      objectId: opn,
      feeStatus: 'Unbilled',
      invoiceId: null,
    });
    expect(records[0]!.subscriptionId).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('migration 007 of nzbn', () => {
  it('copies nzbn_fee_records into the ledger once, unattributed, and drops the table', async () => {
    const databases = await freshDatabases();
    const old = await mkdtemp(path.join(tmpdir(), 'rsg-nzbn-migrations-'));
    const sandbox = openDatabase(databases.sandbox, 2);
    try {
      // The database as it was before: billing's ledger and nzbn up to 006.
      for (const file of ['001', '002', '003', '004', '005', '006']) {
        const name = (await import('node:fs'))
          .readdirSync(nzbnService.migrations!)
          .find((n) => n.startsWith(file))!;
        await cp(path.join(nzbnService.migrations!, name), path.join(old, name));
      }
      await migrate(sandbox.pool, [
        { module: 'billing', dir: BILLING_MIGRATIONS },
        { module: 'nzbn', dir: old },
      ]);
      await sandbox.pool.query(
        `INSERT INTO nzbn_fee_records (nzbn, opn, fee_code, description, amount_cents, gst_cents, charged_at, invoice_id)
         VALUES ('9429000003025', '9429800000033', 'ORGANISATION_PART', 'Organisation part beyond the second', 500, 75, '2025-03-01T00:00:00Z', NULL),
                ('9429000003025', '9429800000040', 'ORGANISATION_PART', 'Organisation part beyond the second', 500, 75, '2025-04-01T00:00:00Z', NULL)`,
      );
      const applied = await migrateAll(databases);
      expect(applied.filter((line) => line.includes('nzbn/007'))).toHaveLength(2); // sandbox and production
      const copied = await listFeeRecords(sandbox.pool, { organisationId: UNATTRIBUTED_ORGANISATION });
      expect(
        copied.records.map((r) => [
          r.objectId,
          r.feeCode,
          r.amountCents,
          r.gstCents,
          r.chargedAt.toISOString(),
        ]),
      ).toEqual([
        ['9429800000040', 'NZBN_ORGANISATION_PART', 500, 75, '2025-04-01T00:00:00.000Z'],
        ['9429800000033', 'NZBN_ORGANISATION_PART', 500, 75, '2025-03-01T00:00:00.000Z'],
      ]);
      const table = await sandbox.pool.query("SELECT to_regclass('nzbn_fee_records') AS t");
      expect(table.rows[0].t).toBeNull();
      expect(await migrateAll(databases)).toEqual([]);
      expect((await listFeeRecords(sandbox.pool, { organisationId: UNATTRIBUTED_ORGANISATION })).total).toBe(
        2,
      );
    } finally {
      await sandbox.close();
      await rm(old, { recursive: true, force: true });
      await databases.drop();
    }
  });
});

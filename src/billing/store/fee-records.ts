/**
 * The fee ledger in SQL: one INSERT per fee inside the charging operation's transaction (with, in the
 * same statement, the production check of an approved direct debit authority, or the sandbox's dummy
 * authority made on first need), and the reads the registers and the portal use.
 */
import type pg from 'pg';
import { RuleError } from '../../platform/errors.ts';
import type { Environment } from '../../services/contract.ts';
import type { Channel } from '../domain/fee-schedule.ts';
import { SANDBOX_DUMMY_NOTE } from './authorities.ts';
import { CHARGE_BARRIER_LOCK } from './charge-barrier.ts';
import { invoiceReference } from './invoices.ts';

type Queryable = pg.Pool | pg.PoolClient;

/**
 * The organisation of fees carried over from before the ledger, when a register did not record who
 * made the call (nzbn's `nzbn_fee_records`): kept for the record, never invoiced.
 */
export const UNATTRIBUTED_ORGANISATION = '00000000-0000-0000-0000-000000000000';

export interface NewFeeRecord {
  organisationId: string;
  userId: string | null;
  subscriptionId: string | null;
  service: string;
  operation: string;
  feeCode: string;
  description: string;
  amountCents: number;
  gstCents: number;
  channel: Channel;
  requestId: string | null;
  billingReference: string | null;
  objectKind: string | null;
  objectId: string | null;
  chargedAt: Date;
}

/**
 * Writes one fee record in `tx`, in one statement that also takes the month end's charge barrier shared
 * (held to the end of `tx`, `CHARGE_BARRIER_LOCK` in month-end.ts) before the row is made: the row's
 * `billing_period` is decided by the ledger's trigger after the barrier is held (the trigger reads the
 * closed months afresh), so it is the month of `charged_at` unless that month closed first.
 * Production: only while the organisation holds an approved authority (locked FOR SHARE, so a
 * cancellation waits for this transaction); returns undefined when it holds none, and nothing is written.
 * Sandbox: makes the organisation's dummy authority when it has none.
 */
export async function insertFeeRecord(
  tx: pg.PoolClient,
  environment: Environment,
  fee: NewFeeRecord,
  paidBy: 'direct-debit' | 'direct-credit' = 'direct-debit',
): Promise<{ id: number; billingPeriod: string } | undefined> {
  const values = [
    fee.organisationId,
    fee.userId,
    fee.subscriptionId,
    fee.service,
    fee.operation,
    fee.feeCode,
    fee.description,
    fee.amountCents,
    fee.gstCents,
    fee.channel,
    fee.requestId,
    fee.billingReference,
    fee.objectKind,
    fee.objectId,
    fee.chargedAt,
  ];
  const insert = `INSERT INTO fee_records (organisation_id, user_id, subscription_id, service, operation, fee_code,
      description, amount_cents, gst_cents, channel, request_id, billing_reference, object_kind, object_id, charged_at)`;
  // billing_period is the ledger's: the month of charged_at, or the next open one (migration 003). The
  // barrier CTE is joined into the row, so it is taken before the row exists and the trigger runs.
  const row = `SELECT $1::uuid, $2::uuid, $3::uuid, $4, $5, $6, $7, $8::int, $9::int, $10, $11, $12, $13, $14, $15::timestamptz`;
  const barrier = `barrier AS (SELECT pg_advisory_xact_lock_shared(${CHARGE_BARRIER_LOCK}))`;
  const returning = 'RETURNING id, billing_period AS "billingPeriod"';
  // Paid from a direct credit account (taken in this transaction already): no authority needed.
  if (paidBy === 'direct-credit') {
    const paid = await tx.query<{ id: number; billingPeriod: string }>({
      name: 'billing-insert-fee-direct-credit',
      text: `WITH ${barrier} ${insert} ${row} FROM barrier ${returning}`,
      values,
    });
    return paid.rows[0];
  }
  const result =
    environment === 'production'
      ? await tx.query<{ id: number; billingPeriod: string }>({
          // Named (prepared once per connection): every charge runs it.
          name: 'billing-insert-fee-production',
          text: `WITH ${barrier}, authority AS (
             SELECT id FROM direct_debit_authorities WHERE organisation_id = $1 AND state = 'approved' FOR SHARE)
           ${insert} ${row} FROM authority, barrier ${returning}`,
          values,
        })
      : await tx.query<{ id: number; billingPeriod: string }>({
          name: 'billing-insert-fee-sandbox',
          text: `WITH ${barrier}, dummy AS (
             INSERT INTO direct_debit_authorities
               (organisation_id, state, account_name, requested_at, decided_at, decision_note)
             SELECT $1, 'approved', 'Sandbox dummy account', $15, $15, $16
              WHERE NOT EXISTS (SELECT 1 FROM direct_debit_authorities
                                 WHERE organisation_id = $1 AND state IN ('requested', 'approved'))
             ON CONFLICT (organisation_id) WHERE state IN ('requested', 'approved') DO NOTHING
             RETURNING organisation_id),
           account AS (
             INSERT INTO billing_accounts (organisation_id, created_at) SELECT organisation_id, $15 FROM dummy
             ON CONFLICT DO NOTHING)
           ${insert} ${row} FROM barrier ${returning}`,
          values: [...values, SANDBOX_DUMMY_NOTE],
        });
  return result.rows[0];
}

/**
 * Moves a fee written in `tx` to a later clock reading: its billing month is decided again by the ledger's
 * trigger. For a fee whose month closed between the clock's reading and the barrier (see `charge`).
 */
export async function redateFeeRecord(
  tx: pg.PoolClient,
  id: number,
  chargedAt: Date,
): Promise<{ billingPeriod: string }> {
  const result = await tx.query<{ billingPeriod: string }>(
    'UPDATE fee_records SET charged_at = $2 WHERE id = $1 RETURNING billing_period AS "billingPeriod"',
    [id, chargedAt],
  );
  return result.rows[0]!;
}

export type FeeStatus = 'Unbilled' | 'Invoiced';

/** A fee as the ledger holds it: what was charged, with its id, currency and invoicing. */
export interface FeeRecord extends NewFeeRecord {
  id: number;
  currency: 'NZD';
  feeStatus: FeeStatus;
  /** The invoice the fee went to (the invoices table's id), once invoiced. */
  invoiceId: number | null;
  /** That invoice's number (`INV-000042`), once invoiced. */
  invoiceReference: string | null;
  /** The billing month the fee belongs to (`YYYY-MM`): its clock's month, or the next open one. */
  billingPeriod: string;
}

export interface FeeRecordQuery {
  organisationId: string;
  /** One register's fees (a register's own fee operation); all registers' when absent. */
  service?: string;
  requestId?: string;
  billingReference?: string;
  feeStatus?: FeeStatus;
  /** charged_at ≥ from and < to. */
  from?: Date;
  to?: Date;
  /** 1-based. */
  page?: number;
  pageSize?: number;
}

export interface FeeRecordPage {
  records: FeeRecord[];
  page: number;
  pageSize: number;
  /** Every record the query matches, over all pages. */
  total: number;
}

export const MAX_FEE_PAGE_SIZE = 500;

const FEE_COLUMNS = `f.id, f.organisation_id AS "organisationId", f.user_id AS "userId",
  f.subscription_id AS "subscriptionId", f.service, f.operation, f.fee_code AS "feeCode", f.description,
  f.amount_cents AS "amountCents", f.gst_cents AS "gstCents", f.currency, f.channel, f.request_id AS "requestId",
  f.billing_reference AS "billingReference", f.object_kind AS "objectKind", f.object_id AS "objectId",
  f.charged_at AS "chargedAt", CASE WHEN i.id IS NULL THEN 'Unbilled' ELSE 'Invoiced' END AS "feeStatus",
  i.id AS "invoiceId", i.number AS "invoiceNumber", f.billing_period AS "billingPeriod"`;

/** A fee and its invoice: its organisation's invoice of its billing month, which exists once the month is invoiced. */
const FEE_WITH_INVOICE = `fee_records f LEFT JOIN invoices i
  ON i.kind = 'invoice' AND i.organisation_id = f.organisation_id AND i.period = f.billing_period`;

/** An organisation's fee records, newest first, a page at a time; filtered as the query says. */
export async function listFeeRecords(db: Queryable, query: FeeRecordQuery): Promise<FeeRecordPage> {
  const page = query.page ?? 1;
  const pageSize = query.pageSize ?? 50;
  if (!Number.isSafeInteger(page) || page < 1) throw new RuleError('page', 'must be a whole number from 1');
  if (!Number.isSafeInteger(pageSize) || pageSize < 1 || pageSize > MAX_FEE_PAGE_SIZE) {
    throw new RuleError('pageSize', `must be a whole number from 1 to ${MAX_FEE_PAGE_SIZE}`);
  }
  if (query.feeStatus !== undefined && query.feeStatus !== 'Unbilled' && query.feeStatus !== 'Invoiced') {
    throw new RuleError('feeStatus', 'must be Unbilled or Invoiced');
  }
  const where = `f.organisation_id = $1 AND ($2::text IS NULL OR f.service = $2)
      AND ($3::text IS NULL OR f.request_id = $3) AND ($4::text IS NULL OR f.billing_reference = $4)
      AND ($5::text IS NULL OR (i.id IS NULL) = ($5 = 'Unbilled'))
      AND ($6::timestamptz IS NULL OR f.charged_at >= $6) AND ($7::timestamptz IS NULL OR f.charged_at < $7)`;
  const values = [
    query.organisationId,
    query.service ?? null,
    query.requestId ?? null,
    query.billingReference ?? null,
    query.feeStatus ?? null,
    query.from ?? null,
    query.to ?? null,
  ];
  // One after the other: `db` may be a transaction's client, which runs one query at a time.
  const rows = await db.query<Omit<FeeRecord, 'invoiceReference'> & { invoiceNumber: string | null }>(
    `SELECT ${FEE_COLUMNS} FROM ${FEE_WITH_INVOICE} WHERE ${where}
      ORDER BY f.charged_at DESC, f.id DESC LIMIT $8 OFFSET $9`,
    [...values, pageSize, (page - 1) * pageSize],
  );
  const count = await db.query<{ total: number }>(
    `SELECT count(*)::int AS total FROM ${FEE_WITH_INVOICE} WHERE ${where}`,
    values,
  );
  const records = rows.rows.map(({ invoiceNumber, ...record }) => ({
    ...record,
    invoiceReference: invoiceNumber === null ? null : invoiceReference('invoice', Number(invoiceNumber)),
  }));
  return { records, page, pageSize, total: count.rows[0]!.total };
}

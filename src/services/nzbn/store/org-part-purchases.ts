/**
 * Purchases of organisation parts (migration 017, `nzbn_part_purchases`), the requests to create a part
 * kept under the caller's request id (`nzbn_part_requests`, for the platform's `successOnlyStore`:
 * platform/http/idempotency.ts) and the savepoint a declined purchase rolls its part back to.
 */
import type pg from 'pg';
import { withTransaction } from '../../../platform/db/pool.ts';
import type { Arrival, KeptRequest, SuccessTable } from '../../../platform/http/idempotency.ts';
import type { PurchaseRecord, PurchaseStatus } from '../domain/organisation-part-purchase.ts';

type Queryable = pg.Pool | pg.PoolClient;

interface PurchaseRow {
  purchase_id: string;
  nzbn: string;
  subscription_id: string;
  organisation_id: string;
  user_id: string | null;
  request_id: string;
  status: PurchaseStatus;
  purchaser_name: string;
  purchaser_email: string;
  purchaser_phone: string;
  redirect_url: string;
  amount_cents: number;
  response_code: string;
  fee_record_id: string | null;
  issued_opn: string | null;
  ordered_at: Date;
  updated_at: Date;
}

const record = (row: PurchaseRow): PurchaseRecord => ({
  purchaseId: row.purchase_id,
  nzbn: row.nzbn,
  subscriptionId: row.subscription_id,
  organisationId: row.organisation_id,
  userId: row.user_id,
  requestId: row.request_id,
  status: row.status,
  purchaser: {
    name: row.purchaser_name,
    emailAddress: row.purchaser_email,
    phoneNumber: row.purchaser_phone,
    redirectUrl: row.redirect_url,
  },
  amountCents: row.amount_cents,
  responseCode: row.response_code,
  feeRecordId: row.fee_record_id === null ? null : Number(row.fee_record_id),
  issuedOpn: row.issued_opn,
  orderedAt: row.ordered_at,
  updatedAt: row.updated_at,
});

export async function insertPurchase(client: pg.PoolClient, purchase: PurchaseRecord): Promise<void> {
  await client.query(
    `INSERT INTO nzbn_part_purchases (purchase_id, nzbn, subscription_id, organisation_id, user_id, request_id,
       status, purchaser_name, purchaser_email, purchaser_phone, redirect_url, amount_cents, response_code,
       fee_record_id, issued_opn, ordered_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)`,
    [
      purchase.purchaseId,
      purchase.nzbn,
      purchase.subscriptionId,
      purchase.organisationId,
      purchase.userId,
      purchase.requestId,
      purchase.status,
      purchase.purchaser.name,
      purchase.purchaser.emailAddress,
      purchase.purchaser.phoneNumber,
      purchase.purchaser.redirectUrl,
      purchase.amountCents,
      purchase.responseCode,
      purchase.feeRecordId,
      purchase.issuedOpn,
      purchase.orderedAt,
      purchase.updatedAt,
    ],
  );
}

/** One purchase by its id (a UUID: the caller checks the form). */
export async function findPurchase(db: Queryable, purchaseId: string): Promise<PurchaseRecord | undefined> {
  const { rows } = await db.query<PurchaseRow>('SELECT * FROM nzbn_part_purchases WHERE purchase_id = $1', [
    purchaseId,
  ]);
  return rows[0] && record(rows[0]);
}

const SAVEPOINT = 'nzbn_part_purchase';

/** Marks where a purchase's part begins in the client's transaction. */
export async function beginPurchasedPart(client: pg.PoolClient): Promise<void> {
  await client.query(`SAVEPOINT ${SAVEPOINT}`);
}

/** Undoes everything since `beginPurchasedPart` (the part, its number, its change event). */
export async function undoPurchasedPart(client: pg.PoolClient): Promise<void> {
  await client.query(`ROLLBACK TO SAVEPOINT ${SAVEPOINT}`);
}

/** A request to create a part as it arrives: its key is the caller's request id, per subscription. */
export interface PartArrival extends Arrival {
  subscriptionId: string;
  /** The register's clock when it arrived: the time it is kept at. */
  at: Date;
}

/** Requests to create a part kept by subscription and request id; `keep` says which outcomes stay. */
export function partRequestTable<Outcome>(
  pool: pg.Pool,
  keep: (outcome: Outcome) => boolean,
): SuccessTable<pg.PoolClient, Outcome, PartArrival> {
  return {
    transaction: (fn) => withTransaction(pool, fn),
    async lock(tx, arrival) {
      await tx.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 17))', [
        `nzbn-part|${arrival.subscriptionId}|${arrival.key}`,
      ]);
    },
    async find(arrival, tx): Promise<KeptRequest<Outcome> | undefined> {
      const db: Queryable = tx ?? pool;
      const { rows } = await db.query<{ request_hash: Buffer; answer: Outcome }>(
        'SELECT request_hash, answer FROM nzbn_part_requests WHERE subscription_id = $1 AND request_id = $2',
        [arrival.subscriptionId, arrival.key],
      );
      const row = rows[0];
      return row && { operation: arrival.operation, requestHash: row.request_hash, outcome: row.answer };
    },
    async keep(tx, arrival, outcome) {
      if (!keep(outcome)) return;
      await tx.query(
        `INSERT INTO nzbn_part_requests (subscription_id, request_id, request_hash, answer, kept_at)
         VALUES ($1, $2, $3, $4, $5)`,
        [arrival.subscriptionId, arrival.key, arrival.requestHash, JSON.stringify(outcome), arrival.at],
      );
    },
  };
}

/**
 * Requests kept under their idempotency key, for the platform's one implementation
 * (platform/http/idempotency.ts, `successOnlyStore`): renewals by subscription and request id
 * (`iponz_renewals`), filings by requestor and TransactionIdentifier (`iponz_filings`). A key is held by a
 * transaction-scoped advisory lock while its request runs; only successes are kept, with the request's
 * hash, so a repeat answers the first answer and a reuse for another request is refused. Rows kept before
 * hashes were (migration 007) are recognised as before: a renewal by its case, a filing by its kind.
 */
import type pg from 'pg';
import { withTransaction } from '../../../platform/db/pool.ts';
import type { Arrival, KeptRequest, SuccessTable } from '../../../platform/http/idempotency.ts';
import type { FiledKind } from '../domain/examination.ts';
import type { CaseKind } from '../domain/renewals.ts';

type Queryable = pg.Pool | pg.PoolClient;

/** A renewal as it arrives: its key is the caller's request id, scoped to the subscription. */
export interface RenewalArrival extends Arrival {
  subscriptionId: string;
  kind: CaseKind;
  caseNumber: number;
  /** The register's clock when it arrived (the sandbox's may be moved): the time it is kept at. */
  at: Date;
}

/** What a renewal keeps: its answer, and the case and due date it renewed. */
export interface KeptRenewal {
  answer: unknown;
  kind: CaseKind;
  caseNumber: number;
  renewedDueDate: string;
}

/** A filing as it arrives: its key is the TransactionIdentifier, scoped to the requestor. */
export interface FilingArrival extends Arrival {
  requestorId: string;
  kind: FiledKind;
  /** The register's clock when it arrived: the time it is kept at. */
  at: Date;
}

/** What a filing keeps: its answer and the case it made. */
export interface KeptFiling {
  answer: unknown;
  kind: FiledKind;
  caseNumber: number;
}

/** The kept request of a row: its hash, or for a row kept before hashes, the arrival's when `same`. */
function keptOf<Outcome>(
  row: { request_hash: Buffer | null },
  arrival: Arrival,
  same: boolean,
  operation: string,
  outcome: Outcome,
): KeptRequest<Outcome> {
  const requestHash = row.request_hash ?? (same ? arrival.requestHash : Buffer.alloc(0));
  return { operation, requestHash, outcome };
}

async function lock(tx: pg.PoolClient, name: string): Promise<void> {
  await tx.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 14))', [name]);
}

/** Renewals kept by subscription and request id. */
export function renewalTable(pool: pg.Pool): SuccessTable<pg.PoolClient, KeptRenewal, RenewalArrival> {
  return {
    transaction: (fn) => withTransaction(pool, fn),
    lock: (tx, arrival) => lock(tx, `iponz-renew|${arrival.subscriptionId}|${arrival.key}`),
    async find(arrival, tx) {
      const db: Queryable = tx ?? pool;
      const { rows } = await db.query<{
        kind: CaseKind;
        case_number: number;
        renewed_due_date: string;
        answer: unknown;
        request_hash: Buffer | null;
      }>(
        `SELECT kind, case_number, renewed_due_date::text, answer, request_hash FROM iponz_renewals
         WHERE subscription_id = $1 AND request_id = $2`,
        [arrival.subscriptionId, arrival.key],
      );
      const row = rows[0];
      if (!row) return undefined;
      const same = row.kind === arrival.kind && row.case_number === arrival.caseNumber;
      return keptOf(row, arrival, same, `the renewal of ${row.kind} ${row.case_number}`, {
        answer: row.answer,
        kind: row.kind,
        caseNumber: row.case_number,
        renewedDueDate: row.renewed_due_date,
      });
    },
    async keep(tx, arrival, outcome) {
      await tx.query(
        `INSERT INTO iponz_renewals
           (subscription_id, request_id, kind, case_number, renewed_due_date, answer, paid_at, request_hash)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
        [
          arrival.subscriptionId,
          arrival.key,
          outcome.kind,
          outcome.caseNumber,
          outcome.renewedDueDate,
          JSON.stringify(outcome.answer),
          arrival.at,
          arrival.requestHash,
        ],
      );
    },
  };
}

/** Filings kept by requestor and TransactionIdentifier. */
export function filingTable(pool: pg.Pool): SuccessTable<pg.PoolClient, KeptFiling, FilingArrival> {
  return {
    transaction: (fn) => withTransaction(pool, fn),
    lock: (tx, arrival) => lock(tx, `iponz-filing|${arrival.requestorId}|${arrival.key}`),
    async find(arrival, tx) {
      const db: Queryable = tx ?? pool;
      const { rows } = await db.query<{
        kind: FiledKind;
        case_number: number;
        answer: unknown;
        request_hash: Buffer | null;
      }>(
        `SELECT kind, case_number, answer, request_hash FROM iponz_filings
         WHERE requestor_id = $1 AND transaction_identifier = $2`,
        [arrival.requestorId, arrival.key],
      );
      const row = rows[0];
      if (!row) return undefined;
      return keptOf(row, arrival, row.kind === arrival.kind, `a ${row.kind} application`, {
        answer: row.answer,
        kind: row.kind,
        caseNumber: row.case_number,
      });
    },
    async keep(tx, arrival, outcome) {
      await tx.query(
        `INSERT INTO iponz_filings
           (requestor_id, transaction_identifier, kind, case_number, answer, filed_at, request_hash)
         VALUES ($1, $2, $3, $4, $5, $6, $7)`,
        [
          arrival.requestorId,
          arrival.key,
          outcome.kind,
          outcome.caseNumber,
          JSON.stringify(outcome.answer),
          arrival.at,
          arrival.requestHash,
        ],
      );
    },
  };
}

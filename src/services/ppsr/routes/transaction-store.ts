/**
 * The register's transaction record as the platform's idempotency (`platform/http/idempotency.ts`) keeps
 * requests: a claim is the transaction's arrival (one row per organisation and request id), the outcome
 * its completion, sealed with its answer (`store/transactions.ts`).
 */
import type pg from 'pg';
import type { ServiceContext } from '../../../gateway/service-context.ts';
import { withTransaction } from '../../../platform/db/pool.ts';
import type { Arrival, IdempotencyStore, KeptRequest } from '../../../platform/http/idempotency.ts';
import {
  completeTransaction,
  getKeyedTransaction,
  type Outcome as KeptOutcome,
  type NewTransaction,
  receiveTransaction,
  recordFailedTransaction,
  type TransactionRow,
} from '../store/transactions.ts';

/** A transaction's arrival: the register's record and the platform's key and hash. */
export type Ppsr = NewTransaction & Arrival;

/** A transaction row as the platform's idempotency sees it: its outcome once it has ended. */
export function keptOf(row: TransactionRow): KeptRequest<KeptOutcome> {
  return {
    operation: row.operation,
    requestHash: row.requestHash,
    outcome:
      row.statusCode === null
        ? null
        : {
            statusCode: row.statusCode,
            httpStatus: row.httpStatus ?? 500,
            response: row.response,
            completedAt: row.completedAt ?? row.receivedAt,
          },
  };
}

/** The idempotency store of one mounted environment, over its transaction records. */
export function transactionStore(
  context: ServiceContext,
): IdempotencyStore<pg.PoolClient, TransactionRow, KeptOutcome> {
  const { pool } = context.database;
  const keys = context.serverKeys;
  return {
    transaction: (fn) => withTransaction(pool, fn),
    async claim(client, arrival) {
      const received = await receiveTransaction(client, keys, arrival as Ppsr);
      return received.created
        ? { created: true, claim: received.row }
        : { created: false, kept: keptOf(received.row) };
    },
    complete: (client, row, outcome) => completeTransaction(client, keys, row, outcome),
    recordFailure: (arrival, outcome) => recordFailedTransaction(pool, keys, arrival as Ppsr, outcome),
    async find(arrival) {
      const row = await getKeyedTransaction(pool, keys, (arrival as Ppsr).organisationId, arrival.requestId);
      return row && keptOf(row);
    },
  };
}

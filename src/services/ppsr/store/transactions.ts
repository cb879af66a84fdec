/**
 * Transactions (SEC_56): every write and every search, keyed by the customer organisation and the
 * caller's request id. The row is written (committed) when the request arrives, with a null status while
 * it is processed; the processing's own database transaction completes it, so the outcome, the register's
 * change and the fee commit together. A repeat of a request id finds the first row: its outcome once it
 * has one, or "still processing".
 */
import type pg from 'pg';
import type { ServerKeys } from '../../../platform/server-keys.ts';
import { answerBinding, openAnswer, sealAnswer } from '../domain/sealed-answers.ts';

type Client = Pick<pg.PoolClient, 'query'>;

/** Published: 200 completed, 400 received but failed, 500 failed. */
export type TransactionStatusCode = 200 | 400 | 500;

export interface TransactionRow {
  id: number;
  organisationId: string;
  requestId: string;
  billingReference: string | null;
  operation: string;
  requestHash: Buffer;
  channel: 'API' | 'Web';
  correlationId: string;
  paymentSessionId: string | null;
  receivedAt: Date;
  completedAt: Date | null;
  statusCode: TransactionStatusCode | null;
  httpStatus: number | null;
  /** The kept answer, opened (it is stored sealed: domain/sealed-answers.ts). */
  response: unknown;
  registrationNumber: string | null;
  spgId: string | null;
}

interface StoredRow extends TransactionRow {
  responseSealed: Buffer | null;
  responseKeyId: string | null;
}

const COLUMNS = `id::int AS id, organisation_id AS "organisationId", request_id AS "requestId",
  billing_reference AS "billingReference", operation, request_hash AS "requestHash", channel,
  correlation_id AS "correlationId", payment_session_id AS "paymentSessionId", received_at AS "receivedAt",
  completed_at AS "completedAt", status_code AS "statusCode", http_status AS "httpStatus", response,
  response_sealed AS "responseSealed", response_key_id AS "responseKeyId",
  registration_number AS "registrationNumber", spg_id AS "spgId"`;

/** A row as callers see it: its kept answer opened (or in clear: a row not converted yet). */
function opened(keys: ServerKeys, row: StoredRow): TransactionRow {
  const { responseSealed, responseKeyId, ...rest } = row;
  if (!responseSealed || !responseKeyId) return rest;
  const binding = answerBinding(row.organisationId, row.requestId);
  const text = openAnswer(keys, { keyId: responseKeyId, sealed: responseSealed }, binding);
  return { ...rest, response: JSON.parse(text) };
}

/** The answer to keep, sealed for its transaction's row. */
function sealed(keys: ServerKeys, owner: { organisationId: string; requestId: string }, response: unknown) {
  return sealAnswer(keys, JSON.stringify(response), answerBinding(owner.organisationId, owner.requestId));
}

export interface NewTransaction {
  organisationId: string;
  requestId: string;
  /**
   * False when the gateway made the request id (the caller sent none): the transaction is kept under it
   * but it is no idempotency key, so no later request can repeat or collide with it.
   */
  requestIdSupplied: boolean;
  billingReference: string | null;
  operation: string;
  requestHash: Buffer;
  channel: 'API' | 'Web';
  correlationId: string;
  receivedAt: Date;
}

/**
 * Records a request's arrival. `created` is false when the organisation already sent this request id:
 * `row` is then the first request's record (compare `requestHash` to tell a repeat from a reuse).
 */
export async function receiveTransaction(
  client: Client,
  keys: ServerKeys,
  transaction: NewTransaction,
): Promise<{ created: boolean; row: TransactionRow }> {
  // Named (prepared once per connection): every transaction runs it.
  const inserted = await client.query<StoredRow>({
    name: transaction.requestIdSupplied ? 'ppsr-receive-transaction' : 'ppsr-receive-unkeyed-transaction',
    text: `INSERT INTO ppsr_transactions (organisation_id, request_id, billing_reference, operation, request_hash,
       channel, correlation_id, received_at, request_id_supplied)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, ${transaction.requestIdSupplied})
     ${transaction.requestIdSupplied ? 'ON CONFLICT (organisation_id, request_id) WHERE request_id_supplied DO NOTHING' : ''}
     RETURNING ${COLUMNS}`,
    values: [
      transaction.organisationId,
      transaction.requestId,
      transaction.billingReference,
      transaction.operation,
      transaction.requestHash,
      transaction.channel,
      transaction.correlationId,
      transaction.receivedAt,
    ],
  });
  if (inserted.rows[0]) return { created: true, row: opened(keys, inserted.rows[0]) };
  const existing = await getKeyedTransaction(client, keys, transaction.organisationId, transaction.requestId);
  if (!existing) throw new Error('a transaction conflicted on its request id and then was not found');
  return { created: false, row: existing };
}

/** The transaction an organisation sent under its own request id (the idempotency key), if any. */
export async function getKeyedTransaction(
  client: Client,
  keys: ServerKeys,
  organisationId: string,
  requestId: string,
): Promise<TransactionRow | undefined> {
  const result = await client.query<StoredRow>(
    `SELECT ${COLUMNS} FROM ppsr_transactions
      WHERE organisation_id = $1 AND request_id = $2 AND request_id_supplied`,
    [organisationId, requestId],
  );
  return result.rows[0] && opened(keys, result.rows[0]);
}

export interface Outcome {
  statusCode: TransactionStatusCode;
  httpStatus: number;
  response: unknown;
  completedAt: Date;
  registrationNumber?: string | null;
  spgId?: string | null;
  paymentSessionId?: string | null;
}

/**
 * Records a transaction that failed before its arrival could be kept (its work rolled back with it):
 * ended at once with its failure. Nothing when another request with the id got there first.
 */
export async function recordFailedTransaction(
  client: Client,
  keys: ServerKeys,
  transaction: NewTransaction,
  outcome: Omit<Outcome, 'registrationNumber' | 'spgId' | 'paymentSessionId'>,
): Promise<void> {
  const answer = sealed(keys, transaction, outcome.response);
  await client.query(
    `INSERT INTO ppsr_transactions (organisation_id, request_id, billing_reference, operation, request_hash,
       channel, correlation_id, received_at, status_code, http_status, response_sealed, response_key_id,
       completed_at, request_id_supplied)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, ${transaction.requestIdSupplied})
     ${transaction.requestIdSupplied ? 'ON CONFLICT (organisation_id, request_id) WHERE request_id_supplied DO NOTHING' : ''}`,
    [
      transaction.organisationId,
      transaction.requestId,
      transaction.billingReference,
      transaction.operation,
      transaction.requestHash,
      transaction.channel,
      transaction.correlationId,
      transaction.receivedAt,
      outcome.statusCode,
      outcome.httpStatus,
      answer.sealed,
      answer.keyId,
      outcome.completedAt,
    ],
  );
}

/**
 * Ends a transaction still processing; false when it had ended already (another process completed it or
 * marked it failed), in which case the caller's work must roll back.
 */
export async function completeTransaction(
  client: Client,
  keys: ServerKeys,
  transaction: Pick<TransactionRow, 'id' | 'organisationId' | 'requestId'>,
  outcome: Outcome,
): Promise<boolean> {
  const answer = sealed(keys, transaction, outcome.response);
  const result = await client.query({
    name: 'ppsr-complete-transaction',
    text: `UPDATE ppsr_transactions
        SET status_code = $2, http_status = $3, response_sealed = $4, response_key_id = $9, completed_at = $5,
            registration_number = $6, spg_id = $7, payment_session_id = $8
      WHERE id = $1 AND status_code IS NULL`,
    values: [
      transaction.id,
      outcome.statusCode,
      outcome.httpStatus,
      answer.sealed,
      outcome.completedAt,
      outcome.registrationNumber ?? null,
      outcome.spgId ?? null,
      outcome.paymentSessionId ?? null,
      answer.keyId,
    ],
  });
  return result.rowCount === 1;
}

/**
 * Gives up a transaction still processing whose work was refused before the register started it (no
 * direct debit authority any more): its request id is free again, as if it had never arrived.
 */
export async function forgetTransaction(
  client: Client,
  transaction: Pick<TransactionRow, 'id'>,
): Promise<void> {
  await client.query('DELETE FROM ppsr_transactions WHERE id = $1 AND status_code IS NULL', [transaction.id]);
}

/**
 * Ended transactions of an organisation by request id or billing reference, newest first (SEC_56).
 * Published: a transaction still processing is not found.
 */
export async function findEndedTransactions(
  client: Client,
  keys: ServerKeys,
  organisationId: string,
  by: { requestId: string } | { billingReference: string },
  limit = 100,
): Promise<TransactionRow[]> {
  const [column, value] =
    'requestId' in by ? ['request_id', by.requestId] : ['billing_reference', by.billingReference];
  const result = await client.query<StoredRow>(
    `SELECT ${COLUMNS} FROM ppsr_transactions
      WHERE organisation_id = $1 AND ${column} = $2 AND status_code IS NOT NULL
      ORDER BY received_at DESC, id DESC LIMIT $3`,
    [organisationId, value, limit],
  );
  return result.rows.map((row) => opened(keys, row));
}

/**
 * Transactions left processing since before `receivedBefore` (their process ended mid-way) are failed
 * with 500, as published: "failed, resubmit". Returns how many. Their answer is a fixed message, kept in
 * clear (it holds nothing of the caller's).
 */
export async function failAbandoned(client: Client, receivedBefore: Date, now: Date): Promise<number> {
  const result = await client.query(
    `UPDATE ppsr_transactions
        SET status_code = 500, http_status = 500, completed_at = $2,
            response = '{"message":"The transaction did not complete; resubmit it."}'
      WHERE status_code IS NULL AND received_at < $1`,
    [receivedBefore, now],
  );
  return result.rowCount ?? 0;
}

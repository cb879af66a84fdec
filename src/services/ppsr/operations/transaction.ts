/**
 * What a transactional operation is given and answers: its database transaction, which also completes
 * the transaction record, and the record's identity (request id, billing reference); its answer as the
 * transaction keeps it. How a request becomes a transaction (idempotency by request id, the platform's
 * timeout, the sandbox delay) is the routes' `Processing`; a tool records its own transaction first
 * (`store/transactions.ts`).
 */
import type pg from 'pg';

/** The transaction record a piece of work belongs to. */
export interface TransactionInfo {
  id: number;
  organisationId: string;
  requestId: string;
  billingReference: string | null;
  receivedAt: Date;
}

/** The database transaction of a transactional operation, and the record it completes. */
export interface InTransaction {
  client: pg.PoolClient;
  transaction: TransactionInfo;
}

/** What a transaction's work answers: the HTTP status, body and headers, and what SEC_56 shows beside. */
export interface Answer {
  httpStatus: number;
  body: unknown;
  /** Headers of the answer (ETag, Last-Modified, Location): kept with it, so a repeat answers them too. */
  headers?: Record<string, string>;
  registrationNumber?: string | null;
  spgId?: string | null;
  paymentSessionId?: string | null;
}

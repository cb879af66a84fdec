/**
 * Transactions as the register runs them (reference/ppsr.md, "Transactions" and "timeouts"): every write
 * and every search is a transaction keyed by the customer organisation and the caller's request id. Its
 * record, its work (the statement and its version, its search keys, the fee, the verification statements)
 * and its outcome are written in one database transaction: all of it commits or none of it does. While
 * it processes SEC_56 cannot see it (published); a concurrent repeat of the request id waits on the
 * record's unique index and then answers the first outcome (no second registration, no second fee); the
 * same id with another operation or body is refused (409). A process that ends mid-way leaves no record
 * (published: no record means not received — resend). A broken rule rolls the work back and is recorded
 * as the transaction's outcome, statusCode 400 (an unexpected fault 500).
 *
 * The HTTP call waits for the outcome up to the platform's timeout (published: 180 s; the setting
 * `RSG_PPSR_PLATFORM_TIMEOUT_MS`), then answers 504 in API Management's shape while the work goes on. In
 * the sandbox a caller can slow the work down (`Sandbox-Processing-Delay`, seconds) to rehearse the
 * published advice: time out, back off, look the transaction up with SEC_56, resend only if it is absent.
 * A delayed transaction's record is committed first (so a repeat during the delay finds it and waits,
 * without holding a database connection for the delay); one whose process then ends is failed with 500
 * by the service's job.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type pg from 'pg';
import type { ServiceContext } from '../../../gateway/service-context.ts';
import { withTransaction } from '../../../platform/db/pool.ts';
import { RuleError } from '../../../platform/errors.ts';
import { GATEWAY_TIMEOUT, PPSR_ERRORS } from '../../../platform/http/error-codes.ts';
import { HttpError, render, sendError, toHttpError } from '../../../platform/http/errors.ts';
import { callerRequestId } from '../../../platform/http/request-id.ts';
import {
  completeTransaction,
  getKeyedTransaction,
  type NewTransaction,
  receiveTransaction,
  recordFailedTransaction,
  type TransactionRow,
} from '../store/transactions.ts';

/** Published alias of the request id header (version 1). */
export const NZRIS_REQUEST_ID = 'nzris-org-nz-request-id';
/** Ours: a billing reference the caller's own accounts know the transaction by (SEC_56 finds it). */
export const BILLING_REFERENCE = 'billing-reference';
/** Ours, sandbox only: seconds to hold the work before it runs (0 to 900, decimals allowed). */
export const SANDBOX_DELAY = 'sandbox-processing-delay';
export const MAX_SANDBOX_DELAY_SECONDS = 900;
const SAFE_ID = /^[A-Za-z0-9._:-]{1,100}$/;
const POLL_MS = 50;

/** What a transaction's work answers: the HTTP status and body, and what SEC_56 shows beside them. */
export interface Answer {
  httpStatus: number;
  body: unknown;
  registrationNumber?: string | null;
  spgId?: string | null;
  paymentSessionId?: string | null;
}

export interface TransactionInfo {
  id: number;
  organisationId: string;
  requestId: string;
  billingReference: string | null;
  receivedAt: Date;
}

export interface TransactionalOperation {
  /** The published operation id, e.g. `PPSR_17`. */
  operation: string;
  organisationId: string;
  /** The work, in one database transaction that also completes the transaction record. */
  work(client: pg.PoolClient, transaction: TransactionInfo): Promise<Answer>;
  /** Headers of an answer (ETag, Location), for the first answer and every replay. */
  headers?(answer: { httpStatus: number; body: unknown }): Record<string, string>;
}

interface Outcome {
  httpStatus: number;
  body: unknown;
  /** Set for an error answer: its rendered content type. */
  contentType?: string;
}

export interface ProcessingSettings {
  platformTimeoutMs: number;
  /** Sandbox: a delay before every transaction's work (the setting), beside the header's. */
  sandboxDelayMs: number;
}

/**
 * The request id the caller sent: the gateway's header (the request's id), else the published v1 alias;
 * undefined when the caller sent none (the transaction is then kept under the gateway's id, which is no
 * idempotency key).
 */
export function callerRequestIdOf(request: FastifyRequest): string | undefined {
  const own = callerRequestId(request);
  if (own !== undefined) return own;
  const alias = request.headers[NZRIS_REQUEST_ID];
  if (typeof alias === 'string' && alias !== '') {
    if (!SAFE_ID.test(alias)) {
      throw new RuleError(
        'NZRIS-org-nz-Request-Id',
        'must be 1 to 100 letters, digits, ".", "_", ":" or "-"',
      );
    }
    return alias;
  }
  return undefined;
}

function billingReferenceOf(request: FastifyRequest): string | null {
  const value = request.headers[BILLING_REFERENCE];
  if (value === undefined || value === '') return null;
  if (typeof value !== 'string' || value.length > 100 || /\p{Cc}/u.test(value)) {
    throw new RuleError('Billing-Reference', 'must be at most 100 characters, without control characters');
  }
  return value;
}

function delayOf(request: FastifyRequest, context: ServiceContext, settings: ProcessingSettings): number {
  const value = request.headers[SANDBOX_DELAY];
  if (value === undefined) return context.environment === 'sandbox' ? settings.sandboxDelayMs : 0;
  if (context.environment !== 'sandbox') {
    throw new RuleError('Sandbox-Processing-Delay', 'is only honoured in the sandbox');
  }
  const seconds = typeof value === 'string' && /^\d+(\.\d{1,3})?$/.test(value) ? Number(value) : Number.NaN;
  if (!(seconds >= 0 && seconds <= MAX_SANDBOX_DELAY_SECONDS)) {
    throw new RuleError(
      'Sandbox-Processing-Delay',
      `must be a number of seconds from 0 to ${MAX_SANDBOX_DELAY_SECONDS}`,
    );
  }
  return Math.round(seconds * 1000);
}

/** Deeper than any body of the API: refused rather than walked (and never a stack overflow). */
const MAX_DEPTH = 32;

/** JSON with sorted keys: the same body always hashes the same. */
function canonical(value: unknown, depth = 0): string {
  if (depth > MAX_DEPTH) throw new RuleError('body', `must not nest deeper than ${MAX_DEPTH} levels`);
  if (Array.isArray(value)) return `[${value.map((v) => canonical(v, depth + 1)).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v, depth + 1)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/** The outcome a transaction row holds (an ended one). */
function outcomeOf(row: TransactionRow): Outcome {
  const stored = row.response as { body?: unknown; contentType?: string } | null;
  return {
    httpStatus: row.httpStatus ?? 500,
    body: stored?.body,
    ...(stored?.contentType ? { contentType: stored.contentType } : {}),
  };
}

/** Runs transactions for one mounted environment of the service. */
export class Processing {
  /** Work running in this process, by transaction id (a repeat here waits on it instead of polling). */
  private readonly running = new Map<number, Promise<Outcome>>();

  constructor(
    private readonly context: ServiceContext,
    private readonly settings: ProcessingSettings,
  ) {}

  async run(
    request: FastifyRequest,
    reply: FastifyReply,
    operation: TransactionalOperation,
  ): Promise<FastifyReply> {
    const started = Date.now();
    const suppliedRequestId = callerRequestIdOf(request);
    const requestId = suppliedRequestId ?? request.id;
    const billingReference = billingReferenceOf(request);
    const delayMs = delayOf(request, this.context, this.settings);
    const alias = request.headers[NZRIS_REQUEST_ID];
    if (typeof alias === 'string' && alias !== '') reply.header('NZRIS-org-nz-Request-Id', requestId);
    const requestHash = createHash('sha256')
      .update(`${operation.operation}\u0000${request.method}\u0000${request.url.split('?')[0]}\u0000`)
      .update(canonical(request.body ?? null))
      .digest();
    const arrival: NewTransaction = {
      organisationId: operation.organisationId,
      requestId,
      requestIdSupplied: suppliedRequestId !== undefined,
      billingReference,
      operation: operation.operation,
      requestHash,
      channel: 'API',
      correlationId: randomUUID(),
      receivedAt: this.context.clock.now(),
    };
    reply.header('Cache-Control', 'no-cache');
    const pending =
      delayMs > 0
        ? this.delayed(arrival, operation, delayMs, started)
        : this.direct(arrival, operation, started);
    const remaining = this.settings.platformTimeoutMs - (Date.now() - started);
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), Math.max(0, remaining));
    });
    const outcome = await Promise.race([pending, timedOut]).finally(() => clearTimeout(timer));
    if (outcome === 'timeout') {
      return sendError(
        request,
        reply,
        new HttpError(
          GATEWAY_TIMEOUT,
          `The request did not complete within the platform's timeout of ${Math.round(this.settings.platformTimeoutMs / 1000)} seconds. The transaction may still complete: look it up by request id (GET /customer-organisation-transactions?request-id=${requestId}) before sending it again.`,
        ),
        'apim',
      );
    }
    if (outcome.contentType) {
      return reply.code(outcome.httpStatus).type(outcome.contentType).send(JSON.stringify(outcome.body));
    }
    for (const [name, value] of Object.entries(operation.headers?.(outcome) ?? {})) reply.header(name, value);
    return reply
      .code(outcome.httpStatus)
      .type('application/json; charset=utf-8')
      .send(JSON.stringify(outcome.body));
  }

  /**
   * A transaction without a delay: its arrival is written in the same database transaction as its work,
   * so a concurrent repeat of the request id waits on the unique index until it commits (then answers
   * its outcome) or rolls back (then does the work itself), SEC_56 cannot see it while it processes, and
   * a process that ends mid-way leaves nothing behind (published: "no record: resubmit").
   */
  private async direct(
    arrival: NewTransaction,
    operation: TransactionalOperation,
    started: number,
  ): Promise<Outcome> {
    let existing: TransactionRow | undefined;
    let outcome: Outcome | undefined;
    try {
      outcome = await withTransaction(this.context.database.pool, async (client) => {
        const received = await receiveTransaction(client, this.context.serverKeys, arrival);
        if (!received.created) {
          existing = received.row;
          return undefined;
        }
        return this.perform(client, received.row, operation);
      });
    } catch (error) {
      return this.failed(error, (failure) =>
        recordFailedTransaction(this.context.database.pool, this.context.serverKeys, arrival, failure),
      );
    }
    return outcome ?? this.repeat(existing!, arrival, started);
  }

  /**
   * A transaction the sandbox holds back (`Sandbox-Processing-Delay`): its arrival is committed first, so
   * a repeat finds it processing and waits for it; the work runs after the delay, whatever the caller does.
   */
  private async delayed(
    arrival: NewTransaction,
    operation: TransactionalOperation,
    delayMs: number,
    started: number,
  ): Promise<Outcome> {
    const pool = this.context.database.pool;
    const received = await receiveTransaction(pool, this.context.serverKeys, arrival);
    const row = received.row;
    if (!received.created) return this.repeat(row, arrival, started);
    const work = (async (): Promise<Outcome> => {
      await sleep(delayMs);
      try {
        return await withTransaction(pool, (client) => this.perform(client, row, operation));
      } catch (error) {
        return this.failed(error, async (failure) => {
          await completeTransaction(pool, this.context.serverKeys, row, failure);
        });
      }
    })();
    this.running.set(row.id, work);
    void work.then(
      () => this.running.delete(row.id),
      () => this.running.delete(row.id),
    );
    return work;
  }

  /** The work and the transaction's completion, in the caller's database transaction. */
  private async perform(
    client: pg.PoolClient,
    row: TransactionRow,
    operation: TransactionalOperation,
  ): Promise<Outcome> {
    const info: TransactionInfo = {
      id: row.id,
      organisationId: row.organisationId,
      requestId: row.requestId,
      billingReference: row.billingReference,
      receivedAt: row.receivedAt,
    };
    const answer = await operation.work(client, info);
    const completed = await completeTransaction(client, this.context.serverKeys, row, {
      statusCode: 200,
      httpStatus: answer.httpStatus,
      response: { body: answer.body },
      completedAt: this.context.clock.now(),
      registrationNumber: answer.registrationNumber ?? null,
      spgId: answer.spgId ?? null,
      paymentSessionId: answer.paymentSessionId ?? null,
    });
    if (!completed) throw new Error(`transaction ${row.id} was ended by another process`);
    return { httpStatus: answer.httpStatus, body: answer.body };
  }

  /**
   * The work failed and rolled back: the failure is the transaction's outcome (published: 400 fix and
   * resubmit, 500 resubmit), recorded by `record`. A database that is away is answered 503 and records
   * nothing (a delayed transaction stays processing for the job to fail).
   */
  private async failed(
    error: unknown,
    record: (
      failure: Outcome & { statusCode: 400 | 500; completedAt: Date; response: unknown },
    ) => Promise<void>,
  ): Promise<Outcome> {
    const failure = toHttpError(error);
    if (failure.status === 503) throw failure;
    const rendered = render(this.context.service.dialect, failure);
    const body: unknown = JSON.parse(rendered.body);
    await record({
      statusCode: failure.status >= 500 ? 500 : 400,
      httpStatus: failure.status,
      body,
      response: { body, contentType: rendered.contentType },
      contentType: rendered.contentType,
      completedAt: this.context.clock.now(),
    });
    return { httpStatus: failure.status, body, contentType: rendered.contentType };
  }

  /** A repeat of a request id: refused if it is another request, else the first one's outcome. */
  private repeat(row: TransactionRow, arrival: NewTransaction, started: number): Promise<Outcome> {
    if (!row.requestHash.equals(arrival.requestHash)) {
      throw new HttpError(
        PPSR_ERRORS.requestIdReused,
        `The request id ${arrival.requestId} was used before for another request (${row.operation}); send a new request id.`,
        [{ field: 'api-business-govt-nz-Request-Id', message: 'was used before for a different request' }],
      );
    }
    if (row.statusCode !== null) return Promise.resolve(outcomeOf(row));
    return this.running.get(row.id) ?? this.await(row, started);
  }

  /** A repeat of a transaction another process is working on: its outcome once it has one. */
  private async await(row: TransactionRow, started: number): Promise<Outcome> {
    while (Date.now() - started < this.settings.platformTimeoutMs) {
      await sleep(POLL_MS);
      const now = await getKeyedTransaction(
        this.context.database.pool,
        this.context.serverKeys,
        row.organisationId,
        row.requestId,
      );
      if (now && now.statusCode !== null) return outcomeOf(now);
    }
    return new Promise<Outcome>(() => {});
  }
}

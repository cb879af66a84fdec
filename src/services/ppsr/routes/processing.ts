/**
 * Transactions as the register runs them (reference/ppsr.md, "Transactions" and "timeouts"): every write
 * and every search is a transaction keyed by the customer organisation and the caller's request id. Its
 * record, its work (the statement and its version, its search keys, the fee, the verification statements)
 * and its outcome are written in one database transaction: all of it commits or none of it does. While
 * it processes SEC_56 cannot see it (published); a concurrent repeat of the request id waits on the
 * record's unique index and then answers the first outcome (no second registration, no second fee); the
 * same id with another operation or body is refused (409). A process that ends mid-way leaves no record
 * (published: no record means not received — resend). A broken rule rolls the work back and is recorded
 * as the transaction's outcome, statusCode 400 (an unexpected fault 500); a refusal before the register
 * starts (no payer, no direct debit authority) is not recorded, so the same id runs once it is fixed. The
 * generic part (the key, the request hash, repeat and reuse, what is recorded) is the platform's
 * `idempotency.ts`; the transaction record is this register's store.
 *
 * The HTTP call waits for the outcome up to the platform's timeout (published: 180 s; the setting
 * `RSG_PPSR_PLATFORM_TIMEOUT_MS`), then answers 504 in API Management's shape while the work goes on. In
 * the sandbox a caller can slow the work down (`Sandbox-Processing-Delay`, seconds) to rehearse the
 * published advice: time out, back off, look the transaction up with SEC_56, resend only if it is absent.
 * A delayed transaction's record is committed first (so a repeat during the delay finds it and waits,
 * without holding a database connection for the delay); one whose process then ends is failed with 500
 * by the service's job.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type pg from 'pg';
import type { ServiceContext } from '../../../gateway/service-context.ts';
import { withTransaction } from '../../../platform/db/pool.ts';
import { RuleError } from '../../../platform/errors.ts';
import { GATEWAY_TIMEOUT } from '../../../platform/http/error-codes.ts';
import { HttpError, render, sendError, toHttpError } from '../../../platform/http/errors.ts';
import {
  awaitOutcome,
  callerIdempotencyKey,
  type IdempotencyStore,
  type KeptRequest,
  refusedBeforeStart,
  repeatOf,
  requestHash,
  runOnce,
} from '../../../platform/http/idempotency.ts';
import { operationContext } from '../../../platform/http/operation.ts';
import { PPSR_ERRORS } from '../errors.ts';
import type { Answer, TransactionInfo } from '../operations/transaction.ts';
import { HEADERS, MAX_REQUEST_ID_ALIAS } from '../schemas.ts';
import {
  completeTransaction,
  forgetTransaction,
  type Outcome as KeptOutcome,
  receiveTransaction,
  type TransactionRow,
} from '../store/transactions.ts';
import { correlationIdOf } from './support.ts';
import { keptOf, type Ppsr, transactionStore } from './transaction-store.ts';

// The headers a transaction reads, lower-cased as Node.js gives them. Every transactional operation
// declares them in its schema (`transactionHeaders`), so their values are checked before it runs.

/** Published alias of the request id header (version 1). */
const NZRIS_REQUEST_ID = HEADERS.requestIdAlias.toLowerCase();
/** Ours: a billing reference the caller's own accounts know the transaction by (SEC_56 finds it). */
const BILLING_REFERENCE = HEADERS.billingReference.toLowerCase();
/** Ours, sandbox only: seconds to hold the work before it runs (0 to 900, at most three decimals). */
const SANDBOX_DELAY = HEADERS.sandboxDelay.toLowerCase();
/** How long past the platform's timeout the `timeout` scenario's transaction completes. */
const TIMEOUT_SCENARIO_MARGIN_MS = 5_000;
const REQUEST_ID_ALIAS = {
  header: NZRIS_REQUEST_ID,
  name: HEADERS.requestIdAlias,
  maxLength: MAX_REQUEST_ID_ALIAS,
};
const REUSE = { code: PPSR_ERRORS.requestIdReused, field: 'api-business-govt-nz-Request-Id' };

export interface TransactionalOperation {
  /** The published operation id, e.g. `PPSR_17`. */
  operation: string;
  organisationId: string;
  /** The work, in one database transaction that also completes the transaction record. */
  work(client: pg.PoolClient, transaction: TransactionInfo): Promise<Answer>;
}

/** What the kept answer holds: the body, an error's rendered type, a success's headers. */
interface KeptResponse {
  body: unknown;
  contentType?: string;
  headers?: Record<string, string>;
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
export const callerRequestIdOf = (request: FastifyRequest): string | undefined =>
  callerIdempotencyKey(request, REQUEST_ID_ALIAS);

/** The billing reference (its length and characters checked by the operation's schema); empty is none. */
function billingReferenceOf(request: FastifyRequest): string | null {
  const value = request.headers[BILLING_REFERENCE];
  return typeof value === 'string' && value !== '' ? value : null;
}

/**
 * The delay before the work: the header's (its range checked by the sandbox operations' schemas), else
 * the sandbox's setting. Production does not declare the header and refuses it here, whatever its value.
 */
function delayOf(request: FastifyRequest, context: ServiceContext, settings: ProcessingSettings): number {
  // The sandbox's `Sandbox-Scenario: timeout` (the gateway's scenarios.ts): the work waits past the
  // platform's timeout, so the call is answered 504 and the transaction completes a moment later.
  if (request.sandboxScenario?.kind === 'timeout')
    return settings.platformTimeoutMs + TIMEOUT_SCENARIO_MARGIN_MS;
  const value = request.headers[SANDBOX_DELAY];
  if (value === undefined) return context.environment === 'sandbox' ? settings.sandboxDelayMs : 0;
  if (context.environment !== 'sandbox') {
    throw new RuleError(HEADERS.sandboxDelay, 'is only honoured in the sandbox');
  }
  return Math.round(Number(value) * 1000);
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/** A kept outcome as the caller gets it, first time or repeated: status, headers and body. */
function sendKept(reply: FastifyReply, outcome: KeptOutcome): FastifyReply {
  const kept = (outcome.response ?? {}) as KeptResponse;
  if (kept.contentType) {
    return reply.code(outcome.httpStatus).type(kept.contentType).send(JSON.stringify(kept.body));
  }
  for (const [name, value] of Object.entries(kept.headers ?? {})) reply.header(name, value);
  return reply
    .code(outcome.httpStatus)
    .type('application/json; charset=utf-8')
    .send(JSON.stringify(kept.body));
}

const runningKey = (arrival: Ppsr) => `${arrival.organisationId}\u0000${arrival.requestId}`;

/** Runs transactions for one mounted environment of the service. */
export class Processing {
  /** Work running in this process, by organisation and request id (a repeat here waits on it, not polling). */
  private readonly running = new Map<string, Promise<KeptOutcome>>();
  private readonly store: IdempotencyStore<pg.PoolClient, TransactionRow, KeptOutcome>;

  constructor(
    private readonly context: ServiceContext,
    private readonly settings: ProcessingSettings,
  ) {
    this.store = transactionStore(context);
  }

  async run(
    request: FastifyRequest,
    reply: FastifyReply,
    operation: TransactionalOperation,
  ): Promise<FastifyReply> {
    const started = Date.now();
    const arrival = this.arrivalOf(request, operation);
    const delayMs = delayOf(request, this.context, this.settings);
    const alias = request.headers[NZRIS_REQUEST_ID];
    if (typeof alias === 'string' && alias !== '') reply.header(HEADERS.requestIdAlias, arrival.requestId);
    reply.header('Cache-Control', 'no-cache');
    const pending =
      delayMs > 0
        ? this.delayed(request, arrival, operation, delayMs, started)
        : this.direct(request, arrival, operation, started);
    const remaining = this.settings.platformTimeoutMs - (Date.now() - started);
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), Math.max(0, remaining));
    });
    const outcome = await Promise.race([pending, timedOut]).finally(() => clearTimeout(timer));
    if (outcome === 'timeout') return this.timedOut(request, reply, arrival.requestId);
    return sendKept(reply, outcome);
  }

  /** The arrival of a transaction as the request carries it: its request id, billing reference and hash. */
  private arrivalOf(request: FastifyRequest, operation: TransactionalOperation): Ppsr {
    const key = callerRequestIdOf(request);
    return {
      key,
      organisationId: operation.organisationId,
      requestId: key ?? request.id,
      requestIdSupplied: key !== undefined,
      billingReference: billingReferenceOf(request),
      operation: operation.operation,
      requestHash: requestHash({
        operation: operation.operation,
        method: request.method,
        path: request.url.split('?')[0]!,
        body: request.body ?? null,
      }),
      channel: 'API',
      correlationId: correlationIdOf(request),
      receivedAt: this.context.clock.now(),
    };
  }

  /** The platform's timeout: the transaction may still complete, so the caller is told how to look it up. */
  private timedOut(request: FastifyRequest, reply: FastifyReply, requestId: string): FastifyReply {
    const seconds = Math.round(this.settings.platformTimeoutMs / 1000);
    return sendError(
      request,
      reply,
      new HttpError(
        GATEWAY_TIMEOUT,
        `The request did not complete within the platform's timeout of ${seconds} seconds. The transaction may still complete: look it up by request id (GET /customer-organisation-transactions?request-id=${requestId}) before sending it again.`,
      ),
      'apim',
    );
  }

  /**
   * A transaction without a delay: its arrival is written in the same database transaction as its work,
   * so a concurrent repeat of the request id waits on the unique index until it commits (then answers
   * its outcome) or rolls back (then does the work itself), SEC_56 cannot see it while it processes, and
   * a process that ends mid-way leaves nothing behind (published: "no record: resubmit").
   */
  private async direct(
    request: FastifyRequest,
    arrival: Ppsr,
    operation: TransactionalOperation,
    started: number,
  ): Promise<KeptOutcome> {
    const done = await runOnce(this.store, arrival, {
      work: (client, row) => this.perform(client, row, operation),
      failure: (error) => this.failure(error),
      reuse: REUSE,
    });
    if ('outcome' in done) return done.outcome;
    return this.repeat(request, done.repeat, arrival, started);
  }

  /**
   * A transaction the sandbox holds back (`Sandbox-Processing-Delay`): its arrival is committed first, so
   * a repeat finds it processing and waits for it; the work runs after the delay, whatever the caller does.
   */
  private async delayed(
    request: FastifyRequest,
    arrival: Ppsr,
    operation: TransactionalOperation,
    delayMs: number,
    started: number,
  ): Promise<KeptOutcome> {
    const pool = this.context.database.pool;
    const keys = this.context.serverKeys;
    const received = await receiveTransaction(pool, keys, arrival);
    const row = received.row;
    if (!received.created) {
      return this.repeat(request, repeatOf(keptOf(row), arrival, REUSE), arrival, started);
    }
    const work = (async (): Promise<KeptOutcome> => {
      await sleep(delayMs);
      try {
        return await withTransaction(pool, async (client) => {
          const outcome = await this.perform(client, row, operation);
          if (!(await completeTransaction(client, keys, row, outcome))) {
            throw new Error(`transaction ${row.id} was ended by another process`);
          }
          return outcome;
        });
      } catch (error) {
        // Refused before the register started: the arrival is given up, so the id may run again.
        if (refusedBeforeStart(error)) {
          await forgetTransaction(pool, row);
          throw error;
        }
        const failure = this.failure(error);
        await completeTransaction(pool, keys, row, failure);
        return failure;
      }
    })();
    const running = runningKey(arrival);
    this.running.set(running, work);
    void work.then(
      () => this.running.delete(running),
      () => this.running.delete(running),
    );
    return work;
  }

  /** The work, in the caller's database transaction; its answer as the transaction keeps it. */
  private async perform(
    client: pg.PoolClient,
    row: TransactionRow,
    operation: TransactionalOperation,
  ): Promise<KeptOutcome> {
    const answer = await operation.work(client, {
      id: row.id,
      organisationId: row.organisationId,
      requestId: row.requestId,
      billingReference: row.billingReference,
      receivedAt: row.receivedAt,
    });
    const response: KeptResponse = {
      body: answer.body,
      ...(answer.headers ? { headers: answer.headers } : {}),
    };
    return {
      statusCode: 200,
      httpStatus: answer.httpStatus,
      response,
      completedAt: this.context.clock.now(),
      registrationNumber: answer.registrationNumber ?? null,
      spgId: answer.spgId ?? null,
      paymentSessionId: answer.paymentSessionId ?? null,
    };
  }

  /**
   * The work failed and rolled back: the failure is the transaction's outcome (published: 400 fix and
   * resubmit, 500 resubmit). A database that is away is answered 503 and records nothing (a delayed
   * transaction stays processing for the job to fail).
   */
  private failure(error: unknown): KeptOutcome {
    const failure = toHttpError(error);
    if (failure.status === 503) throw failure;
    const rendered = render(this.context.service.dialect, failure);
    const response: KeptResponse = { body: JSON.parse(rendered.body), contentType: rendered.contentType };
    return {
      statusCode: failure.status >= 500 ? 500 : 400,
      httpStatus: failure.status,
      response,
      completedAt: this.context.clock.now(),
    };
  }

  /** A repeat of a request id (the same request): the first one's outcome, once it has one. */
  private async repeat(
    request: FastifyRequest,
    kept: KeptRequest<KeptOutcome>,
    arrival: Ppsr,
    started: number,
  ): Promise<KeptOutcome> {
    // A write's preconditions were checked by the request whose outcome a repeat answers.
    operationContext(request).preconditionsChecked = true;
    if (kept.outcome) return kept.outcome;
    const here = this.running.get(runningKey(arrival));
    if (here) return here;
    const outcome = await awaitOutcome(
      () => this.store.find(arrival),
      started + this.settings.platformTimeoutMs,
    );
    // Past the timeout the caller has been answered 504; nothing is left to wait for.
    return outcome ?? new Promise<KeptOutcome>(() => {});
  }
}

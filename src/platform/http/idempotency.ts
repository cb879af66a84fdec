/**
 * Idempotency by a caller's request id, once for every register that runs requests as transactions (the
 * secured interests register's transactions; the IP office's renewals and SOAP filings):
 *
 * - **The key** is only an id the caller sent (`callerRequestId`, or a published alias header): an id the
 *   gateway made names the request and nothing more, so no later request can repeat or collide with it.
 * - **A repeat** (the same key, operation and canonical body) answers the first request's outcome, waiting
 *   for it while it runs; the same key with another operation or body is refused, 409 `request-id-reused`.
 * - **The arrival, the work and the outcome commit together** (`runOnce`): a concurrent repeat waits on the
 *   store's claim of the key until the first commits (then replays it) or rolls back (then runs itself).
 * - **Refusals before the register starts are not recorded** (authentication, authority, direct debit,
 *   schema validation: `refusedBeforeStart`): the work rolls back and nothing is kept under the key, so
 *   the same id runs once the cause is fixed. A failure of the register's own rules is kept as the
 *   request's outcome (the register decides how: `failure`), and a repeat answers it again.
 *
 * The store (`IdempotencyStore`) is the register's: its table, what else it keeps beside the outcome. A
 * register that keeps only successes (the IP office's) builds it with `successOnlyStore`: a claim is a
 * transaction-scoped lock on the key, and the outcome is written when the work commits.
 */
import { createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { RuleError } from '../errors.ts';
import type { ErrorCode } from './error-codes.ts';
import { HttpError } from './errors.ts';
import { callerRequestId, SAFE_REQUEST_ID } from './request-id.ts';

/** A published second name of the request id header (the secured interests register's version 1). */
export interface RequestIdAlias {
  /** Lower-case header name. */
  header: string;
  /** The header as the register's documents spell it, for the 400 naming it. */
  name: string;
  maxLength: number;
}

/**
 * The request id the caller sent: the gateway's header (the request's id), else the alias; undefined when
 * the caller sent neither. An alias that is not a safe id is a 400 naming it.
 */
export function callerIdempotencyKey(
  request: Pick<FastifyRequest, 'id' | 'headers'>,
  alias?: RequestIdAlias,
): string | undefined {
  const own = callerRequestId(request);
  if (own !== undefined || !alias) return own;
  const value = request.headers[alias.header];
  if (typeof value !== 'string' || value === '') return undefined;
  if (value.length > alias.maxLength || !SAFE_REQUEST_ID.test(value)) {
    throw new RuleError(alias.name, `must be 1 to ${alias.maxLength} letters, digits, ".", "_", ":" or "-"`);
  }
  return value;
}

/** Deeper than any body of the registers: refused rather than walked (and never a stack overflow). */
const MAX_DEPTH = 32;

/** JSON with sorted keys and no undefined members: the same body always writes the same text. */
export function canonicalJson(value: unknown, depth = 0): string {
  if (depth > MAX_DEPTH) throw new RuleError('body', `must not nest deeper than ${MAX_DEPTH} levels`);
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v, depth + 1)).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v, depth + 1)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** What tells a repeat from a reuse: the operation, the method, the path and the canonical body. */
export function requestHash(request: {
  operation: string;
  method: string;
  path: string;
  body: unknown;
}): Buffer {
  return createHash('sha256')
    .update(`${request.operation}\u0000${request.method}\u0000${request.path}\u0000`)
    .update(canonicalJson(request.body ?? null))
    .digest();
}

/** A request as it arrives: `key` undefined when the caller sent no id (then nothing repeats it). */
export interface Arrival {
  key: string | undefined;
  /** The id the request is kept under: the key, or the gateway's id for it. */
  requestId: string;
  operation: string;
  requestHash: Buffer;
}

/** What a store keeps under a key. */
export interface KeptRequest<Outcome> {
  operation: string;
  requestHash: Buffer;
  /** Null while the request runs. */
  outcome: Outcome | null;
}

export interface IdempotencyStore<Tx, Claim, Outcome> {
  /** One unit of work (a database transaction): it commits when `fn` resolves and rolls back when it throws. */
  transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
  /**
   * Records the arrival in `tx`. With a key, a claim of a key another unit of work holds waits until that
   * one commits (then `created: false` and what it kept) or rolls back (then this one claims it).
   */
  claim(
    tx: Tx,
    arrival: Arrival,
  ): Promise<{ created: true; claim: Claim } | { created: false; kept: KeptRequest<Outcome> }>;
  /** Ends the claimed request with its outcome in `tx`; false when it had ended already. */
  complete(tx: Tx, claim: Claim, outcome: Outcome): Promise<boolean>;
  /** Keeps a failure as the request's outcome after its work rolled back (nothing if the key is taken). */
  recordFailure(arrival: Arrival, outcome: Outcome): Promise<void>;
  /** What is kept under the arrival's key now (a repeat polling a request another process runs). */
  find(arrival: Arrival): Promise<KeptRequest<Outcome> | undefined>;
}

/**
 * A refusal before the register starts: authentication (401), the caller's authority or payment (codes
 * marked `beforeStart`: billing's, 403), schema validation (Fastify's `validation`). Such a refusal is not kept under the
 * request id.
 */
export function refusedBeforeStart(error: unknown): boolean {
  if (error instanceof HttpError) return error.status === 401 || error.beforeStart;
  if (error instanceof RuleError) return error.code.beforeStart === true;
  return typeof error === 'object' && error !== null && 'validation' in error;
}

/**
 * How a reuse of a key for another request is refused: an error code and the field it names (the message
 * is the platform's), or the register's own error.
 */
export type Reuse<Outcome> =
  | { code: ErrorCode; field: string }
  | ((kept: KeptRequest<Outcome>, arrival: Arrival) => Error);

/** The kept request of a repeat: refused (as `refusal` says) when it is another request. */
export function repeatOf<Outcome>(
  kept: KeptRequest<Outcome>,
  arrival: Arrival,
  refusal: Reuse<Outcome>,
): KeptRequest<Outcome> {
  if (kept.requestHash.equals(arrival.requestHash)) return kept;
  if (typeof refusal === 'function') throw refusal(kept, arrival);
  throw new HttpError(
    refusal.code,
    `The request id ${arrival.requestId} was used before for another request (${kept.operation}); send a new request id.`,
    [{ field: refusal.field, message: 'was used before for a different request' }],
  );
}

export interface OnceOptions<Tx, Claim, Outcome> {
  /** The request's work, in the unit of work that claimed its key. */
  work(tx: Tx, claim: Claim): Promise<Outcome>;
  /**
   * The outcome a failure of the work is kept as; throw to keep nothing (a database away, or a register
   * that keeps only successes: `keepNoFailure`).
   */
  failure(error: unknown): Outcome | Promise<Outcome>;
  /** How a reuse of the key is refused. */
  reuse: Reuse<Outcome>;
}

/** `failure` of a register that keeps only successes: the error is answered and nothing is kept. */
export function keepNoFailure(error: unknown): never {
  throw error;
}

/**
 * Runs a request once under its key: its claim, work and outcome in one unit of work. Answers its outcome,
 * or what is kept under the key (a repeat: the outcome, or null while another process runs it).
 */
export async function runOnce<Tx, Claim, Outcome>(
  store: IdempotencyStore<Tx, Claim, Outcome>,
  arrival: Arrival,
  options: OnceOptions<Tx, Claim, Outcome>,
): Promise<{ outcome: Outcome } | { repeat: KeptRequest<Outcome> }> {
  let done: { outcome: Outcome } | { repeat: KeptRequest<Outcome> };
  try {
    done = await store.transaction(async (tx) => {
      const claimed = await store.claim(tx, arrival);
      if (!claimed.created) return { repeat: claimed.kept };
      const outcome = await options.work(tx, claimed.claim);
      if (!(await store.complete(tx, claimed.claim, outcome))) {
        throw new Error(`the request ${arrival.requestId} was ended by another process`);
      }
      return { outcome };
    });
  } catch (error) {
    if (refusedBeforeStart(error)) throw error;
    const outcome = await options.failure(error);
    await store.recordFailure(arrival, outcome);
    return { outcome };
  }
  if ('repeat' in done) return { repeat: repeatOf(done.repeat, arrival, options.reuse) };
  return done;
}

/**
 * The outcome of a request another process runs, polled until `deadline` (epoch ms); undefined when it
 * has none by then.
 */
export async function awaitOutcome<Outcome>(
  find: () => Promise<KeptRequest<Outcome> | undefined>,
  deadline: number,
  intervalMs = 50,
): Promise<Outcome | undefined> {
  while (Date.now() < deadline) {
    await new Promise<void>((resolve) => setTimeout(resolve, intervalMs).unref());
    const kept = await find();
    if (kept?.outcome) return kept.outcome;
  }
  return undefined;
}

/** Where a register that keeps only successes keeps them (`successOnlyStore`). */
export interface SuccessTable<Tx, Outcome, A extends Arrival = Arrival> {
  /** One unit of work (a database transaction): it commits when `fn` resolves and rolls back when it throws. */
  transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
  /** Holds the arrival's key until `tx` ends (a transaction-scoped lock): a second holder waits. */
  lock(tx: Tx, arrival: A): Promise<void>;
  /** What is kept under the arrival's key (in `tx`, or outside any unit of work when undefined). */
  find(arrival: A, tx?: Tx): Promise<KeptRequest<Outcome> | undefined>;
  /** Keeps the outcome under the arrival's key, in the work's unit of work. */
  keep(tx: Tx, arrival: A, outcome: Outcome): Promise<void>;
}

/**
 * The store of a register that keeps only its successes: a claim locks the key for the unit of work and
 * looks for what it keeps (a repeat arriving while the first runs waits for it to commit, then answers
 * it; if the first rolled back, the repeat runs itself); the outcome is kept when the work commits, and a
 * failure keeps nothing (use `keepNoFailure`). A request without a key is run and not kept.
 */
export function successOnlyStore<Tx, Outcome, A extends Arrival = Arrival>(
  table: SuccessTable<Tx, Outcome, A>,
): IdempotencyStore<Tx, A, Outcome> {
  return {
    transaction: (fn) => table.transaction(fn),
    async claim(tx, arrival) {
      const own = arrival as A;
      if (own.key === undefined) return { created: true, claim: own };
      await table.lock(tx, own);
      const kept = await table.find(own, tx);
      return kept ? { created: false, kept } : { created: true, claim: own };
    },
    async complete(tx, claim, outcome) {
      if (claim.key !== undefined) await table.keep(tx, claim, outcome);
      return true;
    },
    async recordFailure() {
      // Failures are not kept: the same key runs again once the request is put right.
    },
    find: (arrival) => table.find(arrival as A),
  };
}

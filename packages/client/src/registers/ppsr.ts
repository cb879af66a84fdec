/** The secured interests register (v2): every operation under its published id (`PPSR_nn`). */
import { NoAnswerError, RegisterError } from '../core/errors.ts';
import { pagingOf, requestOf } from '../core/register.ts';
import { sleep, type Transport } from '../core/transport.ts';
import type { AnswerOf, CallOptions, InputOf, KnownOperation, OperationOf } from '../core/typing.ts';
import { basePath, etagOf, mediaTypes, operationIds, type paths } from '../generated/ppsr.ts';

export type PpsrPaths = paths;
export const ppsrOperations = operationIds satisfies Record<string, KnownOperation<paths>>;
export const ppsr = {
  basePath,
  mediaTypes,
  etagOf,
  operations: ppsrOperations,
  paging: pagingOf(1, ['financingStatements', 'fees', 'items'], ['totalResults', 'totalItems']),
};

/**
 * The register's advice for a transaction that takes long (published): wait longer than its own 180 s
 * timeout, back off, look the transaction up by its request id (SEC_56, here `PPSR_56`), and resend only
 * when no record of it exists. Every attempt carries the same request id, so a resend the register has
 * already received answers the first outcome: never a second registration, never a second fee.
 */
export interface TimeoutPattern {
  /** The client's own timeout of one attempt: above the register's 180 s. Default 200 s. */
  timeoutMs?: number;
  /** The wait before looking the transaction up (published: about 3 minutes). Default 180 s. */
  backOffMs?: number;
  /** Lookups and resends in all before giving up. Default 3. */
  rounds?: number;
  /** Told of each step, for logs. */
  onStep?: (step: TransactionStep) => void;
}

export type TransactionStep =
  | { step: 'sent'; requestId: string; round: number }
  | { step: 'no-answer'; requestId: string; round: number; reason: string }
  | { step: 'looked-up'; requestId: string; round: number; statusCode: number | undefined };

/** How a transaction ended: its answer, the request id it ran under, and whether a lookup told it. */
export interface TransactionOutcome<T> {
  answer: T;
  requestId: string;
  /** The answer came from the transaction's record (SEC_56), not from the call itself. */
  fromLookup: boolean;
  rounds: number;
}

type Operations = typeof ppsrOperations;
type WriteNames = {
  [Name in keyof Operations]: Operations[Name] extends `GET ${string}` ? never : Name;
}[keyof Operations];
type TransactionInput<Name extends WriteNames> = InputOf<OperationOf<PpsrPaths, Operations[Name]>>;

export interface PpsrTransactions {
  /**
   * Runs a transactional write (`PPSR_17`, `PPSR_03`, …) the way the register advises (`TimeoutPattern`):
   * a request id of its own unless `input.requestId` names one.
   */
  transact<Name extends WriteNames>(
    name: Name,
    input: TransactionInput<Name>,
    pattern?: TimeoutPattern,
  ): Promise<TransactionOutcome<AnswerOf<OperationOf<PpsrPaths, Operations[Name]>>>>;
  /** The transaction records of a request id (SEC_56): empty while it processes or when never received. */
  transactionsOf(requestId: string, signal?: AbortSignal): Promise<TransactionRecord[]>;
}

export type TransactionRecord = AnswerOf<
  OperationOf<PpsrPaths, Operations['PPSR_56']>
>['transactions'][number];

/** The gateway's answer when the register's own timeout passed: the work goes on. */
const timedOutAtGateway = (error: unknown): boolean => error instanceof RegisterError && error.status === 504;

export function ppsrTransactions(transport: Transport): PpsrTransactions {
  const transactionsOf = async (requestId: string, signal?: AbortSignal) => {
    const { body } = await transport.send<{ transactions: TransactionRecord[] }>({
      ...requestOf(ppsrOperations.PPSR_56, { query: { 'request-id': requestId } }),
      signal,
    });
    return body.transactions;
  };
  return {
    transactionsOf,
    async transact(name, input, pattern = {}) {
      const requestId = (input as CallOptions).requestId ?? crypto.randomUUID();
      const operation = ppsrOperations[name];
      const rounds = pattern.rounds ?? 3;
      const signal = (input as CallOptions).signal;
      for (let round = 1; ; round++) {
        pattern.onStep?.({ step: 'sent', requestId, round });
        try {
          const { body } = await transport.send({
            ...requestOf(operation, { ...(input as object), requestId }),
            timeoutMs: pattern.timeoutMs ?? 200_000,
          });
          return { answer: body as never, requestId, fromLookup: false, rounds: round };
        } catch (error) {
          if (!(error instanceof NoAnswerError) && !timedOutAtGateway(error)) throw error;
          pattern.onStep?.({ step: 'no-answer', requestId, round, reason: (error as Error).message });
          if (round >= rounds) throw error;
        }
        await sleep(pattern.backOffMs ?? 180_000, signal);
        const [record] = await transactionsOf(requestId, signal);
        pattern.onStep?.({ step: 'looked-up', requestId, round, statusCode: record?.statusCode });
        if (record?.statusCode === 200) {
          return { answer: record.response as never, requestId, fromLookup: true, rounds: round };
        }
        if (record?.statusCode === 400) {
          // Received and failed on the register's rules: fix the request, resubmit under a new id.
          throw new RegisterError({
            kind: 'problem',
            status: 400,
            requestId,
            body: JSON.stringify(record.response),
            type: 'about:blank#transaction-failed',
            code: 'transaction-failed',
            title: 'Bad Request',
            detail: `transaction ${requestId} failed: ${JSON.stringify(record.response).slice(0, 300)}`,
            errors: [],
          });
        }
        // No record (not received, or still processing) or 500 (failed): resend under the same id.
      }
    },
  };
}

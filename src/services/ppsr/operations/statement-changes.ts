/**
 * The changes to a financing statement in force: amend (PPSR_03), renew (fee-bearing) and discharge.
 * Each is admitted before its transaction is recorded (`admitChange`), then made in it
 * (`changeStatement`): the next version, its fee and its verification statements.
 */
import type { Caller, ServiceContext } from '../../../gateway/service-context.ts';
import { RuleError } from '../../../platform/errors.ts';
import { PLATFORM_ERRORS } from '../../../platform/http/error-codes.ts';
import { HttpError } from '../../../platform/http/errors.ts';
import type { Preconditions } from '../../../platform/http/operation.ts';
import { type Collateral, checkCollaterals } from '../domain/collateral.ts';
import { renewedExpiryDate } from '../domain/dates.ts';
import { checkDebtors, checkSecuredParties, type Debtor } from '../domain/parties.ts';
import { PPSR_ERRORS } from '../errors.ts';
import type { AmendmentRequest } from '../schemas.ts';
import {
  type Change,
  getStatement,
  rehashPin,
  type StatementDocument,
  type StatementRow,
  writeVersion,
} from '../store/statements.ts';
import { queueVerificationStatements } from '../store/verification.ts';
import {
  chargeFee,
  present,
  requireRightToChange,
  securedPartiesNow,
  statementNotFound,
  statementValidators,
  today,
  validatorHeaders,
  verificationOf,
} from './support.ts';
import type { Answer, InTransaction } from './transaction.ts';

/** A change to a statement in force, with what it takes. */
export type StatementChange =
  | { kind: 'amend'; amendment: AmendmentRequest }
  | { kind: 'renew'; expiryDate?: string | undefined }
  | { kind: 'discharge' };

/** Each change's published operation id and its fee code, if it bears one. */
export const CHANGES: Record<StatementChange['kind'], { operation: string; feeCode?: string }> = {
  amend: { operation: 'PPSR_03' },
  renew: { operation: 'PPSR_RENEW', feeCode: 'PPSR_RENEWAL' },
  discharge: { operation: 'PPSR_DISCHARGE' },
};

/** The next version a change makes of the statement as it stands on `day`. */
function planned(
  current: StatementRow,
  change: StatementChange,
  day: string,
): { change: Exclude<Change, 'Registered'>; expiryDate: string; document: StatementDocument } {
  // A version copies the secured parties as they stand (a group's current ones).
  const asItStands = { ...current.document, securedParties: securedPartiesNow(current) };
  switch (change.kind) {
    case 'amend': {
      const body = change.amendment;
      const debtors = checkDebtors(body.debtors as Debtor[], day);
      const collaterals = checkCollaterals(
        body.collaterals as Collateral[],
        Number(day.slice(0, 4)),
        current.document.collaterals,
      );
      if (current.group && body.securedParties !== undefined) {
        throw new RuleError(
          'securedParties',
          `must be left out: the statement is registered under secured party group ${current.securedPartyGroupId} (change the group)`,
        );
      }
      const securedParties =
        body.securedParties === undefined
          ? securedPartiesNow(current)
          : checkSecuredParties(body.securedParties);
      return {
        change: 'Amended',
        expiryDate: current.expiryDate,
        document: { debtors, securedParties, collaterals },
      };
    }
    case 'renew':
      return {
        change: 'Renewed',
        expiryDate: renewedExpiryDate(day, current.expiryDate, change.expiryDate),
        document: asItStands,
      };
    case 'discharge':
      return { change: 'Discharged', expiryDate: current.expiryDate, document: asItStands };
  }
}

export interface ChangeInput {
  registrationNumber: string;
  /** The organisation that changes (and, for a fee-bearing change, pays). */
  organisationId: string;
  /** The statement's PIN, when the organisation did not register it. */
  pin: string | undefined;
  caller: Caller | undefined;
  change: StatementChange;
  /** If-Match and If-Unmodified-Since, checked under the statement's lock. */
  preconditions: Preconditions;
}

/**
 * Before a change's transaction is recorded: a statement that does not exist, or that this organisation
 * may not change, is refused (the change checks again under the row's lock). A PIN that matched a
 * verifier of an old form or key has its verifier made with the current key.
 */
export async function admitChange(
  context: ServiceContext,
  input: Pick<ChangeInput, 'registrationNumber' | 'organisationId' | 'pin'>,
): Promise<void> {
  const pool = context.database.pool;
  const existing = await getStatement(pool, input.registrationNumber);
  if (!existing) throw statementNotFound(input.registrationNumber);
  const rehash = requireRightToChange(context, input.pin, existing, input.organisationId);
  if (rehash) await rehashPin(pool, input.registrationNumber, existing.pinKeyIds, rehash);
}

/**
 * A change to a statement in force (amend, renew, discharge): locked, checked (preconditions, the right
 * to change, in force), the next version, its fee and its verification statements.
 */
export async function changeStatement(
  context: ServiceContext,
  input: ChangeInput,
  { client, transaction }: InTransaction,
): Promise<Answer> {
  const { registrationNumber, organisationId } = input;
  const now = context.clock.now();
  const day = today(context);
  const current = await getStatement(client, registrationNumber, { forUpdate: true });
  if (!current) throw statementNotFound(registrationNumber);
  checkStatementPreconditions(input.preconditions, current);
  requireRightToChange(context, input.pin, current, organisationId);
  if (current.dischargedAt || current.expiryDate < day) {
    throw new HttpError(
      PPSR_ERRORS.statementNotInForce,
      `Financing statement ${registrationNumber} is ${current.dischargedAt ? 'discharged' : 'expired'}: it can no longer be changed.`,
    );
  }
  const next = planned(current, input.change, day);
  const row = await writeVersion(client, current, { ...next, at: now, transactionId: transaction.id });
  const { operation, feeCode } = CHANGES[input.change.kind];
  const paymentSessionId = feeCode
    ? await chargeFee(context, client, transaction, {
        operation,
        feeCode,
        caller: input.caller,
        object: { kind: 'financing-statement', id: registrationNumber },
      })
    : null;
  await queueVerificationStatements(client, verificationOf(row, next.change), now);
  return {
    httpStatus: 200,
    body: present(row, day),
    headers: validatorHeaders(row),
    registrationNumber,
    paymentSessionId,
  };
}

/**
 * A change's preconditions against the statement as it stands, under its lock: If-Match and
 * If-Unmodified-Since (412 naming the version it is at, nothing written).
 */
function checkStatementPreconditions(preconditions: Preconditions, current: StatementRow): void {
  const validators = statementValidators(current);
  preconditions(
    validators,
    () =>
      new HttpError(
        PLATFORM_ERRORS.preconditionFailed,
        `Precondition Failed: financing statement ${current.registrationNumber} has changed; it is at version ${current.version} (ETag ${validators.etag}, Last-Modified ${validators.lastModified.toUTCString()}).`,
      ),
  );
}

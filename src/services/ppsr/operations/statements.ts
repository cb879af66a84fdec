/**
 * Financing statements: register (PPSR_17), read (PPSR_01), the changes (amend PPSR_03, renew,
 * discharge) and the version list (PPSR_55). A registration or change runs in its transaction's database
 * transaction (`InTransaction`) and answers what the transaction keeps.
 */
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import type { Caller, ServiceContext } from '../../../gateway/service-context.ts';
import { RuleError } from '../../../platform/errors.ts';
import { PLATFORM_ERRORS, PPSR_ERRORS } from '../../../platform/http/error-codes.ts';
import { HttpError } from '../../../platform/http/errors.ts';
import type { Preconditions, ResourceValidators } from '../../../platform/http/operation.ts';
import { type Collateral, checkCollaterals } from '../domain/collateral.ts';
import { expiryDate, renewedExpiryDate } from '../domain/dates.ts';
import {
  businessNumbersOf,
  checkDebtors,
  checkSecuredParties,
  type Debtor,
  type SecuredParty,
} from '../domain/parties.ts';
import { pinVerifier } from '../domain/pin-verifiers.ts';
import { pinFrom, registrationNumberFrom } from '../domain/registration-number.ts';
import type { AmendmentRequest, RegistrationRequest } from '../schemas.ts';
import { getGroup } from '../store/account.ts';
import {
  type Change,
  getStatement,
  insertStatement,
  listVersions,
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
  statementNotFound,
  statementValidators,
  today,
  validatorHeaders,
  versionListValidators,
} from './support.ts';
import type { Answer, InTransaction } from './transaction.ts';

/** Business numbers of organisation debtors must be in the business number register of this environment. */
async function checkBusinessNumbers(context: ServiceContext, debtors: readonly Debtor[]): Promise<void> {
  const register = context.registers.businessNumbers;
  if (!register) return;
  const numbers = businessNumbersOf(debtors);
  for (const [i, debtor] of debtors.entries()) {
    if (debtor.debtorType !== 'organisation' || !debtor.nzbn) continue;
    if (!numbers.includes(debtor.nzbn)) continue;
    const entity = await register.find(debtor.nzbn);
    if (!entity) {
      throw new RuleError(`debtors.${i}.nzbn`, `is not in the business number register (${debtor.nzbn})`);
    }
  }
}

/** The secured parties of a registration: listed, or the group's (of the caller's organisation). */
async function securedPartiesOf(
  client: pg.PoolClient,
  body: { securedParties?: SecuredParty[] | undefined; securedPartyGroupId?: string | undefined },
  organisationId: string,
): Promise<{ parties: SecuredParty[]; groupId: string | null }> {
  if (body.securedPartyGroupId !== undefined) {
    if (body.securedParties !== undefined) {
      throw new RuleError('securedParties', 'must be left out when securedPartyGroupId is given');
    }
    const group = await getGroup(client, body.securedPartyGroupId);
    if (!group || group.organisationId !== organisationId) {
      throw new RuleError('securedPartyGroupId', 'is not a secured party group of your organisation');
    }
    return { parties: group.securedParties, groupId: group.securedPartyGroupId };
  }
  return { parties: checkSecuredParties(body.securedParties ?? []), groupId: null };
}

const VERB: Record<Change, string> = {
  Registered: 'registered',
  Amended: 'amended',
  Renewed: 'renewed',
  Discharged: 'discharged',
};

/** The verification statements of a change: one to each secured party of the new version. */
function verificationOf(row: StatementRow, change: Change) {
  return row.document.securedParties.map((party) => ({
    registrationNumber: row.registrationNumber,
    version: row.version,
    change,
    to: party.email,
    subject: `Verification statement: financing statement ${row.registrationNumber} ${VERB[change]}`,
    text: [
      `Dear ${party.name},`,
      '',
      `Financing statement ${row.registrationNumber} was ${VERB[change]} on the secured interests register; this is version ${row.version}.`,
      `Expiry date: ${row.expiryDate}.`,
      `Debtors: ${row.document.debtors.map((d) => (d.debtorType === 'organisation' ? d.organisationName : `${d.firstName} ${d.lastName}`)).join('; ')}.`,
      `Collateral: ${row.document.collaterals.map((c) => c.collateralType).join(', ')}.`,
      '',
      'If you did not expect this change, contact the registering organisation at once.',
    ].join('\n'),
  }));
}

export interface RegistrationInput {
  /** The organisation that registers and pays (its direct debit authority already checked). */
  organisationId: string;
  /** Who acts, for the fee record. */
  caller: Caller | undefined;
  registration: RegistrationRequest;
}

/**
 * Registers a financing statement (PPSR_17): its first version, search keys and verification statements,
 * its PIN and debtor PIN, and the fee. The answer holds both PINs (they are shown once, and kept with the
 * transaction's answer).
 */
export async function registerStatement(
  context: ServiceContext,
  input: RegistrationInput,
  { client, transaction }: InTransaction,
): Promise<Answer> {
  const { organisationId, registration: body } = input;
  const now = context.clock.now();
  const day = today(context);
  const debtors = checkDebtors(body.debtors as Debtor[], day);
  const collaterals = checkCollaterals(body.collaterals as Collateral[], Number(day.slice(0, 4)));
  const expiry = expiryDate(day, body.expiryDate);
  const { parties, groupId } = await securedPartiesOf(client, body, organisationId);
  await checkBusinessNumbers(context, debtors);
  const document: StatementDocument = { debtors, securedParties: parties, collaterals };
  const pin = pinFrom(randomBytes(8));
  const debtorPin = pinFrom(randomBytes(8));
  const verifier = pinVerifier(context.serverKeys, pin);
  const debtorVerifier = pinVerifier(context.serverKeys, debtorPin);
  // The statement, its first version, its search keys and its verification statements in one
  // statement; a registration number already taken (never seen in practice) draws another.
  let row: StatementRow;
  do {
    row = {
      registrationNumber: registrationNumberFrom(randomBytes(16)),
      organisationId,
      securedPartyGroupId: groupId,
      registeredAt: now,
      expiryDate: expiry,
      dischargedAt: null,
      version: 1,
      changedAt: now,
      document,
      pinHash: verifier.hash,
      pinKeyIds: verifier.keyIds,
    };
  } while (
    !(await insertStatement(client, {
      registrationNumber: row.registrationNumber,
      organisationId,
      securedPartyGroupId: groupId,
      registeredAt: now,
      expiryDate: expiry,
      pinHash: verifier.hash,
      pinKeyIds: verifier.keyIds,
      debtorPinHash: debtorVerifier.hash,
      debtorPinKeyIds: debtorVerifier.keyIds,
      document,
      transactionId: transaction.id,
      verificationStatements: verificationOf(row, 'Registered'),
    }))
  );
  const registrationNumber = row.registrationNumber;
  const fee = await chargeFee(context, client, transaction, {
    operation: 'PPSR_17',
    feeCode: 'PPSR_REGISTRATION',
    caller: input.caller,
    object: { kind: 'financing-statement', id: registrationNumber },
  });
  return {
    httpStatus: 201,
    body: { ...present(row, day), financingStatementPin: pin, debtorPin },
    headers: { ...validatorHeaders(row), Location: `financing-statements/${registrationNumber}` },
    registrationNumber,
    paymentSessionId: fee,
  };
}

/** A statement as the API shows it today, with its validators (PPSR_01). */
export async function readStatement(
  context: ServiceContext,
  input: { registrationNumber: string },
): Promise<{ statement: ReturnType<typeof present>; validators: ResourceValidators }> {
  const row = await getStatement(context.database.pool, input.registrationNumber);
  if (!row) throw statementNotFound(input.registrationNumber);
  return { statement: present(row, today(context)), validators: statementValidators(row) };
}

/**
 * A statement's versions, oldest first (PPSR_55): the list's validators, and the list itself read only
 * when it is wanted (`versions`; a conditional read that answers 304 never reads it).
 */
export async function readVersions(
  context: ServiceContext,
  input: { registrationNumber: string },
): Promise<{ validators: ResourceValidators; versions(): Promise<unknown> }> {
  const pool = context.database.pool;
  const { registrationNumber } = input;
  const row = await getStatement(pool, registrationNumber);
  if (!row) throw statementNotFound(registrationNumber);
  const day = today(context);
  return {
    validators: versionListValidators(row, day),
    async versions() {
      const versions = (await listVersions(pool, registrationNumber)).map((v) => ({
        ...present(
          {
            ...row,
            version: v.version,
            expiryDate: v.expiryDate,
            dischargedAt: v.change === 'Discharged' ? v.changedAt : null,
            document: v.document,
          },
          day,
        ),
        // A version shows the status it had when it was current (superseded versions were registered).
        ...(v.version < row.version ? { status: 'Registered' } : {}),
        change: v.change,
      }));
      return { registrationNumber, versions };
    },
  };
}

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
  switch (change.kind) {
    case 'amend': {
      const body = change.amendment;
      const debtors = checkDebtors(body.debtors as Debtor[], day);
      const collaterals = checkCollaterals(
        body.collaterals as Collateral[],
        Number(day.slice(0, 4)),
        current.document.collaterals,
      );
      const securedParties =
        body.securedParties === undefined
          ? current.document.securedParties
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
        document: current.document,
      };
    case 'discharge':
      return { change: 'Discharged', expiryDate: current.expiryDate, document: current.document };
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

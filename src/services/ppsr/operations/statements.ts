/**
 * Financing statements: register (PPSR_17), read (PPSR_01) and the version list (PPSR_55); the changes
 * are `statement-changes.ts`. A registration runs in its transaction's database transaction
 * (`InTransaction`) and answers what the transaction keeps.
 */
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import type { Caller, ServiceContext } from '../../../gateway/service-context.ts';
import { RuleError } from '../../../platform/errors.ts';
import type { ResourceValidators } from '../../../platform/http/operation.ts';
import { formatNzDateTime } from '../../../platform/nz-time.ts';
import { type Collateral, checkCollaterals } from '../domain/collateral.ts';
import { expiryDate } from '../domain/dates.ts';
import {
  businessNumbersOf,
  checkDebtors,
  checkSecuredParties,
  type Debtor,
  type SecuredParty,
} from '../domain/parties.ts';
import { pinVerifier } from '../domain/pin-verifiers.ts';
import { pinFrom, registrationNumberFrom } from '../domain/registration-number.ts';
import type { RegistrationRequest } from '../schemas.ts';
import { type GroupRow, getGroup } from '../store/account.ts';
import {
  getStatement,
  insertStatement,
  listVersions,
  type StatementDocument,
  type StatementRow,
} from '../store/statements.ts';
import { listVerificationStatements } from '../store/verification.ts';
import {
  chargeFee,
  present,
  type ReadAccess,
  requireRightToRead,
  statementNotFound,
  statementValidators,
  today,
  validatorHeaders,
  verificationOf,
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

/**
 * The secured parties of a registration: listed, or the group's (of the caller's organisation), which
 * the statement references: the group is kept from deletion until the registration commits, and its
 * parties as they stand are the first version's.
 */
async function securedPartiesOf(
  client: pg.PoolClient,
  body: { securedParties?: SecuredParty[] | undefined; securedPartyGroupId?: string | undefined },
  organisationId: string,
): Promise<{ parties: SecuredParty[]; group: GroupRow | null }> {
  if (body.securedPartyGroupId !== undefined) {
    if (body.securedParties !== undefined) {
      throw new RuleError('securedParties', 'must be left out when securedPartyGroupId is given');
    }
    const group = await getGroup(client, body.securedPartyGroupId, { forKeyShare: true });
    if (!group || group.organisationId !== organisationId) {
      throw new RuleError('securedPartyGroupId', 'is not a secured party group of your organisation');
    }
    return { parties: group.securedParties, group };
  }
  return { parties: checkSecuredParties(body.securedParties ?? []), group: null };
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
  const { parties, group } = await securedPartiesOf(client, body, organisationId);
  const groupId = group?.securedPartyGroupId ?? null;
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
      debtorPinHash: debtorVerifier.hash,
      debtorPinKeyIds: debtorVerifier.keyIds,
      group: group && {
        name: group.name,
        email: group.email,
        securedParties: group.securedParties,
        version: group.version,
        updatedAt: group.updatedAt.toISOString(),
      },
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

/**
 * A statement as the API shows it today, with its validators (PPSR_01), to a reader who may see it
 * (`requireRightToRead`); to anyone else as a statement that does not exist.
 */
export async function readStatement(
  context: ServiceContext,
  input: { registrationNumber: string; access: ReadAccess },
): Promise<{ statement: ReturnType<typeof present>; validators: ResourceValidators }> {
  const row = await getStatement(context.database.pool, input.registrationNumber);
  if (!row) throw statementNotFound(input.registrationNumber);
  await requireRightToRead(context, row, input.access);
  return { statement: present(row, today(context)), validators: statementValidators(row) };
}

/**
 * A statement's verification statements, oldest first (ours: read through the API as well as mailed),
 * to a reader who may see the statement: each as mailed (its collateral under the published type names)
 * with when it was made and sent.
 */
export async function readVerificationStatements(
  context: ServiceContext,
  input: { registrationNumber: string; access: ReadAccess },
) {
  const pool = context.database.pool;
  const row = await getStatement(pool, input.registrationNumber);
  if (!row) throw statementNotFound(input.registrationNumber);
  await requireRightToRead(context, row, input.access);
  const kept = await listVerificationStatements(pool, input.registrationNumber);
  return {
    registrationNumber: input.registrationNumber,
    verificationStatements: kept.map((v) => ({
      verificationStatementId: v.id,
      version: v.version,
      change: v.change,
      to: v.to,
      subject: v.subject,
      text: v.text,
      createdDate: formatNzDateTime(v.createdAt.getTime()),
      sentDate: v.sentAt ? formatNzDateTime(v.sentAt.getTime()) : null,
    })),
  };
}

/**
 * A statement's versions, oldest first (PPSR_55), to a reader who may see the statement: the list's validators, and the list itself read only
 * when it is wanted (`versions`; a conditional read that answers 304 never reads it).
 */
export async function readVersions(
  context: ServiceContext,
  input: { registrationNumber: string; access: ReadAccess },
): Promise<{ validators: ResourceValidators; versions(): Promise<unknown> }> {
  const pool = context.database.pool;
  const { registrationNumber } = input;
  const row = await getStatement(pool, registrationNumber);
  if (!row) throw statementNotFound(registrationNumber);
  await requireRightToRead(context, row, input.access);
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
            // Each version shows its secured parties as they stood then (a group's, copied into it).
            group: null,
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

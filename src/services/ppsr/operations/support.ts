/**
 * What every operation of the register shares: the organisation the caller acts for (and, for a
 * fee-bearing operation, pays), a statement as the API shows it, the validators of the statement and of
 * its version list, the organisation's right to change it, the fee charge and the verification
 * statements of a change.
 */
import type pg from 'pg';
import { BILLING_ERRORS } from '../../../billing/errors.ts';
import type { FeeCharge } from '../../../billing/fees.ts';
import type { Caller, ServiceContext } from '../../../gateway/service-context.ts';
import { addDays, nzDate, parseDate } from '../../../platform/calendar.ts';
import { RuleError } from '../../../platform/errors.ts';
import { PLATFORM_ERRORS } from '../../../platform/http/error-codes.ts';
import { HttpError } from '../../../platform/http/errors.ts';
import type { ResourceValidators } from '../../../platform/http/operation.ts';
import { formatNzDateTime, nzMidnight } from '../../../platform/nz-time.ts';
import { COLLATERAL_TYPES, type CollateralType } from '../domain/collateral.ts';
import { statusOn } from '../domain/dates.ts';
import { checkPin, type PinVerifier } from '../domain/pin-verifiers.ts';
import { isRegistrationNumber } from '../domain/registration-number.ts';
import { PPSR_ERRORS } from '../errors.ts';
import { HEADERS } from '../schemas.ts';
import { type Change, rehashPin, type StatementRow } from '../store/statements.ts';
import type { TransactionInfo } from './transaction.ts';

export const today = (context: ServiceContext): string => nzDate(context.clock.now().getTime());

/** The customer organisation the caller acts for (its user's organisation in this environment). */
export async function organisationOf(context: ServiceContext, caller: Caller | undefined): Promise<string> {
  return (await context.fees.payer(caller)).organisationId;
}

/**
 * The organisation a reader acts for, or none: a whole statement may still be read with one of its PINs
 * by a caller who belongs to no organisation in this environment.
 */
export async function readerOrganisationOf(
  context: ServiceContext,
  caller: Caller | undefined,
): Promise<string | undefined> {
  try {
    return await organisationOf(context, caller);
  } catch (error) {
    if (error instanceof RuleError && error.code === BILLING_ERRORS.billingOrganisationRequired) {
      return undefined;
    }
    throw error;
  }
}

/** Who reads a whole statement: the organisation they act for (if any) and the PINs they send. */
export interface ReadAccess {
  organisationId: string | undefined;
  /** The financing statement PIN (`Financing-Statement-PIN`). */
  pin?: string | undefined;
  /** The debtor PIN (`Debtor-PIN`, ours). */
  debtorPin?: string | undefined;
}

/**
 * May this reader see the whole statement (PPSR_01, PPSR_55)? Ours, written in the README: the
 * organisation that registered it (its secured party's organisation) may; so may whoever sends its
 * financing statement PIN or its debtor PIN. Anyone else is answered exactly as for a statement that
 * does not exist: their way to a statement is a search, which bears its fee. Discharged and expired
 * statements alike. A statement PIN that matched a verifier of an old form or key is rehashed.
 */
export async function requireRightToRead(
  context: ServiceContext,
  row: StatementRow,
  access: ReadAccess,
): Promise<void> {
  if (row.organisationId !== null && row.organisationId === access.organisationId) return;
  if (access.pin) {
    const check = checkPin(context.serverKeys, access.pin, { hash: row.pinHash, keyIds: row.pinKeyIds });
    if (check.matches) {
      if (check.rehash) {
        await rehashPin(context.database.pool, row.registrationNumber, row.pinKeyIds, check.rehash);
      }
      return;
    }
  }
  if (access.debtorPin) {
    const verifier = { hash: row.debtorPinHash, keyIds: row.debtorPinKeyIds };
    if (checkPin(context.serverKeys, access.debtorPin, verifier).matches) return;
  }
  throw statementNotFound(row.registrationNumber);
}

/**
 * The organisation of a fee-bearing operation, once it may pay: in production its approved direct debit
 * authority (403 otherwise). Checked before the transaction is received, so a refusal keeps nothing under
 * the request id and consumes no number.
 */
export async function payingOrganisationOf(
  context: ServiceContext,
  caller: Caller | undefined,
): Promise<string> {
  return (await context.fees.requireAuthority(caller)).organisationId;
}

export function registrationNumberParam(value: string): string {
  const upper = value.toUpperCase();
  if (!isRegistrationNumber(upper)) {
    throw new RuleError('registrationNumber', 'must be 16 letters and digits, e.g. FH04R729A8ND9224');
  }
  return upper;
}

export const statementNotFound = (registrationNumber: string) =>
  new HttpError(
    PLATFORM_ERRORS.notFound,
    `No financing statement has the registration number ${registrationNumber}.`,
  );

/**
 * The secured parties of a statement as it stands: its group's current parties when it is registered
 * under one (a group is referenced, not copied), else its own.
 */
export const securedPartiesNow = (row: StatementRow): StatementRow['document']['securedParties'] =>
  row.group ? row.group.securedParties : row.document.securedParties;

/** A statement's version as the API shows it, its status on `day`. */
export function present(row: StatementRow, day: string) {
  return {
    registrationNumber: row.registrationNumber,
    version: row.version,
    status: statusOn(day, row.expiryDate, row.dischargedAt !== null),
    registrationDate: formatNzDateTime(row.registeredAt.getTime()),
    expiryDate: row.expiryDate,
    ...(row.dischargedAt ? { dischargeDate: formatNzDateTime(row.dischargedAt.getTime()) } : {}),
    ...(row.securedPartyGroupId ? { securedPartyGroupId: row.securedPartyGroupId } : {}),
    debtors: row.document.debtors,
    securedParties: securedPartiesNow(row),
    collaterals: row.document.collaterals,
  };
}

/**
 * The statement's ETag: its registration number and version (every change makes a new version) and,
 * under a secured party group, the group's version (a group update changes the answer, not the version).
 */
export const statementEtag = (registrationNumber: string, version: number, groupVersion?: number): string =>
  `"${registrationNumber}.${version}${groupVersion === undefined ? '' : `.g${groupVersion}`}"`;

/** The statement's validators: its ETag, and the later of its current version's and its group's time. */
export function statementValidators(row: StatementRow): ResourceValidators {
  const groupChanged = row.group ? new Date(row.group.updatedAt) : undefined;
  return {
    etag: statementEtag(row.registrationNumber, row.version, row.group?.version),
    lastModified: groupChanged && groupChanged > row.changedAt ? groupChanged : row.changedAt,
  };
}

/** A statement's ETag and Last-Modified, as headers of a write's answer (kept with it for repeats). */
export function validatorHeaders(row: StatementRow): Record<string, string> {
  const validators = statementValidators(row);
  return { ETag: validators.etag, 'Last-Modified': validators.lastModified.toUTCString() };
}

/**
 * The validators of a statement's version list (PPSR_55) on `day`. The list changes with every new
 * version and, with none, when the day makes the current version `Expired`: the ETag is the statement's
 * version and that status, Last-Modified the later of its current version's time and the New Zealand
 * midnight it expired at.
 */
export function versionListValidators(row: StatementRow, day: string): ResourceValidators {
  const status = statusOn(day, row.expiryDate, row.dischargedAt !== null);
  let lastModified = row.changedAt;
  if (status === 'Expired') {
    const expired = parseDate(addDays(row.expiryDate, 1))!;
    const since = new Date(nzMidnight(expired.year, expired.month, expired.day));
    if (since > lastModified) lastModified = since;
  }
  return {
    etag: `"${row.registrationNumber}.${row.version}.${status.toLowerCase()}"`,
    lastModified,
  };
}

/**
 * May this organisation change the statement? The organisation that registered it may; another needs
 * the statement's PIN (sent in the `Financing-Statement-PIN` header), checked against its keyed verifier.
 * Returns the verifier to store instead when the PIN matched one of an old form or key (rehash it:
 * `rehashPin`).
 */
export function requireRightToChange(
  context: ServiceContext,
  pin: string | undefined,
  row: StatementRow,
  organisationId: string,
): PinVerifier | undefined {
  if (row.organisationId === organisationId) return undefined;
  if (pin !== undefined && pin !== '') {
    const check = checkPin(context.serverKeys, pin, { hash: row.pinHash, keyIds: row.pinKeyIds });
    if (check.matches) return check.rehash;
  }
  throw new HttpError(
    PPSR_ERRORS.pinRequired,
    `Financing statement ${row.registrationNumber} was registered by another organisation: send its financing statement PIN in the ${HEADERS.pin} header.`,
    [{ field: HEADERS.pin, message: 'is required and must be the statement’s PIN' }],
  );
}

/**
 * Charges an operation's fee in its transaction, with the transaction's request id and billing
 * reference; the payment session the answer names is the fee record's id (null when charging is off).
 */
export async function chargeFee(
  context: ServiceContext,
  client: pg.PoolClient,
  transaction: TransactionInfo,
  charge: Pick<FeeCharge, 'operation' | 'feeCode' | 'caller' | 'object'>,
): Promise<string | null> {
  const fee = await context.fees.charge(client, {
    ...charge,
    requestId: transaction.requestId,
    ...(transaction.billingReference ? { billingReference: transaction.billingReference } : {}),
  });
  return fee ? String(fee.id) : null;
}

const VERB: Record<Change, string> = {
  Registered: 'registered',
  Amended: 'amended',
  Renewed: 'renewed',
  Discharged: 'discharged',
};

/**
 * The verification statements of a change: under a secured party group one, to the group's email (as
 * the group stands); else one to each secured party of the new version.
 */
export function verificationOf(row: StatementRow, change: Change) {
  const recipients = row.group
    ? [{ name: row.group.name, email: row.group.email }]
    : row.document.securedParties;
  return recipients.map((recipient) => ({
    registrationNumber: row.registrationNumber,
    version: row.version,
    change,
    to: recipient.email,
    subject: `Verification statement: financing statement ${row.registrationNumber} ${VERB[change]}`,
    text: [
      `Dear ${recipient.name},`,
      '',
      `Financing statement ${row.registrationNumber} was ${VERB[change]} on the secured interests register; this is version ${row.version}.`,
      `Expiry date: ${row.expiryDate}.`,
      `Debtors: ${row.document.debtors.map((d) => (d.debtorType === 'organisation' ? d.organisationName : `${d.firstName} ${d.lastName}`)).join('; ')}.`,
      `Secured parties: ${securedPartiesNow(row)
        .map((p) => p.name)
        .join('; ')}.`,
      `Collateral: ${row.document.collaterals.map((c) => COLLATERAL_TYPES[c.collateralType as CollateralType] ?? c.collateralType).join('; ')}.`,
      '',
      'If you did not expect this change, contact the registering organisation at once.',
    ].join('\n'),
  }));
}

/**
 * What every operation of the register shares: the organisation the caller acts for (and, for a
 * fee-bearing operation, pays), a statement as the API shows it, the validators of the statement and of
 * its version list, the organisation's right to change it, the fee charge and the verification
 * statements of a change.
 */
import type pg from 'pg';
import type { FeeCharge } from '../../../billing/fees.ts';
import type { Caller, ServiceContext } from '../../../gateway/service-context.ts';
import { addDays, nzDate, parseDate } from '../../../platform/calendar.ts';
import { RuleError } from '../../../platform/errors.ts';
import { PLATFORM_ERRORS } from '../../../platform/http/error-codes.ts';
import { HttpError } from '../../../platform/http/errors.ts';
import type { ResourceValidators } from '../../../platform/http/operation.ts';
import { formatNzDateTime, nzMidnight } from '../../../platform/nz-time.ts';
import { statusOn } from '../domain/dates.ts';
import { checkPin, type PinVerifier } from '../domain/pin-verifiers.ts';
import { isRegistrationNumber } from '../domain/registration-number.ts';
import { PPSR_ERRORS } from '../errors.ts';
import { HEADERS } from '../schemas.ts';
import type { Change, StatementRow } from '../store/statements.ts';
import type { TransactionInfo } from './transaction.ts';

export const today = (context: ServiceContext): string => nzDate(context.clock.now().getTime());

/** The customer organisation the caller acts for (its user's organisation in this environment). */
export async function organisationOf(context: ServiceContext, caller: Caller | undefined): Promise<string> {
  return (await context.fees.payer(caller)).organisationId;
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
    securedParties: row.document.securedParties,
    collaterals: row.document.collaterals,
  };
}

/** The statement's ETag: its registration number and version (every change makes a new version). */
export const statementEtag = (registrationNumber: string, version: number): string =>
  `"${registrationNumber}.${version}"`;

/** The statement's validators: its ETag, and the time of its current version. */
export const statementValidators = (row: StatementRow): ResourceValidators => ({
  etag: statementEtag(row.registrationNumber, row.version),
  lastModified: row.changedAt,
});

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

/** The verification statements of a change: one to each secured party of the new version. */
export function verificationOf(row: StatementRow, change: Change) {
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

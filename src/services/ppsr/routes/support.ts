/**
 * What every operation of the register shares: the organisation the caller acts for, a statement as
 * the API shows it, paging, the statement's ETag and the organisation's right to change it.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { ServiceContext } from '../../../gateway/service-context.ts';
import { nzDate } from '../../../platform/calendar.ts';
import { RuleError } from '../../../platform/errors.ts';
import { PLATFORM_ERRORS, PPSR_ERRORS } from '../../../platform/http/error-codes.ts';
import { HttpError } from '../../../platform/http/errors.ts';
import { formatNzDateTime } from '../../../platform/nz-time.ts';
import { statusOn } from '../domain/dates.ts';
import { isRegistrationNumber } from '../domain/registration-number.ts';
import type { StatementRow } from '../store/statements.ts';

/** Ours: the financing statement PIN lets another organisation change a statement (as on the website). */
export const PIN_HEADER = 'financing-statement-pin';

export const today = (context: ServiceContext): string => nzDate(context.clock.now().getTime());

/** The customer organisation the caller acts for (its user's organisation in this environment). */
export async function organisationOf(context: ServiceContext, request: FastifyRequest): Promise<string> {
  return (await context.fees.payer(request.caller)).organisationId;
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

export const pinHash = (pin: string): Buffer => createHash('sha256').update(pin).digest();

/**
 * May this organisation change the statement? The organisation that registered it may; another needs
 * the statement's PIN (header `Financing-Statement-PIN`).
 */
export function requireRightToChange(
  request: FastifyRequest,
  row: StatementRow,
  organisationId: string,
): void {
  if (row.organisationId === organisationId) return;
  const pin = request.headers[PIN_HEADER];
  if (typeof pin === 'string' && pin !== '') {
    const given = pinHash(pin);
    if (given.length === row.pinHash.length && timingSafeEqual(given, row.pinHash)) return;
  }
  throw new HttpError(
    PPSR_ERRORS.pinRequired,
    `Financing statement ${row.registrationNumber} was registered by another organisation: send its financing statement PIN in the Financing-Statement-PIN header.`,
    [{ field: 'Financing-Statement-PIN', message: 'is required and must be the statement’s PIN' }],
  );
}

/** If-Match on a change: 412 unless it names the current version (absent: no condition). */
export function checkIfMatch(request: FastifyRequest, row: StatementRow): void {
  const condition = request.headers['if-match'];
  if (condition === undefined) return;
  const current = statementEtag(row.registrationNumber, row.version);
  const tags = String(condition)
    .split(',')
    .map((t) => t.trim().replace(/^W\//, ''));
  if (tags.includes('*') || tags.includes(current)) return;
  throw new HttpError(
    PLATFORM_ERRORS.preconditionFailed,
    `If-Match does not hold: financing statement ${row.registrationNumber} is now at version ${row.version} (ETag ${current}).`,
  );
}

/** A 1-based page of at most `max` (query parameters `page` and `page-size`). */
export function pageOf(
  query: { page?: string | undefined; 'page-size'?: string | undefined },
  defaultSize: number,
  max: number,
): { page: number; pageSize: number; offset: number } {
  const whole = (value: string | undefined, field: string, fallback: number, top: number) => {
    if (value === undefined || value === '') return fallback;
    if (!/^\d{1,7}$/.test(value) || Number(value) < 1 || Number(value) > top) {
      throw new RuleError(field, `must be a whole number from 1 to ${top}`);
    }
    return Number(value);
  };
  const page = whole(query.page, 'page', 1, 1_000_000);
  const pageSize = whole(query['page-size'], 'page-size', defaultSize, max);
  return { page, pageSize, offset: (page - 1) * pageSize };
}

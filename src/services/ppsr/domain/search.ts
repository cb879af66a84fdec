/**
 * The search request (PPSR_02), checked and reduced to one criterion. Published: `searchBy`,
 * `legitimateSearchReason` (`"yes"`), `searchByMotorVehicle` `{ registrationPlate | vin }`, 1-based `page`,
 * `pageSize`, and an optional `searchId` that pages an earlier search without a second fee. Ours, by the same
 * pattern: `searchByDebtorOrganisation`, `searchByDebtorPerson`, `searchByAircraft`,
 * `searchByRegistrationNumber`, and `chassisNumber` beside `vin` and `registrationPlate`.
 *
 * Rules: a debtor organisation by name (exact, or starts-with of at least 2 characters), or by
 * incorporation number or business number (either matches); a debtor person by first and last name, the
 * date of birth narrowing; at most 300 results (published for debtor organisations; ours for every kind);
 * page size 1–100, default 20 (ours).
 */

import { parseDate } from '../../../platform/calendar.ts';
import { RuleError } from '../../../platform/errors.ts';
import { glnProblem } from '../../../platform/gs1.ts';
import { isRegistrationNumber } from './registration-number.ts';
import {
  canonicalChassis,
  canonicalPlate,
  canonicalVin,
  isChassisNumber,
  isPlate,
  isVin,
} from './vehicles.ts';

export const SEARCH_KINDS = [
  'debtorOrganisation',
  'debtorPerson',
  'motorVehicle',
  'aircraft',
  'registrationNumber',
] as const;
export type SearchKind = (typeof SEARCH_KINDS)[number];
export const MAX_RESULTS = 300;
export const MAX_PAGE_SIZE = 100;
export const DEFAULT_PAGE_SIZE = 20;

export interface SearchRequest {
  searchBy?: string;
  legitimateSearchReason?: string | boolean;
  searchId?: string;
  page?: number;
  pageSize?: number;
  searchByDebtorOrganisation?: {
    organisationName?: string;
    exactMatch?: boolean;
    incorporationNumber?: string;
    nzbn?: string;
  };
  searchByDebtorPerson?: {
    firstName?: string;
    middleNames?: string;
    lastName?: string;
    dateOfBirth?: string;
  };
  searchByMotorVehicle?: { vin?: string; chassisNumber?: string; registrationPlate?: string };
  searchByAircraft?: { serialNumber?: string };
  searchByRegistrationNumber?: { registrationNumber?: string };
}

export type SearchCriterion =
  | { kind: 'organisationName'; name: string; exact: boolean }
  | { kind: 'organisationNumber'; incorporationNumber?: string; nzbn?: string }
  | { kind: 'person'; firstName: string; lastName: string; dateOfBirth?: string }
  | { kind: 'vin'; value: string }
  | { kind: 'chassisNumber'; value: string }
  | { kind: 'registrationPlate'; value: string }
  | { kind: 'aircraftSerialNumber'; value: string }
  | { kind: 'registrationNumber'; value: string };

export interface CheckedSearch {
  searchBy: SearchKind;
  criterion: SearchCriterion;
  page: number;
  pageSize: number;
}

const present = (value: string | undefined): value is string => value !== undefined && value.trim() !== '';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The page and page size of a request (also used when a `searchId` pages an earlier search). */
export function checkPaging(request: Pick<SearchRequest, 'page' | 'pageSize'>): {
  page: number;
  pageSize: number;
} {
  const page = request.page ?? 1;
  const pageSize = request.pageSize ?? DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(page) || page < 1) throw new RuleError('page', 'must be a whole number from 1');
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > MAX_PAGE_SIZE) {
    throw new RuleError('pageSize', `must be a whole number from 1 to ${MAX_PAGE_SIZE}`);
  }
  if ((page - 1) * pageSize >= MAX_RESULTS) {
    throw new RuleError('page', `must start within the first ${MAX_RESULTS} results`);
  }
  return { page, pageSize };
}

/** A later page of an earlier search: only the search id and paging are read. */
/** A search id as given (`field`: the body's `searchId` or PPSR_40's `search-id`), lower-cased. */
export function checkSearchId(searchId: string, field = 'searchId'): string {
  if (!UUID.test(searchId)) throw new RuleError(field, 'must be the searchId of an earlier search');
  return searchId.toLowerCase();
}

function criterionOf(searchBy: SearchKind, request: SearchRequest): SearchCriterion {
  switch (searchBy) {
    case 'debtorOrganisation': {
      const body = request.searchByDebtorOrganisation;
      if (!body)
        throw new RuleError('searchByDebtorOrganisation', 'is required when searchBy is debtorOrganisation');
      const field = 'searchByDebtorOrganisation';
      if (present(body.organisationName)) {
        const name = body.organisationName.trim().replace(/\s+/g, ' ');
        if (name.length > 200)
          throw new RuleError(`${field}.organisationName`, 'must be at most 200 characters');
        const exact = body.exactMatch === true;
        if (!exact && name.length < 2) {
          throw new RuleError(
            `${field}.organisationName`,
            'must be at least 2 characters for a starts-with search',
          );
        }
        return { kind: 'organisationName', name, exact };
      }
      const criterion: SearchCriterion = { kind: 'organisationNumber' };
      if (present(body.incorporationNumber)) {
        if (!/^\d{1,10}$/.test(body.incorporationNumber)) {
          throw new RuleError(`${field}.incorporationNumber`, 'must be 1 to 10 digits');
        }
        criterion.incorporationNumber = body.incorporationNumber;
      }
      if (present(body.nzbn)) {
        const problem = glnProblem(body.nzbn);
        if (problem) throw new RuleError(`${field}.nzbn`, `is not a business number: ${problem.message}`);
        criterion.nzbn = body.nzbn;
      }
      if (!criterion.incorporationNumber && !criterion.nzbn) {
        throw new RuleError(field, 'must have organisationName, or incorporationNumber or nzbn');
      }
      return criterion;
    }
    case 'debtorPerson': {
      const body = request.searchByDebtorPerson;
      const field = 'searchByDebtorPerson';
      if (!body) throw new RuleError(field, 'is required when searchBy is debtorPerson');
      if (!present(body.firstName)) throw new RuleError(`${field}.firstName`, 'is required');
      if (!present(body.lastName)) throw new RuleError(`${field}.lastName`, 'is required');
      if (body.firstName.length > 50)
        throw new RuleError(`${field}.firstName`, 'must be at most 50 characters');
      if (body.lastName.length > 50)
        throw new RuleError(`${field}.lastName`, 'must be at most 50 characters');
      const criterion: SearchCriterion = {
        kind: 'person',
        firstName: body.firstName.trim(),
        lastName: body.lastName.trim(),
      };
      if (present(body.dateOfBirth)) {
        if (!parseDate(body.dateOfBirth))
          throw new RuleError(`${field}.dateOfBirth`, 'must be a date, YYYY-MM-DD');
        criterion.dateOfBirth = body.dateOfBirth;
      }
      return criterion;
    }
    case 'motorVehicle': {
      const body = request.searchByMotorVehicle;
      const field = 'searchByMotorVehicle';
      if (!body) throw new RuleError(field, 'is required when searchBy is motorVehicle');
      const given = [body.vin, body.chassisNumber, body.registrationPlate].filter(present).length;
      if (given !== 1)
        throw new RuleError(field, 'must have exactly one of vin, chassisNumber and registrationPlate');
      if (present(body.vin)) {
        const value = canonicalVin(body.vin);
        if (!isVin(value))
          throw new RuleError(`${field}.vin`, 'must be 17 letters and digits, without I, O or Q');
        return { kind: 'vin', value };
      }
      if (present(body.chassisNumber)) {
        const value = canonicalChassis(body.chassisNumber);
        if (!isChassisNumber(value)) {
          throw new RuleError(`${field}.chassisNumber`, 'must be 4 to 20 letters, digits and inner hyphens');
        }
        return { kind: 'chassisNumber', value };
      }
      const value = canonicalPlate(body.registrationPlate!);
      if (!isPlate(value))
        throw new RuleError(`${field}.registrationPlate`, 'must be 1 to 6 letters and digits');
      return { kind: 'registrationPlate', value };
    }
    case 'aircraft': {
      const serial = request.searchByAircraft?.serialNumber;
      if (!present(serial))
        throw new RuleError('searchByAircraft.serialNumber', 'is required when searchBy is aircraft');
      const value = serial.replace(/\s+/g, '').toUpperCase();
      if (!/^[A-Z0-9](?:[A-Z0-9-]{0,38}[A-Z0-9])?$/.test(value)) {
        throw new RuleError(
          'searchByAircraft.serialNumber',
          'must be 1 to 40 letters, digits and inner hyphens',
        );
      }
      return { kind: 'aircraftSerialNumber', value };
    }
    case 'registrationNumber': {
      const number = request.searchByRegistrationNumber?.registrationNumber;
      const field = 'searchByRegistrationNumber.registrationNumber';
      if (!present(number)) throw new RuleError(field, 'is required when searchBy is registrationNumber');
      const value = number.trim().toUpperCase();
      if (!isRegistrationNumber(value)) throw new RuleError(field, 'must be 16 letters and digits');
      return { kind: 'registrationNumber', value };
    }
  }
}

/** Checks a new search (no `searchId`) and returns its one criterion and paging. */
export function checkSearch(request: SearchRequest): CheckedSearch {
  const reason = request.legitimateSearchReason;
  if (reason !== true && (typeof reason !== 'string' || reason.trim().toLowerCase() !== 'yes')) {
    throw new RuleError('legitimateSearchReason', 'must be "yes": a search needs a legitimate reason');
  }
  const searchBy = request.searchBy;
  if (searchBy === undefined || !SEARCH_KINDS.includes(searchBy as SearchKind)) {
    throw new RuleError('searchBy', `must be one of ${SEARCH_KINDS.join(', ')}`);
  }
  const kind = searchBy as SearchKind;
  return { searchBy: kind, criterion: criterionOf(kind, request), ...checkPaging(request) };
}

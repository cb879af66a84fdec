/**
 * Debtors and secured parties of a financing statement.
 *
 * Debtors (published rules): an organisation debtor needs a business number with a valid check digit,
 * except trusts, partnerships and sole traders; the register then checks that the number exists in the
 * business number register of the same environment (the store does that, not this module). A person
 * debtor has a first and a last name and a date of birth. Secured parties receive the verification
 * statement by email, so each needs an email address (ours).
 *
 * | field (ours)                     | rule                                                              |
 * |----------------------------------|-------------------------------------------------------------------|
 * | `debtorType`                     | `organisation` or `person`                                        |
 * | `organisationName`               | required for an organisation, ≤ 200 characters                    |
 * | `organisationType`               | `COMPANY` (default), `TRUST`, `PARTNERSHIP`, `SOLE_TRADER`, `OTHER` |
 * | `nzbn`                           | 13 digits, GS1 check digit; required unless TRUST, PARTNERSHIP or SOLE_TRADER |
 * | `incorporationNumber`            | optional, 1–10 digits                                             |
 * | `firstName`, `lastName`          | required for a person, ≤ 50 characters                            |
 * | `middleNames`                    | optional, ≤ 100 characters                                        |
 * | `dateOfBirth`                    | required for a person, a real date from 1900-01-01 to today       |
 * | secured party `name`, `email`    | required; the email a verification statement goes to              |
 */

import { parseDate } from '../../../platform/calendar.ts';
import { RuleError } from '../../../platform/errors.ts';
import { glnProblem } from '../../../platform/gs1.ts';

export const ORGANISATION_TYPES = ['COMPANY', 'TRUST', 'PARTNERSHIP', 'SOLE_TRADER', 'OTHER'] as const;
export type OrganisationType = (typeof ORGANISATION_TYPES)[number];
/** Organisation debtors that have no business number to give (published). */
export const WITHOUT_BUSINESS_NUMBER: ReadonlySet<OrganisationType> = new Set([
  'TRUST',
  'PARTNERSHIP',
  'SOLE_TRADER',
]);

export interface OrganisationDebtor {
  debtorType: 'organisation';
  organisationName: string;
  organisationType?: OrganisationType | undefined;
  nzbn?: string | undefined;
  incorporationNumber?: string | undefined;
}

export interface PersonDebtor {
  debtorType: 'person';
  firstName: string;
  middleNames?: string | undefined;
  lastName: string;
  dateOfBirth: string;
}

export type Debtor = OrganisationDebtor | PersonDebtor;

export interface SecuredParty {
  name: string;
  email: string;
}

export const MAX_DEBTORS = 50;
export const MAX_SECURED_PARTIES = 20;
/** An email address as the register takes it (parties, groups, the customer organisation). */
export const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const INCORPORATION_NUMBER = /^\d{1,10}$/;

function text(value: string | undefined, field: string, max: number, required: boolean): string | undefined {
  if (value === undefined || value.trim() === '') {
    if (required) throw new RuleError(field, 'is required');
    return undefined;
  }
  const trimmed = value.trim();
  if (trimmed.length > max) throw new RuleError(field, `must be at most ${max} characters`);
  return trimmed;
}

function checkDebtor(debtor: Debtor, field: string, today: string): Debtor {
  if (debtor.debtorType === 'person') {
    const dateOfBirth = debtor.dateOfBirth;
    if (dateOfBirth === undefined || dateOfBirth === '')
      throw new RuleError(`${field}.dateOfBirth`, 'is required');
    if (!parseDate(dateOfBirth)) throw new RuleError(`${field}.dateOfBirth`, 'must be a date, YYYY-MM-DD');
    if (dateOfBirth < '1900-01-01' || dateOfBirth > today) {
      throw new RuleError(`${field}.dateOfBirth`, `must be from 1900-01-01 to today (${today})`);
    }
    const person: PersonDebtor = {
      debtorType: 'person',
      firstName: text(debtor.firstName, `${field}.firstName`, 50, true)!,
      lastName: text(debtor.lastName, `${field}.lastName`, 50, true)!,
      dateOfBirth,
    };
    const middleNames = text(debtor.middleNames, `${field}.middleNames`, 100, false);
    if (middleNames !== undefined) person.middleNames = middleNames;
    return person;
  }
  if (debtor.debtorType !== 'organisation') {
    throw new RuleError(`${field}.debtorType`, 'must be organisation or person');
  }
  const organisationType = debtor.organisationType ?? 'COMPANY';
  if (!ORGANISATION_TYPES.includes(organisationType)) {
    throw new RuleError(`${field}.organisationType`, `must be one of ${ORGANISATION_TYPES.join(', ')}`);
  }
  const organisation: OrganisationDebtor = {
    debtorType: 'organisation',
    organisationName: text(debtor.organisationName, `${field}.organisationName`, 200, true)!,
    organisationType,
  };
  if (debtor.nzbn === undefined || debtor.nzbn === '') {
    if (!WITHOUT_BUSINESS_NUMBER.has(organisationType)) {
      throw new RuleError(
        `${field}.nzbn`,
        `is required unless organisationType is TRUST, PARTNERSHIP or SOLE_TRADER`,
      );
    }
  } else {
    const problem = glnProblem(debtor.nzbn);
    if (problem) throw new RuleError(`${field}.nzbn`, `is not a business number: ${problem.message}`);
    organisation.nzbn = debtor.nzbn;
  }
  if (debtor.incorporationNumber !== undefined && debtor.incorporationNumber !== '') {
    if (!INCORPORATION_NUMBER.test(debtor.incorporationNumber)) {
      throw new RuleError(`${field}.incorporationNumber`, 'must be 1 to 10 digits');
    }
    organisation.incorporationNumber = debtor.incorporationNumber;
  }
  return organisation;
}

/** Checks the debtors of a registration or amendment (`today` is the New Zealand date) and tidies them. */
export function checkDebtors(debtors: readonly Debtor[], today: string): Debtor[] {
  if (debtors.length === 0) throw new RuleError('debtors', 'must have at least one debtor');
  if (debtors.length > MAX_DEBTORS)
    throw new RuleError('debtors', `must have at most ${MAX_DEBTORS} debtors`);
  return debtors.map((debtor, i) => checkDebtor(debtor, `debtors.${i}`, today));
}

export function checkSecuredParties(parties: readonly SecuredParty[]): SecuredParty[] {
  if (parties.length === 0) throw new RuleError('securedParties', 'must have at least one secured party');
  if (parties.length > MAX_SECURED_PARTIES) {
    throw new RuleError('securedParties', `must have at most ${MAX_SECURED_PARTIES} secured parties`);
  }
  return parties.map((party, i) => {
    const field = `securedParties.${i}`;
    const email = text(party.email, `${field}.email`, 254, true)!;
    if (!EMAIL.test(email)) throw new RuleError(`${field}.email`, 'must be an email address');
    return { name: text(party.name, `${field}.name`, 200, true)!, email };
  });
}

/** The business numbers a registration names, to check against the business number register. */
export const businessNumbersOf = (debtors: readonly Debtor[]): string[] =>
  debtors.flatMap((d) => (d.debtorType === 'organisation' && d.nzbn ? [d.nzbn] : []));

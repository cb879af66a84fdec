/**
 * Rules of the replace operations and status requests: which status changes an entity may ask for,
 * which change event a role change records, and the ABN's form. Pure.
 *
 * Status requests (POST /entities/{nzbn}/entity-statuses) are ours to define: entities whose record
 * the business number register keeps itself (sourceRegister `NZBN`: sole traders, partnerships, trusts
 * and public sector entities) may move between Registered (50) and Inactive (90), and from either to
 * Removed/Closed (91), which is final. Other entities' statuses follow their source register (400).
 */
import { ENTITY_STATUSES, ENTITY_TYPES, type EntityStatusCode } from './codes.ts';
import { isValidAbn } from './identifiers.ts';
import type { Entity } from './schema.ts';

const REQUESTABLE: readonly EntityStatusCode[] = ['50', '90', '91'];

const fold = (text: string) => text.toLowerCase().replace(/[^a-z0-9]/g, '');
/** Other names of a requestable status: the search filter's `RemovedClosed`, and plain `Closed`. */
const OTHER_NAMES: ReadonlyMap<string, EntityStatusCode> = new Map([
  ['closed', '91'],
  ['removedclosed', '91'],
]);

/**
 * Reads a requested status given as a code (`90`) or a name: its description (`Inactive`,
 * `Removed/Closed`) in any case and punctuation, or `Closed`/`RemovedClosed` for 91.
 */
export function readRequestedStatus(value: string): EntityStatusCode | undefined {
  const wanted = fold(value);
  if (wanted === '') return undefined;
  return (
    REQUESTABLE.find((code) => code === wanted || fold(ENTITY_STATUSES[code].description) === wanted) ??
    OTHER_NAMES.get(wanted)
  );
}

/** Why the entity may not move to `target`; null when it may. */
export function statusChangeProblem(entity: Entity, target: EntityStatusCode): string | null {
  const type = ENTITY_TYPES[entity.entityTypeCode];
  if (type.sourceRegister !== 'NZBN') {
    return `the status of a ${type.description} follows its source register and cannot be requested here`;
  }
  if (entity.entityStatusCode === target) return 'the entity already has this status';
  if (entity.entityStatusCode === '91') return 'a closed entity cannot change status';
  return null;
}

export const REQUESTABLE_STATUS_RULE = 'must be 50 (Registered), 90 (Inactive) or 91 (Removed/Closed)';

/** The change event a change to a role records (a director's is published; the others are ours). */
export function roleChangeEventType(roleType: string): string {
  switch (roleType) {
    case 'Director':
      return 'ROLES_DIRECTOR';
    case 'Shareholder':
      return 'ROLES_SHAREHOLDER';
    case 'Partner':
    case 'General Partner':
    case 'Limited Partner':
      return 'ROLES_PARTNER';
    case 'Trustee':
      return 'ROLES_TRUSTEE';
    default:
      return 'ROLES_OTHER';
  }
}

/** Why a text is not an Australian Business Number; null when it is one. */
export function abnProblem(digits: string): string | null {
  if (!/^\d{11}$/.test(digits)) return 'not 11 digits';
  return isValidAbn(digits) ? null : 'wrong check digits (ATO modulus 89)';
}

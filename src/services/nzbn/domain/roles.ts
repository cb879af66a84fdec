/**
 * An entity's roles: `appointRole` (POST /entities/{nzbn}/roles) adds one, `updateRole` (PUT
 * /entities/{nzbn}/roles/{id}) changes one in place (INACTIVE with an end date ends it; an ended role
 * stays listed), and `replaceRoles` replaces the whole list (a registration's roles and the sandbox's
 * simulated activity): a role given with the uniqueIdentifier of an existing role updates it, one
 * without is appointed, and an active role left out ends (INACTIVE, with an end date) and stays listed,
 * as ended roles are. Each returns the new list and every role that changed, whole, for the change
 * events. Pure: identifiers come from `newId`.
 *
 * A role sent ACTIVE with an endDate is refused (an active role has none; INACTIVE ends it), and a
 * roleEntity's business number must be a valid GLN (13 digits, GS1 check digit), as every other is.
 */
import { RuleError } from '../../../platform/errors.ts';
import { glnProblem } from '../../../platform/gs1.ts';
import { parseNzDateTime } from '../../../platform/nz-time.ts';
import { type AddressLike, addressItem, readDate } from './items.ts';
import type { Role } from './schema.ts';

export interface RoleLike {
  uniqueIdentifier?: string;
  roleType: string;
  roleStatus?: 'ACTIVE' | 'INACTIVE';
  startDate?: string;
  endDate?: string | null;
  rolePerson?: {
    title?: string | null;
    firstName: string;
    middleNames?: string | null;
    lastName: string;
  } | null;
  roleEntity?: { nzbn?: string | null; entityName: string } | null;
  roleAddress?: AddressLike[];
}

/** Identifiers a replacement needs at most: one per new role and one per address given. */
export function identifiersNeeded(inputs: readonly RoleLike[]): number {
  return inputs.reduce(
    (n, input) => n + (input.uniqueIdentifier ? 0 : 1) + (input.roleAddress?.length ?? 0),
    0,
  );
}

/** A new role (any `uniqueIdentifier` given is the register's to set, so it is not read). */
export function appointRole(
  current: readonly Role[],
  input: RoleLike,
  now: string,
  newId: () => string,
): { roles: Role[]; changed: Role[] } {
  const { uniqueIdentifier: _ignored, ...given } = input;
  if (!given.rolePerson && !given.roleEntity) {
    throw new RuleError('rolePerson', 'a role needs a rolePerson or a roleEntity');
  }
  const role = buildRole(given, undefined, now, newId, '');
  return { roles: [...current, role], changed: [role] };
}

/**
 * The role `id` as `input` describes it, in its place in the list; undefined when the entity has no
 * such role. The path names the role: a `uniqueIdentifier` in the body is not read.
 */
export function updateRole(
  current: readonly Role[],
  id: string,
  input: RoleLike,
  now: string,
  newId: () => string,
): { roles: Role[]; changed: Role[] } | undefined {
  const existing = current.find((role) => role.uniqueIdentifier === id);
  if (!existing) return undefined;
  // Neither holder named: the role keeps its own.
  const given =
    input.rolePerson === undefined && input.roleEntity === undefined
      ? { ...input, rolePerson: existing.rolePerson, roleEntity: existing.roleEntity }
      : input;
  if (!given.rolePerson && !given.roleEntity) {
    throw new RuleError('rolePerson', 'a role needs a rolePerson or a roleEntity');
  }
  const role = buildRole(given, existing, now, newId, '');
  const roles = current.map((one) => (one === existing ? role : one));
  return { roles, changed: JSON.stringify(role) === JSON.stringify(existing) ? [] : [role] };
}

export function replaceRoles(
  current: readonly Role[],
  inputs: readonly RoleLike[],
  now: string,
  newId: () => string,
): { roles: Role[]; changed: Role[] } {
  const byId = new Map(current.map((role) => [role.uniqueIdentifier, role]));
  const mentioned = new Set<string>();
  const given = inputs.map((input, i) => {
    const at = `${i}.`;
    const existing = input.uniqueIdentifier ? byId.get(input.uniqueIdentifier) : undefined;
    if (input.uniqueIdentifier && !existing) {
      throw new RuleError(`${at}uniqueIdentifier`, 'no role of this entity has this identifier');
    }
    if (existing) {
      if (mentioned.has(existing.uniqueIdentifier)) {
        throw new RuleError(`${at}uniqueIdentifier`, 'is given twice');
      }
      mentioned.add(existing.uniqueIdentifier);
    }
    if (!input.rolePerson && !input.roleEntity) {
      throw new RuleError(`${at}rolePerson`, 'a role needs a rolePerson or a roleEntity');
    }
    return buildRole(input, existing, now, newId, at);
  });
  const ended = current
    .filter((role) => !mentioned.has(role.uniqueIdentifier))
    .map((role) =>
      role.roleStatus === 'ACTIVE' ? { ...role, roleStatus: 'INACTIVE' as const, endDate: now } : role,
    );
  const before = new Map(current.map((role) => [role.uniqueIdentifier, JSON.stringify(role)]));
  const roles = [...ended, ...given];
  const changed = roles.filter((role) => before.get(role.uniqueIdentifier) !== JSON.stringify(role));
  return { roles, changed };
}

function buildRole(
  input: RoleLike,
  existing: Role | undefined,
  now: string,
  newId: () => string,
  at: string,
): Role {
  if (input.roleStatus === 'ACTIVE' && input.endDate !== undefined && input.endDate !== null) {
    throw new RuleError(`${at}endDate`, 'an ACTIVE role has no endDate; send roleStatus INACTIVE to end it');
  }
  const entityNzbn = input.roleEntity?.nzbn;
  if (entityNzbn !== undefined && entityNzbn !== null) {
    const problem = glnProblem(entityNzbn);
    if (problem) throw new RuleError(`${at}roleEntity.nzbn`, problem.message);
  }
  const startDate = readDate(input.startDate, existing?.startDate ?? now, `${at}startDate`);
  const endDate =
    input.endDate === undefined
      ? (existing?.endDate ?? null)
      : input.endDate === null
        ? null
        : readDate(input.endDate, now, `${at}endDate`);
  const roleStatus = input.roleStatus ?? (endDate === null ? 'ACTIVE' : 'INACTIVE');
  if (roleStatus === 'INACTIVE' && endDate === null) {
    return buildRole({ ...input, endDate: now }, existing, now, newId, at);
  }
  if (endDate !== null && parseNzDateTime(endDate)! < parseNzDateTime(startDate)!)
    throw new RuleError(`${at}endDate`, 'is before startDate');
  const person = input.rolePerson;
  return {
    uniqueIdentifier: existing?.uniqueIdentifier ?? newId(),
    roleType: input.roleType,
    roleStatus,
    startDate,
    endDate: roleStatus === 'ACTIVE' ? null : endDate,
    rolePerson: person
      ? {
          title: person.title ?? null,
          firstName: person.firstName,
          middleNames: person.middleNames ?? null,
          lastName: person.lastName,
        }
      : null,
    roleEntity: input.roleEntity
      ? { nzbn: input.roleEntity.nzbn ?? null, entityName: input.roleEntity.entityName }
      : null,
    roleAddress: input.roleAddress
      ? input.roleAddress.map((address, j) =>
          addressItem(address, { id: newId(), now: startDate, at: `${at}roleAddress.${j}.` }),
        )
      : (existing?.roleAddress ?? []),
    roleAsicAddress: existing?.roleAsicAddress ?? null,
    asicDirectorshipYn: existing?.asicDirectorshipYn ?? false,
    asicName: existing?.asicName ?? null,
    acn: existing?.acn ?? null,
  };
}

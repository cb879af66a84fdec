/**
 * The changes `updateEntity` applies, shared by the API's update operations (routes/pbd-lists.ts,
 * routes/pbd-replace.ts) and the sandbox's simulated register activity (sandbox/activity.ts): a
 * simulated change writes exactly what the same change through the API writes — the item, the ended
 * periods for the history and the change event. Each returns the `Change` for `updateEntity`; a
 * broken rule is a RuleError and nothing is written.
 */

import { RuleError } from '../../../platform/errors.ts';
import { parseNzDateTime } from '../../../platform/nz-time.ts';
import { roleChangeEventType } from '../domain/changes.ts';
import { ENTITY_STATUSES, type EntityStatusCode, isCompanyType } from '../domain/codes.ts';
import {
  currentHibernation,
  type EntityNamePeriod,
  NO_STATUS_NOTE,
  type StatusNote,
  type StatusPeriod,
  statusPeriods,
} from '../domain/history.ts';
import { type AddressLike, addressItem, readDate } from '../domain/items.ts';
import { isPrivateAddress, isPrivateRole } from '../domain/privacy.ts';
import { appointRole, identifiersNeeded, type RoleLike, replaceRoles, updateRole } from '../domain/roles.ts';
import type { Address, Entity, Role } from '../domain/schema.ts';
import { historyItems, keepStatusNote, statusNoteOf } from './entities.ts';
import type { Change, EndedItem, UpdateTools } from './update.ts';

/**
 * Adds an address to the record. One of a type the entity already has replaces it: the old one ends
 * (its `endDate` is the new one's start) and is returned for the address history.
 */
export function addAddress(entity: Entity, item: Address): { ended: EndedItem[]; isPrivate: boolean } {
  const list = entity.addresses.addressList;
  const replaced = list.filter((a) => a.addressType === item.addressType && a.endDate === null);
  entity.addresses.addressList = [...list.filter((a) => !replaced.includes(a)), item];
  const ended = replaced.map((old) => ({
    kind: 'addresses',
    item: { ...old, endDate: item.startDate },
    startDate: old.startDate,
    endDate: item.startDate,
  }));
  return { ended, isPrivate: isPrivateAddress(entity.privacySettings, item) };
}

/** POST /entities/{nzbn}/addresses: a new address (replacing one of its type), event `ADDRESS`. */
export async function addressChange(
  entity: Entity,
  input: AddressLike,
  tools: UpdateTools,
): Promise<Change<Address>> {
  const item = addressItem(input, { id: await tools.nextItemId(), now: tools.stamp });
  const { ended, isPrivate } = addAddress(entity, item);
  return { result: item, events: [{ changeEventType: 'ADDRESS', newValue: item, isPrivate }], ended };
}

/**
 * DELETE /entities/{nzbn}/addresses/{id}: the address ends now and goes to the address history; event
 * `ADDRESS` with the address as it ended. Undefined when the entity has no address `id`. A company keeps
 * its registered address and its address for service (the Companies Act asks for both): a new one of
 * the type replaces them (POST addresses), none removes them.
 */
export function addressRemoval(entity: Entity, id: string, tools: UpdateTools): Change<Address> | undefined {
  const list = entity.addresses.addressList;
  const found = list.find((address) => address.uniqueIdentifier === id);
  if (!found) return undefined;
  if (isCompanyType(entity.entityTypeCode) && KEPT_BY_COMPANIES.has(found.addressType ?? '')) {
    throw new RuleError(
      'id',
      `is the company’s ${found.addressType} address: a company keeps one (POST an address of the type to replace it)`,
    );
  }
  const item = { ...found, endDate: tools.stamp };
  entity.addresses.addressList = list.filter((address) => address !== found);
  return {
    result: item,
    events: [
      {
        changeEventType: 'ADDRESS',
        newValue: item,
        isPrivate: isPrivateAddress(entity.privacySettings, found),
      },
    ],
    ended: [{ kind: 'addresses', item, startDate: found.startDate, endDate: tools.stamp }],
  };
}
const KEPT_BY_COMPANIES: ReadonlySet<string> = new Set(['REGISTERED', 'SERVICE']);

/**
 * PUT /entities/{nzbn}/roles: the whole list (domain/roles.ts); one event per changed role with the
 * whole role after the change (a director's is `ROLES_DIRECTOR`).
 */
export async function rolesChange(
  entity: Entity,
  inputs: readonly RoleLike[],
  tools: UpdateTools,
): Promise<Change<Role[]>> {
  const ids: string[] = [];
  for (let i = identifiersNeeded(inputs); i > 0; i--) ids.push(await tools.nextItemId());
  const { roles, changed } = replaceRoles(entity.roles, inputs, tools.stamp, () => ids.shift()!);
  return { result: roles, events: applyRoles(entity, roles, changed) };
}

/** The entity's new roles; one change event per changed role, whole. */
function applyRoles(entity: Entity, roles: Role[], changed: readonly Role[]) {
  entity.roles = roles;
  return changed.map((role) => ({
    changeEventType: roleChangeEventType(role.roleType),
    newValue: role,
    isPrivate: isPrivateRole(entity.privacySettings, role),
  }));
}

/** Identifiers for one role's change: the role's own and one per address given. */
async function roleIdentifiers(input: RoleLike, tools: UpdateTools): Promise<() => string> {
  const ids: string[] = [];
  for (let i = 1 + (input.roleAddress?.length ?? 0); i > 0; i--) {
    ids.push(await tools.nextItemId());
  }
  return () => ids.shift()!;
}

/** POST /entities/{nzbn}/roles: one new role (domain/roles.ts), its change event with the whole role. */
export async function roleAppointment(
  entity: Entity,
  input: RoleLike,
  tools: UpdateTools,
): Promise<Change<Role>> {
  const { roles, changed } = appointRole(
    entity.roles,
    input,
    tools.stamp,
    await roleIdentifiers(input, tools),
  );
  return { result: changed[0]!, events: applyRoles(entity, roles, changed) };
}

/**
 * PUT /entities/{nzbn}/roles/{id}: the role as the body describes it (INACTIVE ends it); undefined when
 * the entity has no role `id`. A role that does not change records no event.
 */
export async function roleUpdate(
  entity: Entity,
  id: string,
  input: RoleLike,
  tools: UpdateTools,
): Promise<Change<Role> | undefined> {
  const updated = updateRole(entity.roles, id, input, tools.stamp, await roleIdentifiers(input, tools));
  if (!updated) return undefined;
  const role = updated.roles.find((one) => one.uniqueIdentifier === id)!;
  return { result: role, events: applyRoles(entity, updated.roles, updated.changed) };
}

/**
 * Moves the entity to `target` from `startDate` (default now; not in the future, not before the
 * present status began), with the reason code and comment the request gives (`note`). The ended period
 * goes to the status history with its own reason and comment (a generated entity's derived history
 * becomes stored with its first change); one that closes or goes inactive stops hibernating; event `ENTITY_STATUS` with the new period, in the published
 * EntityStatus shape. Which moves are allowed is the caller's rule (the API's: domain/changes.ts
 * `statusChangeProblem`).
 */
export async function statusChange(
  entity: Entity,
  target: EntityStatusCode,
  startDate: string | undefined,
  tools: UpdateTools,
  note: StatusNote = NO_STATUS_NOTE,
): Promise<Change<StatusPeriod>> {
  const effective = readDate(startDate, tools.stamp, 'startDate');
  const records = await historyItems(tools.client, entity.nzbn, 'entity-statuses');
  const periods = statusPeriods(entity, records, await statusNoteOf(tools.client, entity.nzbn));
  const current = periods.at(-1)!;
  const at = parseNzDateTime(effective)!;
  if (at > tools.now.getTime()) throw new RuleError('startDate', 'must not be in the future');
  if (current.startDate && at < parseNzDateTime(current.startDate)!) {
    throw new RuleError('startDate', `must not be before the present status began (${current.startDate})`);
  }
  // A derived history (seeded entities) becomes stored history with its first real change.
  const ended = (records.length === 0 ? periods : [current]).map((period) =>
    period === current ? { ...period, endDate: effective } : period,
  );
  entity.entityStatusCode = target;
  entity.entityStatusDescription = ENTITY_STATUSES[target].description;
  const hibernation = await endHibernation(entity, target, effective, tools);
  await keepStatusNote(tools.client, entity.nzbn, note);
  const value = statusPeriods(
    entity,
    [{ kind: 'entity-statuses', item: { ...current, endDate: effective } }],
    note,
  ).at(-1)!;
  return {
    result: value,
    events: [{ changeEventType: 'ENTITY_STATUS', newValue: value, isPrivate: false }],
    ended: [
      ...ended.map((period) => ({
        kind: 'entity-statuses',
        item: period,
        startDate: period.startDate,
        endDate: period.endDate ?? effective,
      })),
      ...hibernation,
    ],
  };
}

/**
 * An entity that closes or goes inactive stops hibernating (only a live business hibernates): its
 * hibernation period ends when the status does and goes to the hibernation history.
 */
async function endHibernation(
  entity: Entity,
  target: EntityStatusCode,
  effective: string,
  tools: UpdateTools,
): Promise<EndedItem[]> {
  const filters: readonly string[] = ENTITY_STATUSES[target].filters;
  if (!filters.some((filter) => filter === 'RemovedClosed' || filter === 'Inactive')) return [];
  const records = await historyItems(tools.client, entity.nzbn, 'hibernation-statuses');
  const current = currentHibernation(entity, records);
  entity.hibernationStatusCode = null;
  entity.hibernationStatusDescription = null;
  if (!current) return [];
  return [
    {
      kind: 'hibernation-statuses',
      item: { ...current, endDate: effective },
      startDate: current.startDate,
      endDate: effective,
    },
  ];
}

/**
 * A new entity name from now (the source register's change; the API has no operation for it). The
 * old name ends and goes to the name history, search keeps finding the entity by it, and the event
 * `ENTITY_NAME` carries the new name's period.
 */
export async function entityNameChange(
  entity: Entity,
  name: string,
  tools: UpdateTools,
): Promise<Change<EntityNamePeriod>> {
  const entityName = name.trim();
  if (entityName === '') throw new RuleError('entityName', 'must not be blank');
  if (entityName === entity.entityName) throw new RuleError('entityName', 'is the present name');
  const names = await historyItems(tools.client, entity.nzbn, 'entity-names');
  const startDate = (names.at(-1)?.item as EntityNamePeriod | undefined)?.endDate ?? entity.registrationDate;
  const old: EntityNamePeriod = { entityName: entity.entityName, startDate, endDate: tools.stamp };
  entity.entityName = entityName;
  const value: EntityNamePeriod = { entityName, startDate: tools.stamp, endDate: null };
  return {
    result: value,
    events: [{ changeEventType: 'ENTITY_NAME', newValue: value, isPrivate: false }],
    ended: [{ kind: 'entity-names', item: old, startDate, endDate: tools.stamp }],
    previousNames: [old.entityName],
  };
}

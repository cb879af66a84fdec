/**
 * The shape every Primary Business Data update shares, and the replace operations and the status
 * request: a valid business number, a signed-in user with business authority (the gateway has already
 * required a user's token), the caller's preconditions checked against the locked row, the change
 * applied in one transaction (store/update.ts: the new version, the ended history periods and the
 * change events), and the new version's validators for the answer.
 */
import type { Caller } from '../../../gateway/service-context.ts';
import { RuleError } from '../../../platform/errors.ts';
import { badRequest, HttpError } from '../../../platform/http/errors.ts';
import type { Preconditions, ResourceValidators } from '../../../platform/http/operation.ts';
import {
  abnProblem,
  REQUESTABLE_STATUS_RULE,
  readRequestedStatus,
  statusChangeProblem,
} from '../domain/changes.ts';
import type { Entity, PrivacySettings, Role } from '../domain/schema.ts';
import type * as Input from '../schemas/inputs.ts';
import { roleAppointment, roleUpdate, statusChange } from '../store/edits.ts';
import type { StoredEntity } from '../store/entities.ts';
import { type Change, type UpdateTools, updateEntity } from '../store/update.ts';
import {
  entityNotFound,
  loadEntity,
  type NzbnContext,
  nzbnParam,
  requireAuthority,
  roleNotFound,
  viewEtag,
} from './support.ts';

/** Who writes to which entity, and the preconditions the write holds against it. */
export interface EntityWrite {
  caller: Caller | undefined;
  nzbn: string;
  preconditions: Preconditions;
}

/** An update's answer: its result and the new version's validators. */
export interface EntityUpdate<T> {
  result: T;
  validators: ResourceValidators;
}

/**
 * The preconditions against the stored version. An ETag of either view of the current version
 * matches (a client may have read the entity before it signed in): the authorised view's first, then,
 * for an entity that hides items, the public view's.
 */
function checkPreconditions(preconditions: Preconditions, stored: StoredEntity): void {
  const lastModified = stored.lastUpdated;
  try {
    preconditions({ etag: viewEtag(stored, true), lastModified });
  } catch (error) {
    if (!(stored.hidesItems && error instanceof HttpError && error.status === 412)) throw error;
    preconditions({ etag: viewEtag(stored, false), lastModified });
  }
}

/** Applies `change` to the entity for a caller with business authority over it. */
export async function updateFor<T>(
  context: NzbnContext,
  write: EntityWrite,
  change: (entity: Entity, tools: UpdateTools) => Promise<Change<T>> | Change<T>,
): Promise<EntityUpdate<T>> {
  const nzbn = nzbnParam(write.nzbn);
  // A missing entity is 404 (the published answer) before anyone's authority over it is asked.
  await loadEntity(context, nzbn);
  await requireAuthority(context, write.caller, nzbn);
  const updated = await updateEntity(
    context.database.pool,
    context.documents,
    nzbn,
    context.clock.now(),
    (stored) => checkPreconditions(write.preconditions, stored),
    change,
  );
  if (!updated) throw entityNotFound(nzbn);
  // The authorised view's validators: the caller acts for the entity.
  const stored = updated.stored;
  return {
    result: updated.result,
    validators: { etag: viewEtag(stored, true), lastModified: stored.lastUpdated },
  };
}

/** PUT privacy-settings: flags not given keep their value. */
export async function changePrivacySettings(
  context: NzbnContext,
  input: EntityWrite & { settings: Input.PrivacyInput },
): Promise<EntityUpdate<PrivacySettings>> {
  return updateFor(context, input, (entity) => {
    entity.privacySettings = { ...entity.privacySettings, ...input.settings };
    const settings = entity.privacySettings;
    return {
      result: settings,
      events: [{ changeEventType: 'PRIVACYSETTINGS', newValue: settings, isPrivate: false }],
    };
  });
}

/** POST roles: appoints one role (domain/roles.ts); its change event carries the whole role. */
export async function appointRole(
  context: NzbnContext,
  input: EntityWrite & { role: Input.RoleInput },
): Promise<EntityUpdate<Role>> {
  return updateFor(context, input, (entity, tools) => roleAppointment(entity, input.role, tools));
}

/** PUT roles/{id}: the role as the body describes it; 404 when the entity has no such role. */
export async function changeRole(
  context: NzbnContext,
  input: EntityWrite & { roleId: string; role: Input.RoleInput },
): Promise<EntityUpdate<Role>> {
  return updateFor(context, input, async (entity, tools) => {
    const changed = await roleUpdate(entity, input.roleId, input.role, tools);
    if (!changed) throw roleNotFound(input.roleId);
    return changed;
  });
}

/** The published answer of an ABN update: the entity and its Australian Business Number. */
export interface AbnAnswer {
  nzbn: string;
  entityName: string;
  australianBusinessNumber: string | null;
}

/**
 * POST action-update-australian-business-numbers: set (the ATO check) or clear (null or blank).
 */
export async function setAustralianBusinessNumber(
  context: NzbnContext,
  input: EntityWrite & { australianBusinessNumber: string | null },
): Promise<EntityUpdate<AbnAnswer>> {
  const given = input.australianBusinessNumber;
  const abn = given === null || given.trim() === '' ? null : given.replace(/\s/g, '');
  const problem = abn === null ? null : abnProblem(abn);
  if (problem) throw badRequest('australianBusinessNumber', problem);
  return updateFor(context, input, (entity) => {
    entity.australianBusinessNumber = abn;
    const value = { australianBusinessNumber: abn };
    const isPrivate = entity.privacySettings.abnPrivateInformation;
    return {
      result: { nzbn: entity.nzbn, entityName: entity.entityName, australianBusinessNumber: abn },
      events: [{ changeEventType: 'AUSTRALIANBUSINESSNUMBER', newValue: value, isPrivate }],
    };
  });
}

/** What a status request gives (the published EntityStatus; the register sets the rest). */
export interface StatusRequestInput {
  entityStatusCode: string;
  startDate?: string | undefined;
  statusReasonCode?: string | null | undefined;
  comment?: string | null | undefined;
}

/** POST statuses: a status change the register allows for entities it keeps itself. */
export async function requestStatus(context: NzbnContext, input: EntityWrite & StatusRequestInput) {
  const target = readRequestedStatus(input.entityStatusCode);
  if (!target) throw badRequest('entityStatusCode', REQUESTABLE_STATUS_RULE);
  const note = {
    statusReasonCode: input.statusReasonCode?.trim() || null,
    comment: input.comment?.trim() || null,
  };
  return updateFor(context, input, (entity, tools) => {
    const problem = statusChangeProblem(entity, target);
    if (problem) throw new RuleError('entityStatusCode', problem);
    return statusChange(entity, target, input.startDate, tools, note);
  });
}

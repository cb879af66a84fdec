/**
 * Organisation parts (physical, functional or digital locations of a business, each numbered with a
 * GLN). Writes need business authority over the parent entity: number allocation, create (the fee for a
 * part beyond the entity's second is charged through `context.fees` in the same transaction: in
 * production refused, and nothing written, without an approved direct debit authority) and replace
 * (held against the part as it stands). Each write records an ORGANISATIONPART change event, marked
 * private unless the part is public. Reads apply the visibility rule (domain/organisation-part.ts): a
 * part the caller may not see is answered exactly as a missing one.
 */
import type { Caller } from '../../../gateway/service-context.ts';
import { strongEtag } from '../../../platform/http/conditional.ts';
import { badRequest } from '../../../platform/http/errors.ts';
import type { Preconditions, ResourceValidators } from '../../../platform/http/operation.ts';
import { formatNzDateTime } from '../../../platform/nz-time.ts';
import {
  type OrganisationPart,
  partViewFor,
  partVisibleTo,
  readStatus,
} from '../domain/organisation-part.ts';
import { buildPart, type PartLike, partIdentifiers } from '../domain/organisation-part-build.ts';
import { nextItemId, recordChange } from '../store/changes.ts';
import {
  allocateOpn,
  findPart,
  insertPart,
  isAllocatedTo,
  partsOf,
  replacePart,
  searchParts,
  withEntityLocked,
} from '../store/org-parts.ts';
import {
  baseUrl,
  entitiesCallerActsFor,
  entityNotFound,
  latestOf,
  loadEntity,
  type NzbnContext,
  nzbnParam,
  partNotFound,
  requireAuthority,
} from './support.ts';

/** A part's JSON as sent, with its validators. */
export interface PartAnswer {
  body: string;
  validators: ResourceValidators;
}

const event = (part: OrganisationPart, entityTypeCode: string, now: Date) => ({
  nzbn: part.parentNzbn,
  entityName: part.parentNzbnName,
  entityTypeCode,
  changeEventType: 'ORGANISATIONPART',
  changeDate: now,
  newValue: part,
  isPrivate: part.privacy !== 'public',
});

type Client = Parameters<typeof findPart>[0];

/** A part hangs under its entity (the default) or under another part of the same entity. */
async function checkParentGln(client: Client, parentGln: string | undefined, nzbn: string, self?: string) {
  if (parentGln === undefined || parentGln === nzbn) return;
  const parent = parentGln === self ? undefined : await findPart(client, parentGln);
  if (!parent || parent.part.parentNzbn !== nzbn) {
    throw badRequest('parentGln', 'must be the entity itself or another organisation part of the entity');
  }
}

/** New sub-item identifiers for the part's addresses, phones and emails. */
async function identifiersFor(
  client: Parameters<typeof nextItemId>[0],
  input: PartLike,
): Promise<() => string> {
  const ids: string[] = [];
  for (let i = partIdentifiers(input); i > 0; i--) ids.push(await nextItemId(client));
  return () => ids.shift()!;
}

/** Reserves a new organisation part number for the entity. */
export async function allocatePartNumber(
  context: NzbnContext,
  input: { caller: Caller | undefined; nzbn: string },
): Promise<{ opn: string; nzbn: string; allocatedDate: string }> {
  const nzbn = nzbnParam(input.nzbn);
  await requireAuthority(context, input.caller, nzbn);
  const now = context.clock.now();
  const opn = await withEntityLocked(context.database.pool, nzbn, (client) => allocateOpn(client, nzbn, now));
  if (!opn) throw entityNotFound(nzbn);
  return { opn, nzbn, allocatedDate: formatNzDateTime(now.getTime()) };
}

/** Creates a part (with an allocated number, or a new one), charging its fee when one applies. */
export async function createPart(
  context: NzbnContext,
  input: { caller: Caller | undefined; requestId?: string | undefined; nzbn: string; part: PartLike },
): Promise<PartAnswer & { opn: string; location: string }> {
  const nzbn = nzbnParam(input.nzbn);
  await requireAuthority(context, input.caller, nzbn);
  const now = context.clock.now();
  const given = input.part;
  const created = await withEntityLocked(context.database.pool, nzbn, async (client, parent) => {
    if (given.opn !== undefined) {
      nzbnParam(given.opn, 'opn');
      if (!(await isAllocatedTo(client, given.opn, nzbn))) {
        throw badRequest(
          'opn',
          'was not allocated to this entity, or is in use (GET …/organisation-parts/allocation)',
        );
      }
    }
    await checkParentGln(client, given.parentGln, nzbn);
    const opn = given.opn ?? (await allocateOpn(client, nzbn, now));
    const newId = await identifiersFor(client, given);
    const part = buildPart(given, { opn, parent, now: formatNzDateTime(now.getTime()), newId });
    const { etag, fee } = await insertPart(client, part, now);
    if (fee) {
      await context.fees.charge(client, {
        operation: 'createOrganisationPart',
        feeCode: fee,
        caller: input.caller,
        requestId: input.requestId,
        object: { kind: 'organisation-part', id: opn },
      });
    }
    await recordChange(client, event(part, parent.entityTypeCode, now));
    return { part, etag };
  });
  if (!created) throw entityNotFound(nzbn);
  const opn = created.part.opn;
  return {
    opn,
    body: JSON.stringify(created.part),
    validators: { etag: `"${created.etag}"`, lastModified: now },
    location: `${baseUrl(context)}/entities/${nzbn}/organisation-parts/${opn}`,
  };
}

/** Replaces a part, held against the part as it stands; its number cannot change. */
export async function replaceOrganisationPart(
  context: NzbnContext,
  input: {
    caller: Caller | undefined;
    nzbn: string;
    opn: string;
    part: PartLike;
    preconditions: Preconditions;
  },
): Promise<PartAnswer> {
  const nzbn = nzbnParam(input.nzbn);
  const opn = nzbnParam(input.opn, 'opn');
  await requireAuthority(context, input.caller, nzbn);
  const now = context.clock.now();
  const given = input.part;
  const updated = await withEntityLocked(context.database.pool, nzbn, async (client, parent) => {
    const found = await findPart(client, opn, true);
    if (!found || found.part.parentNzbn !== nzbn) throw partNotFound(opn);
    input.preconditions({ etag: `"${found.etag}"`, lastModified: found.lastUpdated });
    if (given.opn !== undefined && given.opn !== opn) throw badRequest('opn', 'cannot change');
    await checkParentGln(client, given.parentGln, nzbn, opn);
    const newId = await identifiersFor(client, given);
    const setting = { opn, parent, now: formatNzDateTime(now.getTime()), newId, existing: found.part };
    const part = buildPart(given, setting);
    const saved = await replacePart(client, part, found.version, now);
    await recordChange(client, event(part, parent.entityTypeCode, now));
    return saved;
  });
  if (!updated) throw entityNotFound(nzbn);
  return { body: JSON.stringify(updated.part), validators: { etag: `"${updated.etag}"`, lastModified: now } };
}

export interface PartSearch {
  nzbn?: string | undefined;
  opn?: string | undefined;
  name?: string | undefined;
  function?: string | undefined;
  status?: string | undefined;
}

const gln = (value: string | undefined, field: string) =>
  value === undefined ? undefined : nzbnParam(value, field);

/** Searches the parts the caller may see: one page and the number of matches. */
export async function searchOrganisationParts(
  context: NzbnContext,
  input: { caller: Caller | undefined; search: PartSearch; page: { pageSize: number; offset: number } },
): Promise<{ total: number; items: OrganisationPart[] }> {
  const { search, page } = input;
  const status = search.status === undefined ? undefined : readStatus(search.status);
  if (search.status !== undefined && !status) throw badRequest('status', 'must be Active or Inactive');
  const mine = await entitiesCallerActsFor(context, input.caller);
  const found = await searchParts(
    context.database.pool,
    {
      nzbn: gln(search.nzbn, 'nzbn'),
      opn: gln(search.opn, 'opn'),
      name: search.name,
      function: search.function,
      status,
    },
    [...mine],
    { limit: page.pageSize, offset: page.offset },
  );
  return { total: found.total, items: found.parts.map((part) => partViewFor(part, mine)) };
}

/**
 * An entity's parts as the caller sees them, with the validators of that view: the ETag of the list
 * as sent, the Last-Modified of the entity and the parts it shows.
 */
export async function entityParts(
  context: NzbnContext,
  input: { caller: Caller | undefined; nzbn: string },
): Promise<PartAnswer> {
  const stored = await loadEntity(context, input.nzbn);
  const mine = await entitiesCallerActsFor(context, input.caller);
  const visible = (await partsOf(context.database.pool, stored.nzbn)).filter(({ part }) =>
    partVisibleTo(part, mine),
  );
  const body = JSON.stringify(visible.map(({ part }) => partViewFor(part, mine)));
  return {
    body,
    validators: { etag: strongEtag(body), lastModified: latestOf(stored.lastUpdated, visible) },
  };
}

/** One part, when the caller may see it. */
export async function organisationPart(
  context: NzbnContext,
  input: { caller: Caller | undefined; nzbn: string; opn: string },
): Promise<PartAnswer> {
  const nzbn = nzbnParam(input.nzbn);
  const opn = nzbnParam(input.opn, 'opn');
  const found = await findPart(context.database.pool, opn);
  const mine = await entitiesCallerActsFor(context, input.caller);
  if (!found || found.part.parentNzbn !== nzbn || !partVisibleTo(found.part, mine)) throw partNotFound(opn);
  const body = JSON.stringify(partViewFor(found.part, mine));
  return { body, validators: { etag: strongEtag(body), lastModified: found.lastUpdated } };
}

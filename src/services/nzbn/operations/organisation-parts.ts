/**
 * Organisation parts (physical, functional or digital locations of a business, each numbered with a
 * GLN). The allocation summary and the writes need business authority over the parent entity: create
 * (a new number, once per request id; a part beyond the entity's second is a purchase, its fee charged
 * through `context.fees` in the same transaction: operations/org-part-purchases.ts) and replace (held
 * against the part as it stands). Each write records an ORGANISATIONPART change event, marked private
 * unless the part is public. Reads apply the visibility rule (domain/organisation-part.ts, approved
 * access requests included): a part the caller may not see is answered exactly as a missing one.
 */
import type { Caller } from '../../../gateway/service-context.ts';
import { strongEtag } from '../../../platform/http/conditional.ts';
import { badRequest } from '../../../platform/http/errors.ts';
import type { ResourceValidators } from '../../../platform/http/operation.ts';
import { formatNzDateTime } from '../../../platform/nz-time.ts';
import { FREE_ORGANISATION_PARTS } from '../domain/fees.ts';
import {
  ORGANISATION_PART_FUNCTIONS,
  ORGANISATION_PART_PURPOSES,
  ORGANISATION_PART_STATUSES,
  type OrganisationPart,
  partViewFor,
  partVisibleTo,
  publishedValue,
} from '../domain/organisation-part.ts';
import { buildPart, type PartLike, partIdentifiers } from '../domain/organisation-part-build.ts';
import { type PurchaserDetailsInput, purchaserOf } from '../domain/organisation-part-purchase.ts';
import { nextItemId, recordChange } from '../store/changes.ts';
import {
  allocateOpn,
  findPart,
  insertPart,
  partNumbersOf,
  partsOf,
  searchParts,
} from '../store/org-parts.ts';
import { changePart, type PartWrite, partChangeEvent } from './org-part-change.ts';
import { createPartOnce, madeValidators, type PartCreation, purchaseUrl } from './org-part-purchases.ts';
import {
  baseUrl,
  entitiesCallerActsFor,
  latestOf,
  loadEntity,
  type NzbnContext,
  nzbnParam,
  partNotFound,
  partSeenSince,
  partsSeenBy,
  partViewerOf,
  requireAuthority,
} from './support.ts';

/** A part's JSON as sent, with its validators. */
export interface PartAnswer {
  body: string;
  validators: ResourceValidators;
}

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

/**
 * The published GlnAllocationSummary: the part numbers the entity holds, and how many more it may have
 * without a fee (domain/fees.ts); with the entity's and its parts' validators.
 */
export async function partAllocation(
  context: NzbnContext,
  input: { caller: Caller | undefined; nzbn: string },
): Promise<PartAnswer> {
  const nzbn = nzbnParam(input.nzbn);
  const stored = await loadEntity(context, nzbn);
  await requireAuthority(context, input.caller, nzbn);
  const pool = context.database.pool;
  const [held, parts] = await Promise.all([partNumbersOf(pool, nzbn), partsOf(pool, nzbn)]);
  const body = JSON.stringify({
    nzbnGlnsAllocated: held,
    nzbnGlnsRemaining: Math.max(0, FREE_ORGANISATION_PARTS - held),
  });
  return { body, validators: { etag: strongEtag(body), lastModified: latestOf(stored.lastUpdated, parts) } };
}

/**
 * Creates a part with a new number (a number in the body is the register's to give, so it is not read),
 * once per request id, as a purchase when a fee applies (operations/org-part-purchases.ts).
 */
export async function createPart(
  context: NzbnContext,
  input: Omit<PartCreation, 'purchaser'> & {
    part: PartLike;
    purchaserDetails?: PurchaserDetailsInput | undefined;
  },
): Promise<PartAnswer & { opn: string; location: string; purchase: string | undefined }> {
  const nzbn = nzbnParam(input.nzbn);
  // A missing entity is 404 (the published answer) before anyone's authority over it is asked.
  await loadEntity(context, nzbn);
  await requireAuthority(context, input.caller, nzbn);
  const given = input.part;
  const purchaser = input.purchaserDetails && purchaserOf(input.purchaserDetails);
  const made = await createPartOnce(context, { ...input, nzbn, purchaser }, async (client, parent, now) => {
    await checkParentGln(client, given.parentGln ?? undefined, nzbn);
    const opn = await allocateOpn(client, nzbn, now);
    const newId = await identifiersFor(client, given);
    const part = buildPart(given, { opn, parent, now: formatNzDateTime(now.getTime()), newId });
    const { etag } = await insertPart(client, part, now);
    await recordChange(client, partChangeEvent(part, parent.entityTypeCode, now));
    return { part, etag };
  });
  return {
    opn: made.opn,
    body: made.body,
    validators: madeValidators(made),
    location: `${baseUrl(context)}/entities/${nzbn}/organisation-parts/${made.opn}`,
    purchase: made.purchaseId === null ? undefined : purchaseUrl(context, made.purchaseId),
  };
}

/** Replaces a part, held against the part as it stands; its number cannot change. */
export async function replaceOrganisationPart(
  context: NzbnContext,
  input: PartWrite & { part: PartLike },
): Promise<PartAnswer> {
  const given = input.part;
  const replaced = await changePart(context, input, async ({ client, found, parent, nowText }) => {
    const opn = found.part.opn;
    if (given.opn && given.opn !== opn) throw badRequest('opn', 'cannot change');
    await checkParentGln(client, given.parentGln ?? undefined, parent.nzbn, opn);
    const newId = await identifiersFor(client, given);
    const setting = { opn, parent, now: nowText, newId, existing: found.part };
    return { part: buildPart(given, setting), result: undefined };
  });
  return { body: JSON.stringify(replaced.part), validators: replaced.validators };
}

/** The published search parameters of organisation parts. */
export interface PartSearch {
  'search-term': string;
  function?: string | undefined;
  'parent-nzbn'?: string | undefined;
  'parent-nzbn-name'?: string | undefined;
  'parent-gln'?: readonly string[] | undefined;
  purpose?: readonly string[] | undefined;
  'organisation-part-status'?: string | undefined;
}

const split = (values: readonly string[] | undefined): string[] | undefined => {
  const all = (values ?? []).flatMap((value) => value.split(',')).map((value) => value.trim());
  const given = all.filter(Boolean);
  return given.length > 0 ? given : undefined;
};

/** A published value of a search parameter, in any case; 400 naming the parameter otherwise. */
function searchValue<T extends string>(value: string, allowed: readonly T[], field: string): T {
  const found = publishedValue(value, allowed);
  if (!found) throw badRequest(field, `must be one of ${allowed.join(', ')}`);
  return found;
}

/** Searches the parts the caller may see: one page and the number of matches. */
export async function searchOrganisationParts(
  context: NzbnContext,
  input: { caller: Caller | undefined; search: PartSearch; page: { pageSize: number; offset: number } },
): Promise<{ total: number; items: OrganisationPart[] }> {
  const { search, page } = input;
  const searchTerm = search['search-term'].trim();
  if (searchTerm === '') throw badRequest('search-term', 'must not be blank');
  const status = search['organisation-part-status'];
  const fn = search.function;
  const parentNzbn = search['parent-nzbn'];
  const mine = await entitiesCallerActsFor(context, input.caller);
  const found = await searchParts(
    context.database.pool,
    {
      searchTerm,
      function: fn === undefined ? undefined : searchValue(fn, ORGANISATION_PART_FUNCTIONS, 'function'),
      parentNzbn: parentNzbn === undefined ? undefined : nzbnParam(parentNzbn, 'parent-nzbn'),
      parentNzbnName: search['parent-nzbn-name']?.trim() || undefined,
      parentGlns: split(search['parent-gln'])?.map((gln) => nzbnParam(gln, 'parent-gln')),
      purposes: split(search.purpose)?.map((purpose) =>
        searchValue(purpose, ORGANISATION_PART_PURPOSES, 'purpose'),
      ),
      status:
        status === undefined
          ? undefined
          : searchValue(status, ORGANISATION_PART_STATUSES, 'organisation-part-status'),
    },
    [...mine],
    { limit: page.pageSize, offset: page.offset },
  );
  return { total: found.total, items: found.parts.map((part) => partViewFor(part, mine)) };
}

/**
 * One page of an entity's parts as the caller sees them (by number), the number it sees, and the
 * validators of that page: the ETag of its items as sent, the Last-Modified of the entity and the parts
 * it shows.
 */
export async function entityParts(
  context: NzbnContext,
  input: { caller: Caller | undefined; nzbn: string; page: { pageSize: number; offset: number } },
): Promise<{ total: number; items: OrganisationPart[]; validators: ResourceValidators }> {
  const stored = await loadEntity(context, input.nzbn);
  const { parts: visible, mine } = await partsSeenBy(context, input.caller, stored.nzbn);
  const shown = visible.slice(input.page.offset, input.page.offset + input.page.pageSize);
  const items = shown.map(({ part }) => partViewFor(part, mine));
  return {
    total: visible.length,
    items,
    validators: {
      etag: strongEtag(JSON.stringify([visible.length, items])),
      lastModified: latestOf(stored.lastUpdated, visible),
    },
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
  const { mine, granted } = await partViewerOf(context, input.caller);
  const visible = found?.part.parentNzbn === nzbn && partVisibleTo(found.part, mine, granted);
  if (!found || !visible) throw partNotFound(opn);
  const body = JSON.stringify(partViewFor(found.part, mine));
  return { body, validators: { etag: strongEtag(body), lastModified: partSeenSince(found, granted) } };
}

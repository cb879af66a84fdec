/**
 * What every change of an existing organisation part shares — a replace of the whole part and the
 * changes of one of its items or of its share list: a valid business number and part number, the
 * entity found (404) before the caller's business authority over it is asked (403), then in one
 * transaction holding the entity's row lock the part found (404 when the entity has no such part) and
 * locked, the caller's preconditions held against the part as its owner reads it (GET
 * …/organisation-parts/{opn}: 412 and nothing written when stale), the new part stored and its
 * ORGANISATIONPART change event recorded, private unless the part is public.
 */
import type { Caller } from '../../../gateway/service-context.ts';
import { strongEtag } from '../../../platform/http/conditional.ts';
import type { Preconditions, ResourceValidators } from '../../../platform/http/operation.ts';
import { formatNzDateTime } from '../../../platform/nz-time.ts';
import type { OrganisationPart } from '../domain/organisation-part.ts';
import { nextItemId, recordChange } from '../store/changes.ts';
import { findPart, replacePart, type StoredPart, withEntityLocked } from '../store/org-parts.ts';
import {
  entityNotFound,
  loadEntity,
  type NzbnContext,
  nzbnParam,
  partNotFound,
  requireAuthority,
} from './support.ts';

/** The change event of a part's creation or change: the part after it, private unless public. */
export const partChangeEvent = (part: OrganisationPart, entityTypeCode: string, now: Date) => ({
  nzbn: part.parentNzbn,
  entityName: part.parentNzbnName,
  entityTypeCode,
  changeEventType: 'ORGANISATIONPART',
  changeDate: now,
  newValue: part,
  isPrivate: part.privacy !== 'PUBLIC',
});

/** Who changes which part, and the preconditions the change holds against it. */
export interface PartWrite {
  caller: Caller | undefined;
  nzbn: string;
  opn: string;
  preconditions: Preconditions;
}

type Client = Parameters<typeof replacePart>[0];

/** What a change is given: the part as it stands, its entity, the time, and new item identifiers. */
export interface PartChangeTools {
  client: Client;
  found: StoredPart;
  parent: { nzbn: string; entityName: string; entityTypeCode: string };
  now: Date;
  /** `now` as the register writes dates. */
  nowText: string;
  /** A new register-wide item identifier (taken only when asked for). */
  newId: () => Promise<string>;
}

/** A change's outcome: the part after it (stored) and what the operation answers. */
export interface PartChanged<T> {
  part: OrganisationPart;
  result: T;
}

/** Applies `change` to the part; answers its result and the new part's validators. */
export async function changePart<T>(
  context: NzbnContext,
  write: PartWrite,
  change: (tools: PartChangeTools) => Promise<PartChanged<T>> | PartChanged<T>,
): Promise<{ result: T; part: OrganisationPart; validators: ResourceValidators }> {
  const nzbn = nzbnParam(write.nzbn);
  const opn = nzbnParam(write.opn, 'opn');
  // A missing entity is 404 (the published answer) before anyone's authority over it is asked.
  await loadEntity(context, nzbn);
  await requireAuthority(context, write.caller, nzbn);
  const now = context.clock.now();
  const changed = await withEntityLocked(context.database.pool, nzbn, async (client, parent) => {
    const found = await findPart(client, opn, true);
    if (!found || found.part.parentNzbn !== nzbn) throw partNotFound(opn);
    // The ETag its owner read: the hash of the part as sent (GET …/organisation-parts/{opn}).
    write.preconditions({ etag: strongEtag(JSON.stringify(found.part)), lastModified: found.lastUpdated });
    const tools: PartChangeTools = {
      client,
      found,
      parent,
      now,
      nowText: formatNzDateTime(now.getTime()),
      newId: () => nextItemId(client),
    };
    const { part, result } = await change(tools);
    const saved = await replacePart(client, part, found.version, now);
    await recordChange(client, partChangeEvent(part, parent.entityTypeCode, now));
    return { saved, result };
  });
  if (!changed) throw entityNotFound(nzbn);
  const { saved, result } = changed;
  return { result, part: saved.part, validators: { etag: `"${saved.etag}"`, lastModified: now } };
}

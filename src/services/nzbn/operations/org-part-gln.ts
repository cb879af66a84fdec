/**
 * The published lookup by GLN (OP002, GlobalLocationNumber): the entity a GS1 Global Location Number
 * belongs to — the entity's own business number, or the number of one of its organisation parts — with
 * the organisation parts it identifies, as the caller may see them. For the entity's number, every part
 * of the entity the caller sees; for a part's number, that part and the parts under it (their
 * `parentGln` leads to it), those the caller sees. A part the caller may not see is answered as a number
 * nobody holds (404), so the lookup tells nothing of private parts.
 */
import type { Caller } from '../../../gateway/service-context.ts';
import { HttpError } from '../../../platform/http/errors.ts';
import { type OrganisationPart, partViewFor } from '../domain/organisation-part.ts';
import { NZBN_ERRORS } from '../errors.ts';
import { findPart, type StoredPart } from '../store/org-parts.ts';
import { discoverableOf, type ReadAnswer, readAnswer } from './entities.ts';
import {
  actsFor,
  entityView,
  latestOf,
  loadEntity,
  type NzbnContext,
  nzbnParam,
  partsSeenBy,
} from './support.ts';

const glnNotFound = (gln: string): HttpError =>
  new HttpError(NZBN_ERRORS.notFound, `Object Not Found: no entity or organisation part has the GLN ${gln}`);

/** The parts under `root` (itself first), by `parentGln`, of those given. */
function partsUnder(root: string, parts: readonly StoredPart[]): StoredPart[] {
  const found = new Set([root]);
  let grown = true;
  while (grown) {
    grown = false;
    for (const { part } of parts) {
      if (!found.has(part.opn) && found.has(part.parentGln)) {
        found.add(part.opn);
        grown = true;
      }
    }
  }
  return parts.filter(({ part }) => found.has(part.opn));
}

/** The published GlobalLocationNumber of `gln`, as the caller may see it, with its validators. */
export async function entityByGln(
  context: NzbnContext,
  input: { caller: Caller | undefined; gln: string },
): Promise<ReadAnswer> {
  const gln = nzbnParam(input.gln, 'gln');
  const named = await findPart(context.database.pool, gln);
  const nzbn = named ? named.part.parentNzbn : gln;
  const stored = await loadEntity(context, nzbn).catch((error: unknown) => {
    throw error instanceof HttpError && error.status === 404 ? glnNotFound(gln) : error;
  });
  const { parts: seen, mine } = await partsSeenBy(context, input.caller, nzbn);
  if (named && !seen.some(({ part }) => part.opn === gln)) throw glnNotFound(gln);
  const parts = named ? partsUnder(gln, seen) : seen;
  const entity = entityView(stored, await actsFor(context, input.caller, nzbn));
  const {
    'non-company-details': _nonCompany,
    hibernationStatusCode: _code,
    hibernationStatusDescription: _description,
    ...shared
  } = discoverableOf(context, entity, seen.length > 0);
  const organisationParts: OrganisationPart[] = parts.map(({ part }) => partViewFor(part, mine));
  return readAnswer({ ...shared, organisationParts }, latestOf(stored.lastUpdated, parts));
}

/**
 * NZBN_044_1 `DELETE /entities/{nzbn}/addresses/{id}`: an address of the entity ends (it goes to the
 * address history), as every other change of Primary Business Data is made (`updateFor`: business
 * authority, the caller's If-Match or If-Unmodified-Since against the locked row — 412 and nothing
 * written when stale —, the new version and an `ADDRESS` change event the watchlists and the change
 * search see, in one transaction). No such address is 404, as published.
 */
import { HttpError } from '../../../platform/http/errors.ts';
import type { Address } from '../domain/schema.ts';
import { NZBN_ERRORS } from '../errors.ts';
import { addressRemoval } from '../store/edits.ts';
import { type EntityUpdate, type EntityWrite, updateFor } from './entity-updates.ts';
import type { NzbnContext } from './support.ts';

const addressNotFound = (id: string): HttpError =>
  new HttpError(NZBN_ERRORS.notFound, `Object Not Found: the entity has no address ${id}`);

export async function removeAddress(
  context: NzbnContext,
  input: EntityWrite & { addressId: string },
): Promise<EntityUpdate<Address>> {
  return updateFor(context, input, (entity, tools) => {
    const removed = addressRemoval(entity, input.addressId, tools);
    if (!removed) throw addressNotFound(input.addressId);
    return removed;
  });
}

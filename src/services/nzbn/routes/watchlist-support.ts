/**
 * What the watchlist operations (watchlists.ts) share: who owns a watchlist (the call's organisation,
 * else its subscription), the published 404, the business numbers a body lists checked against the
 * register, and the two representations of a watchlist with their validators.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { glnProblem } from '../../../platform/gs1.ts';
import { strongEtag } from '../../../platform/http/conditional.ts';
import { NZBN_ERRORS } from '../../../platform/http/error-codes.ts';
import { badRequest, HttpError } from '../../../platform/http/errors.ts';
import { formatNzDateTime } from '../../../platform/nz-time.ts';
import { PUBLIC_SECTOR_TYPE_CODES } from '../domain/codes.ts';
import { baseUrl, link, type NzbnContext } from '../operations/support.ts';
import { entityTypesOf, type StoredWatchlist } from '../store/watchlists.ts';

interface Owner {
  key: string;
  userId: string | null;
  organisationId: string | null;
}

export function ownerOf(request: FastifyRequest): Owner {
  const caller = request.caller;
  if (!caller) throw new HttpError(NZBN_ERRORS.unauthorized, 'Unauthorized: no subscription');
  const organisationId = caller.organisationId ?? null;
  return {
    key: organisationId ? `org:${organisationId}` : `sub:${caller.subscriptionId}`,
    userId: caller.userId ?? caller.subscriberId,
    organisationId,
  };
}

export const notFound = (id: string): HttpError =>
  new HttpError(NZBN_ERRORS.notFound, `Object Not Found: no watchlist has the id ${id}`);

/** Checks business numbers' form and that the register holds them; 400 naming the others. */
export async function checkedNzbns(context: NzbnContext, values: readonly string[]): Promise<string[]> {
  const nzbns = [...new Set(values.map((value) => value.trim()))];
  for (const nzbn of nzbns) {
    const problem = glnProblem(nzbn);
    if (problem) throw badRequest('nzbns', `"${nzbn}": ${problem.message}`);
  }
  const types = await entityTypesOf(context.database.pool, nzbns);
  const unknown = nzbns.filter((nzbn) => !types.has(nzbn)).sort();
  if (unknown.length > 0) throw badRequest('nzbns', `unknown business number "${unknown.join('", "')}"`);
  const publicSector = nzbns.filter((nzbn) => PUBLIC_SECTOR_TYPE_CODES.has(types.get(nzbn)!)).sort();
  if (publicSector.length > 0) {
    throw badRequest(
      'nzbns',
      `"${publicSector.join('", "')}": public sector entities cannot be watched (they have no source register, so no change feed)`,
    );
  }
  return nzbns;
}

export function view(context: NzbnContext, watchlist: StoredWatchlist) {
  const self = `${baseUrl(context)}/watchlists/${watchlist.id}`;
  return {
    watchlistId: watchlist.id,
    name: watchlist.name,
    userId: watchlist.userId,
    fromDate: formatNzDateTime(watchlist.fromDate.getTime()),
    toDate: watchlist.toDate ? formatNzDateTime(watchlist.toDate.getTime()) : null,
    organisationId: watchlist.organisationId,
    channel: watchlist.channel,
    frequency: watchlist.frequency,
    wildcard: watchlist.wildcard,
    changeEventTypes: watchlist.changeEventTypes,
    pushEndpoint: watchlist.pushEndpoint,
    authorizationToken: watchlist.authorizationToken,
    adminEmailAddress: watchlist.adminEmailAddress,
    watchlistEmailAddresses: watchlist.watchlistEmailAddresses,
    lastSuccessfulChangeNoticeId: watchlist.lastSuccessfulChangeNoticeId,
    suspended: watchlist.suspended,
    links: [
      link('self', self, ['GET', 'PUT', 'DELETE']),
      link('nzbns', `${self}/nzbns`, ['GET', 'POST', 'DELETE']),
    ],
    nzbns: watchlist.nzbns,
  };
}

/**
 * The two representations a watchlist has, each with its validators: the watchlist itself
 * (`/watchlists/{id}`) and its business numbers (`…/nzbns`). The ETag is made from the bytes sent; the
 * watchlist's `updated_at` (moved by every change of either, deliveries included) is the Last-Modified.
 */
export function represented(body: unknown, watchlist: StoredWatchlist) {
  const text = JSON.stringify(body);
  return { text, validators: { etag: strongEtag(text), lastModified: watchlist.updatedAt } };
}

export const sendJson = (reply: FastifyReply, text: string) =>
  reply.type('application/json; charset=utf-8').send(text);

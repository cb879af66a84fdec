/**
 * Watchlists: GET/POST /watchlists, GET/PUT/DELETE /watchlists/{watchlistId} and
 * GET/POST/DELETE /watchlists/{watchlistId}/nzbns (body `{"nzbns": [...]}`), with the field names of
 * the published watchlist model. A watchlist belongs to the caller's organisation (the call's
 * organisation) or, without one, to the caller's subscription; anyone else gets the same 404 as for a
 * missing watchlist.
 *
 * The merge rule (how a POST or PUT body is applied over the stored watchlist, and the rules every
 * watchlist keeps: channels, frequencies, wildcards, push endpoints, resumption) is
 * ../domain/watchlist.ts; the schemas are ../schemas/watchlists.ts. PUT changes the fields it is given.
 * The Standard Webhooks secret (`webhookSecret`) is in the answer to POST /watchlists only.
 *
 * Delivery (notification records, the retry schedule, suspension, resumption and end-dating) runs in
 * the background jobs (../jobs/). A watchlist end-dated after a month of suspension keeps its
 * `toDate` (the end date) and `suspended: true`, and cannot be resumed (400).
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { glnProblem } from '../../../platform/gs1.ts';
import { NZBN_ERRORS } from '../../../platform/http/error-codes.ts';
import { badRequest, HttpError } from '../../../platform/http/errors.ts';
import { formatNzDateTime } from '../../../platform/nz-time.ts';
import { PUBLIC_SECTOR_TYPE_CODES } from '../domain/codes.ts';
import { changeTypes, mergeWatchlist } from '../domain/watchlist.ts';
import { newWebhookSecret } from '../domain/webhook-signing.ts';
import { envelope, PAGE_SIZE_DEFAULT, responses } from '../schemas/operations.ts';
import {
  CreatedWatchlist,
  IdParams,
  ListQuery,
  NzbnList,
  NzbnsBody,
  Watchlist,
  WatchlistCreate,
  WatchlistUpdate,
} from '../schemas/watchlists.ts';
import {
  addNzbns,
  createWatchlist,
  deleteWatchlist,
  entityTypesOf,
  findWatchlist,
  listWatchlists,
  removeNzbns,
  type StoredWatchlist,
  updateWatchlist,
} from '../store/watchlists.ts';
import { baseUrl, choice, link, type NzbnContext, pageLinks } from './support.ts';

const WATCHLIST_SORT = ['name', 'fromDate', 'watchlistId'] as const;

interface Owner {
  key: string;
  userId: string | null;
  organisationId: string | null;
}

function ownerOf(request: FastifyRequest): Owner {
  const caller = request.caller;
  if (!caller) throw new HttpError(NZBN_ERRORS.unauthorized, 'Unauthorized: no subscription');
  const organisationId = caller.organisationId ?? null;
  return {
    key: organisationId ? `org:${organisationId}` : `sub:${caller.subscriptionId}`,
    userId: caller.userId ?? caller.subscriberId,
    organisationId,
  };
}

const notFound = (id: string): HttpError =>
  new HttpError(NZBN_ERRORS.notFound, `Object Not Found: no watchlist has the id ${id}`);

/** Checks business numbers' form and that the register holds them; 400 naming the others. */
async function checkedNzbns(context: NzbnContext, values: readonly string[]): Promise<string[]> {
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

function view(context: NzbnContext, watchlist: StoredWatchlist) {
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

export async function watchlistRoutes(app: FastifyInstance, context: NzbnContext): Promise<void> {
  const pool = context.database.pool;
  const load = async (request: FastifyRequest, id: string) => {
    const found = await findWatchlist(pool, ownerOf(request).key, id);
    if (!found) throw notFound(id);
    return found;
  };

  app.get<{ Querystring: ListQuery }>(
    '/watchlists',
    {
      schema: {
        summary: 'List the caller’s watchlists',
        querystring: ListQuery,
        response: responses({ 200: envelope(Watchlist) }, [400]),
      },
    },
    async (request) => {
      const query = request.query;
      const owner = ownerOf(request);
      const sortBy = choice(query['sort-by'] ?? 'name', WATCHLIST_SORT);
      if (!sortBy) throw badRequest('sort-by', `must be one of ${WATCHLIST_SORT.join(', ')}`);
      const sortOrder = (query.sortorder ?? 'ASC').toUpperCase();
      if (sortOrder !== 'ASC' && sortOrder !== 'DESC') throw badRequest('sortorder', 'must be ASC or DESC');
      const types = query['change-event-types']?.flatMap((value) => value.split(','));
      const page = query.page ?? 0;
      const pageSize = query['page-size'] ?? PAGE_SIZE_DEFAULT;
      // Only the caller's own organisation has watchlists the caller may see.
      const other =
        query['organisation-id'] !== undefined && query['organisation-id'] !== owner.organisationId;
      const found = other
        ? { total: 0, watchlists: [] }
        : await listWatchlists(pool, owner.key, {
            name: query.name,
            changeEventTypes: types ? changeTypes(types, 'change-event-types') : undefined,
            sortBy,
            descending: sortOrder === 'DESC',
            limit: pageSize,
            offset: page * pageSize,
          });
      const links = pageLinks(
        `${baseUrl(context)}/watchlists`,
        query,
        ['name', 'organisation-id', 'change-event-types', 'sort-by', 'sortorder'],
        { page, pageSize, total: found.total },
      );
      return {
        pageSize,
        page,
        totalItems: found.total,
        sortBy,
        sortOrder,
        items: found.watchlists.map((watchlist) => view(context, watchlist)),
        links,
      };
    },
  );

  app.post<{ Body: WatchlistCreate }>(
    '/watchlists',
    {
      schema: {
        summary: 'Create a watchlist (the answer shows its webhook secret, once)',
        body: WatchlistCreate,
        response: responses({ 201: CreatedWatchlist }, [400]),
      },
    },
    async (request, reply) => {
      const owner = ownerOf(request);
      const now = context.clock.now();
      const fields = mergeWatchlist(request.body, null, now);
      const nzbns = await checkedNzbns(context, request.body.nzbns ?? []);
      if (nzbns.length === 0 && fields.wildcard === null) {
        throw badRequest('nzbns', 'list at least one business number, or set a wildcard (ALL or NEW)');
      }
      const secret = newWebhookSecret();
      const id = await createWatchlist(pool, owner, fields, nzbns, secret, now);
      const created = await load(request, id);
      reply.code(201).header('location', `${baseUrl(context)}/watchlists/${id}`);
      return { ...view(context, created), webhookSecret: secret };
    },
  );

  app.get<{ Params: IdParams }>(
    '/watchlists/:watchlistId',
    { schema: { summary: 'View a watchlist', params: IdParams, response: responses({ 200: Watchlist }) } },
    async (request) => view(context, await load(request, request.params.watchlistId)),
  );

  app.put<{ Params: IdParams; Body: WatchlistUpdate }>(
    '/watchlists/:watchlistId',
    {
      schema: {
        summary: 'Update a watchlist (suspended: false resumes delivery)',
        params: IdParams,
        body: WatchlistUpdate,
        response: responses({ 200: Watchlist }),
      },
    },
    async (request) => {
      const { watchlistId } = request.params;
      const current = await load(request, watchlistId);
      const now = context.clock.now();
      const fields = mergeWatchlist(request.body, current, now);
      if (!(await updateWatchlist(pool, ownerOf(request).key, watchlistId, fields, now)))
        throw notFound(watchlistId);
      return view(context, await load(request, watchlistId));
    },
  );

  app.delete<{ Params: IdParams }>(
    '/watchlists/:watchlistId',
    {
      schema: { summary: 'Delete a watchlist', params: IdParams, response: responses({ 204: Type.Null() }) },
    },
    async (request, reply) => {
      const { watchlistId } = request.params;
      if (!(await deleteWatchlist(pool, ownerOf(request).key, watchlistId))) throw notFound(watchlistId);
      return reply.code(204).send();
    },
  );

  app.get<{ Params: IdParams }>(
    '/watchlists/:watchlistId/nzbns',
    {
      schema: {
        summary: 'The watchlist’s business numbers',
        params: IdParams,
        response: responses({ 200: NzbnList }),
      },
    },
    async (request) => ({ nzbns: (await load(request, request.params.watchlistId)).nzbns }),
  );

  app.post<{ Params: IdParams; Body: NzbnsBody }>(
    '/watchlists/:watchlistId/nzbns',
    {
      schema: {
        summary: 'Add business numbers to a watchlist',
        params: IdParams,
        body: NzbnsBody,
        response: responses({ 200: NzbnList }),
      },
    },
    async (request) => {
      const { watchlistId } = request.params;
      await load(request, watchlistId);
      await addNzbns(pool, watchlistId, await checkedNzbns(context, request.body.nzbns), context.clock.now());
      return { nzbns: (await load(request, watchlistId)).nzbns };
    },
  );

  app.delete<{ Params: IdParams; Body: NzbnsBody }>(
    '/watchlists/:watchlistId/nzbns',
    {
      schema: {
        summary: 'Remove business numbers from a watchlist',
        params: IdParams,
        body: NzbnsBody,
        response: responses({ 200: NzbnList }),
      },
    },
    async (request) => {
      const { watchlistId } = request.params;
      await load(request, watchlistId);
      await removeNzbns(pool, watchlistId, [...new Set(request.body.nzbns.map((nzbn) => nzbn.trim()))]);
      return { nzbns: (await load(request, watchlistId)).nzbns };
    },
  );
}

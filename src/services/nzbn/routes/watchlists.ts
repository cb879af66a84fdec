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
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { setValidators } from '../../../platform/http/conditional.ts';
import { badRequest } from '../../../platform/http/errors.ts';
import {
  conditionalRead,
  conditionalWrite,
  type ResourceValidators,
  typed,
} from '../../../platform/http/operation.ts';
import { changeTypes, mergeWatchlist } from '../domain/watchlist.ts';
import { newWebhookSecret } from '../domain/webhook-signing.ts';
import { baseUrl, choice, type NzbnContext } from '../operations/support.ts';
import { envelope, NotModified, responses } from '../schemas/operations.ts';
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
  changeNzbns,
  createWatchlist,
  deleteWatchlist,
  findWatchlist,
  listWatchlists,
  type StoredWatchlist,
  updateWatchlist,
} from '../store/watchlists.ts';
import { nzbnOperation } from './operation.ts';
import { pagedEnvelope, pageOf } from './paging.ts';
import { checkedNzbns, notFound, ownerOf, represented, sendJson, view } from './watchlist-support.ts';

const WATCHLIST_SORT = ['name', 'fromDate', 'watchlistId'] as const;

export async function watchlistRoutes(app: FastifyInstance, context: NzbnContext): Promise<void> {
  const pool = context.database.pool;
  const api = typed(app);
  const load = async (request: FastifyRequest, id: string) => {
    const found = await findWatchlist(pool, ownerOf(request).key, id);
    if (!found) throw notFound(id);
    return found;
  };
  const whole = (watchlist: StoredWatchlist) => represented(view(context, watchlist), watchlist);
  const numbers = (watchlist: StoredWatchlist) => represented({ nzbns: watchlist.nzbns }, watchlist);
  /** A write's preconditions against one representation of the locked watchlist. */
  const against =
    (request: FastifyRequest, of: (watchlist: StoredWatchlist) => { validators: ResourceValidators }) =>
    (current: StoredWatchlist) =>
      conditionalWrite(request, of(current).validators);
  /** A write's answer: the representation as it now stands, with its validators. */
  const answer = (reply: FastifyReply, shown: { text: string; validators: ResourceValidators }) => {
    setValidators(reply, shown.validators);
    return sendJson(reply, shown.text);
  };

  api.get(
    '/watchlists',
    nzbnOperation({
      schema: {
        summary: 'List the caller’s watchlists',
        querystring: ListQuery,
        response: responses({ 200: envelope(Watchlist) }, [400]),
      },
    }),
    async (request) => {
      const query = request.query;
      const owner = ownerOf(request);
      const sortBy = choice(query['sort-by'] ?? 'name', WATCHLIST_SORT);
      if (!sortBy) throw badRequest('sort-by', `must be one of ${WATCHLIST_SORT.join(', ')}`);
      const sortOrder = (query.sortorder ?? 'ASC').toUpperCase();
      if (sortOrder !== 'ASC' && sortOrder !== 'DESC') throw badRequest('sortorder', 'must be ASC or DESC');
      const types = query['change-event-types']?.flatMap((value) => value.split(','));
      const page = pageOf(query);
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
            limit: page.pageSize,
            offset: page.offset,
          });
      const listing = {
        path: '/watchlists',
        query,
        carried: ['name', 'organisation-id', 'change-event-types', 'sort-by', 'sortorder'],
      };
      const items = found.watchlists.map((watchlist) => view(context, watchlist));
      return pagedEnvelope(context, listing, page, { total: found.total, items }, { sortBy, sortOrder });
    },
  );

  api.post(
    '/watchlists',
    nzbnOperation({
      schema: {
        summary: 'Create a watchlist (the answer shows its webhook secret, once)',
        body: WatchlistCreate,
        response: responses({ 201: CreatedWatchlist }, [400]),
      },
    }),
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
      // The watchlist's validators (without the secret, which only this answer shows).
      setValidators(reply, whole(created).validators);
      reply.code(201).header('location', `${baseUrl(context)}/watchlists/${id}`);
      return { ...view(context, created), webhookSecret: secret };
    },
  );

  api.get(
    '/watchlists/:watchlistId',
    nzbnOperation(
      {
        schema: {
          summary: 'View a watchlist',
          params: IdParams,
          response: responses({ 200: Watchlist, 304: NotModified }, [400, 404, 412]),
        },
      },
      'read',
    ),
    async (request, reply) => {
      const shown = whole(await load(request, request.params.watchlistId));
      if (conditionalRead(request, reply, shown.validators)) return reply;
      return sendJson(reply, shown.text);
    },
  );

  api.put(
    '/watchlists/:watchlistId',
    nzbnOperation(
      {
        schema: {
          summary: 'Update a watchlist (suspended: false resumes delivery)',
          params: IdParams,
          body: WatchlistUpdate,
          response: responses({ 200: Watchlist }, [400, 404, 412]),
        },
      },
      {},
    ),
    async (request, reply) => {
      const { watchlistId } = request.params;
      const now = context.clock.now();
      const check = against(request, whole);
      const saved = await updateWatchlist(pool, ownerOf(request).key, watchlistId, now, (current) => {
        check(current);
        return mergeWatchlist(request.body, current, now);
      });
      if (!saved) throw notFound(watchlistId);
      return answer(reply, whole(await load(request, watchlistId)));
    },
  );

  api.delete(
    '/watchlists/:watchlistId',
    nzbnOperation(
      {
        schema: {
          summary: 'Delete a watchlist',
          params: IdParams,
          response: responses({ 204: Type.Null() }, [400, 404, 412]),
        },
      },
      {},
    ),
    async (request, reply) => {
      const { watchlistId } = request.params;
      const owner = ownerOf(request).key;
      if (!(await deleteWatchlist(pool, owner, watchlistId, against(request, whole))))
        throw notFound(watchlistId);
      return reply.code(204).send();
    },
  );

  api.get(
    '/watchlists/:watchlistId/nzbns',
    nzbnOperation(
      {
        schema: {
          summary: 'The watchlist’s business numbers',
          params: IdParams,
          response: responses({ 200: NzbnList, 304: NotModified }, [400, 404, 412]),
        },
      },
      'read',
    ),
    async (request, reply) => {
      const shown = numbers(await load(request, request.params.watchlistId));
      if (conditionalRead(request, reply, shown.validators)) return reply;
      return sendJson(reply, shown.text);
    },
  );

  /** Adds or removes business numbers once the list's preconditions hold; answers the list as it is. */
  const changeList = async (
    request: FastifyRequest,
    reply: FastifyReply,
    watchlistId: string,
    change: { add?: string[]; remove?: string[] },
  ) => {
    const owner = ownerOf(request).key;
    const now = context.clock.now();
    if (!(await changeNzbns(pool, owner, watchlistId, now, against(request, numbers), change)))
      throw notFound(watchlistId);
    return answer(reply, numbers(await load(request, watchlistId)));
  };

  api.post(
    '/watchlists/:watchlistId/nzbns',
    nzbnOperation(
      {
        schema: {
          summary: 'Add business numbers to a watchlist',
          params: IdParams,
          body: NzbnsBody,
          response: responses({ 200: NzbnList }, [400, 404, 412]),
        },
      },
      {},
    ),
    async (request, reply) => {
      const { watchlistId } = request.params;
      // Someone else's watchlist is a 404 before its numbers are looked at.
      await load(request, watchlistId);
      const add = await checkedNzbns(context, request.body.nzbns);
      return changeList(request, reply, watchlistId, { add });
    },
  );

  api.delete(
    '/watchlists/:watchlistId/nzbns',
    nzbnOperation(
      {
        schema: {
          summary: 'Remove business numbers from a watchlist',
          params: IdParams,
          body: NzbnsBody,
          response: responses({ 200: NzbnList }, [400, 404, 412]),
        },
      },
      {},
    ),
    async (request, reply) => {
      const remove = [...new Set(request.body.nzbns.map((nzbn) => nzbn.trim()))];
      return changeList(request, reply, request.params.watchlistId, { remove });
    },
  );
}

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
import type { FastifyInstance, FastifyReply } from 'fastify';
import { setValidators } from '../../../platform/http/conditional.ts';
import { conditionalRead, preconditionsOf, typed } from '../../../platform/http/operation.ts';
import type { NzbnContext } from '../operations/support.ts';
import {
  addWatchlistNzbns,
  changeWatchlist,
  createWatchlistFor,
  listWatchlistsOf,
  numbersShown,
  removeWatchlist,
  removeWatchlistNzbns,
  type Shown,
  showWatchlist,
  watchlistShown,
} from '../operations/watchlists.ts';
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
import { nzbnOperation } from './operation.ts';
import { pagedEnvelope, pageOf } from './paging.ts';

const sendJson = (reply: FastifyReply, text: string) =>
  reply.type('application/json; charset=utf-8').send(text);

/** A write's answer: the representation as it now stands, with its validators. */
const answer = (reply: FastifyReply, shown: Shown) => {
  setValidators(reply, shown.validators);
  return sendJson(reply, shown.text);
};

export async function watchlistRoutes(app: FastifyInstance, context: NzbnContext): Promise<void> {
  const api = typed(app);

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
      const page = pageOf(query);
      const search = {
        name: query.name,
        organisationId: query['organisation-id'],
        changeEventTypes: query['change-event-types'],
        sortBy: query['sort-by'],
        sortOrder: query.sortorder,
      };
      const found = await listWatchlistsOf(context, { caller: request.caller, search, page });
      const listing = {
        path: '/watchlists',
        query,
        carried: ['name', 'organisation-id', 'change-event-types', 'sort-by', 'sortorder'],
      };
      return pagedEnvelope(context, listing, page, found, found.sort);
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
      const created = await createWatchlistFor(context, { caller: request.caller, watchlist: request.body });
      setValidators(reply, created.validators);
      reply.code(201).header('location', created.location);
      return created.body;
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
      const { watchlistId } = request.params;
      const shown = await showWatchlist(context, { caller: request.caller, watchlistId, of: watchlistShown });
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
      const shown = await changeWatchlist(context, {
        caller: request.caller,
        watchlistId: request.params.watchlistId,
        update: request.body,
        preconditions: preconditionsOf(request),
      });
      return answer(reply, shown);
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
      await removeWatchlist(context, {
        caller: request.caller,
        watchlistId: request.params.watchlistId,
        preconditions: preconditionsOf(request),
      });
      return reply.code(204).send();
    },
  );
  await watchlistNzbnRoutes(app, context);
}

/** GET, POST and DELETE /watchlists/{watchlistId}/nzbns: a watchlist's business numbers. */
async function watchlistNzbnRoutes(app: FastifyInstance, context: NzbnContext): Promise<void> {
  const api = typed(app);

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
      const { watchlistId } = request.params;
      const shown = await showWatchlist(context, { caller: request.caller, watchlistId, of: numbersShown });
      if (conditionalRead(request, reply, shown.validators)) return reply;
      return sendJson(reply, shown.text);
    },
  );

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
      const shown = await addWatchlistNzbns(context, {
        caller: request.caller,
        watchlistId: request.params.watchlistId,
        nzbns: request.body.nzbns,
        preconditions: preconditionsOf(request),
      });
      return answer(reply, shown);
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
      const shown = await removeWatchlistNzbns(context, {
        caller: request.caller,
        watchlistId: request.params.watchlistId,
        nzbns: request.body.nzbns,
        preconditions: preconditionsOf(request),
      });
      return answer(reply, shown);
    },
  );
}

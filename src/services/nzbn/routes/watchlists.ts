/**
 * Watchlists at their published paths: GET/POST /watchlists, GET/PUT/DELETE /watchlists/{watchlistId},
 * GET /watchlists/{watchlistId}/nzbns and POST …/action-append-nzbns and …/action-delete-nzbns (body
 * `{"nzbns": [...]}`, 201 with the list), POST …/action-send-test-notification (201; the message goes
 * through the watchlist's own delivery), with the field names of the published watchlist model. A watchlist belongs to the caller's organisation (the call's
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
  sendTestNotification,
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
  SentTestMessage,
  TestMessage,
  Watchlist,
  WatchlistCreate,
  WatchlistUpdate,
} from '../schemas/watchlists.ts';
import { nzbnOperation } from './operation.ts';
import { pagedEnvelope, pageOf } from './paging.ts';
import { published } from './published.ts';

const sendJson = (reply: FastifyReply, text: string) =>
  reply.type('application/json; charset=utf-8').send(text);

/** A write's answer: the representation as it now stands, with its validators (201: the published status). */
const answer = (reply: FastifyReply, shown: Shown) => {
  setValidators(reply, shown.validators);
  return sendJson(reply.code(201), shown.text);
};

const WATCHLIST_ERRORS = [400, 401, 403, 404, 412];

export async function watchlistRoutes(app: FastifyInstance, context: NzbnContext): Promise<void> {
  const api = typed(app);

  api.get(
    '/watchlists',
    nzbnOperation({
      schema: {
        ...published('NZBN_008'),
        summary: 'List the caller’s watchlists',
        querystring: ListQuery,
        response: responses({ 200: envelope(Watchlist) }, [400, 401, 403]),
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
        ...published('NZBN_009'),
        summary: 'Create a watchlist (the answer shows its webhook secret, once)',
        body: WatchlistCreate,
        response: responses({ 201: CreatedWatchlist }, [400, 401, 403]),
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
          ...published('NZBN_007'),
          summary: 'View a watchlist',
          params: IdParams,
          response: responses({ 200: Watchlist, 304: NotModified }, WATCHLIST_ERRORS),
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
          ...published('NZBN_010_1'),
          summary: 'Update a watchlist (suspended: false resumes delivery); 201, as published',
          params: IdParams,
          body: WatchlistUpdate,
          response: responses({ 201: Watchlist }, WATCHLIST_ERRORS),
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
          ...published('NZBN_011_1'),
          summary: 'Delete a watchlist',
          params: IdParams,
          response: responses({ 204: Type.Null() }, WATCHLIST_ERRORS),
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

/**
 * A watchlist's business numbers: GET …/nzbns, POST …/action-append-nzbns and …/action-delete-nzbns; and
 * POST …/action-send-test-notification.
 */
async function watchlistNzbnRoutes(app: FastifyInstance, context: NzbnContext): Promise<void> {
  const api = typed(app);

  api.get(
    '/watchlists/:watchlistId/nzbns',
    nzbnOperation(
      {
        schema: {
          ...published('NZBN_007_1'),
          summary: 'The watchlist’s business numbers',
          params: IdParams,
          response: responses({ 200: NzbnList, 304: NotModified }, WATCHLIST_ERRORS),
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
    '/watchlists/:watchlistId/action-append-nzbns',
    nzbnOperation(
      {
        schema: {
          ...published('NZBN_010_2'),
          summary: 'Add business numbers to a watchlist',
          params: IdParams,
          body: NzbnsBody,
          response: responses({ 201: NzbnList }, WATCHLIST_ERRORS),
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

  api.post(
    '/watchlists/:watchlistId/action-delete-nzbns',
    nzbnOperation(
      {
        schema: {
          ...published('NZBN_011_2'),
          summary: 'Remove business numbers from a watchlist',
          params: IdParams,
          body: NzbnsBody,
          response: responses({ 201: NzbnList }, WATCHLIST_ERRORS),
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

  api.post(
    '/watchlists/:watchlistId/action-send-test-notification',
    nzbnOperation({
      schema: {
        ...published('NZBN_012'),
        summary:
          "Send a test notification through the watchlist's delivery (signed push, or the email digest)",
        params: IdParams,
        body: TestMessage,
        response: responses({ 201: SentTestMessage }, [400, 401, 403, 404]),
      },
    }),
    async (request, reply) => {
      const sent = await sendTestNotification(context, {
        caller: request.caller,
        watchlistId: request.params.watchlistId,
        text: request.body.text,
      });
      return reply.code(201).send(sent);
    },
  );
}

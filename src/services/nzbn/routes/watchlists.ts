/**
 * Watchlists: GET/POST /watchlists, GET/PUT/DELETE /watchlists/{watchlistId} and
 * GET/POST/DELETE /watchlists/{watchlistId}/nzbns (body `{"nzbns": [...]}`), with the field names of
 * the published watchlist model. A watchlist belongs to the caller's organisation (the call's
 * organisation) or, without one, to the caller's subscription; anyone else gets the same 404 as for a
 * missing watchlist.
 *
 * Our choices where the reference is open: `wildcard` is null (only the listed business numbers),
 * `ALL` (every change across the register) or `NEW` (every new registration); `frequency` is
 * IMMEDIATE, DAILY or WEEKLY (default DAILY for EMAIL, IMMEDIATE for PUSH); a PUSH watchlist needs a
 * `pushEndpoint` (https, or http on localhost) and an `adminEmailAddress` (told when delivery is
 * suspended); an EMAIL watchlist needs `watchlistEmailAddresses`. PUT changes the fields it is given;
 * `suspended` may only be set to false (resume): delivery alone suspends. The Standard Webhooks secret
 * (`webhookSecret`) is in the answer to POST /watchlists only.
 *
 * Delivery (notification records, the retry schedule, suspension, resumption and end-dating) runs in
 * the background jobs (../watchlists/). A watchlist end-dated after a month of suspension keeps its
 * `toDate` (the end date) and `suspended: true`, and cannot be resumed (400).
 */
import { type Static, type TSchema, Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { NZBN_ERRORS } from '../../../platform/http/error-codes.ts';
import { badRequest, HttpError } from '../../../platform/http/errors.ts';
import { isChangeEventType, PUBLIC_SECTOR_TYPE_CODES } from '../domain/codes.ts';
import { formatNzDateTime, NZ_DATE_TIME_RULE, parseNzDateTime } from '../domain/dates.ts';
import { glnProblem } from '../domain/gln.ts';
import { Link, Nullable, Nzbn, NzDateTime, Strict } from '../domain/schema.ts';
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
  type WatchlistFields,
} from '../store/watchlists.ts';
import { newWebhookSecret } from '../watchlists/signing.ts';
import { envelope, PAGE_SIZE_DEFAULT, PageQuery, responses } from './schemas.ts';
import { baseUrl, choice, link, type NzbnContext, pageLinks } from './support.ts';

const WATCHLIST_SORT = ['name', 'fromDate', 'watchlistId'] as const;

export const MAX_NZBNS_PER_REQUEST = 1_000;
const FREQUENCIES = ['IMMEDIATE', 'DAILY', 'WEEKLY'] as const;
const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Why a push endpoint cannot be used; null when it can (https, or http on this machine). */
export function pushEndpointProblem(text: string): string | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.username || url.password) return 'must not carry a user name or password';
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:' && LOCAL_HOSTS.has(url.hostname)) return null;
  return 'must use https (http only for localhost)';
}

const Watchlist = Type.Object(
  {
    watchlistId: Type.String(),
    name: Type.String(),
    userId: Nullable(Type.String()),
    fromDate: NzDateTime,
    toDate: Nullable(NzDateTime),
    organisationId: Nullable(Type.String()),
    channel: Type.String(),
    frequency: Type.String(),
    wildcard: Nullable(Type.String()),
    changeEventTypes: Type.Array(Type.String()),
    pushEndpoint: Nullable(Type.String()),
    authorizationToken: Nullable(Type.String()),
    adminEmailAddress: Nullable(Type.String()),
    watchlistEmailAddresses: Type.Array(Type.String()),
    lastSuccessfulChangeNoticeId: Nullable(Type.String()),
    suspended: Type.Boolean(),
    links: Type.Array(Link),
    nzbns: Type.Array(Nzbn),
  },
  Strict,
);
const CreatedWatchlist = Type.Object(
  {
    ...Watchlist.properties,
    webhookSecret: Type.String({ description: 'Standard Webhooks secret (whsec_…): shown only here, once' }),
  },
  Strict,
);

const opt = <T extends TSchema>(schema: T) => Type.Optional(schema);
const NullableOpt = <T extends TSchema>(schema: T) => Type.Optional(Nullable(schema));
const writable = {
  name: Type.String({ minLength: 1, maxLength: 200 }),
  channel: Type.String({ maxLength: 10, description: 'EMAIL or PUSH' }),
  frequency: opt(Type.String({ maxLength: 20, description: 'IMMEDIATE, DAILY or WEEKLY' })),
  wildcard: NullableOpt(Type.String({ maxLength: 10, description: 'ALL or NEW' })),
  changeEventTypes: opt(Type.Array(Type.String({ maxLength: 60 }), { maxItems: 50 })),
  pushEndpoint: NullableOpt(Type.String({ maxLength: 2000 })),
  authorizationToken: NullableOpt(Type.String({ maxLength: 2000 })),
  adminEmailAddress: NullableOpt(Type.String({ maxLength: 254 })),
  watchlistEmailAddresses: opt(Type.Array(Type.String({ maxLength: 254 }), { maxItems: 50 })),
  fromDate: opt(Type.String({ maxLength: 40 })),
  toDate: NullableOpt(Type.String({ maxLength: 40 })),
};
const WatchlistCreate = Type.Object({
  ...writable,
  nzbns: opt(Type.Array(Type.String({ maxLength: 20 }), { maxItems: MAX_NZBNS_PER_REQUEST })),
});
type WatchlistCreate = Static<typeof WatchlistCreate>;
const WatchlistUpdate = Type.Object({
  ...writable,
  name: opt(writable.name),
  channel: opt(writable.channel),
  suspended: opt(Type.Boolean({ description: 'false resumes a suspended watchlist' })),
});
type WatchlistUpdate = Static<typeof WatchlistUpdate>;
const NzbnsBody = Type.Object({
  nzbns: Type.Array(Type.String({ maxLength: 20 }), { minItems: 1, maxItems: MAX_NZBNS_PER_REQUEST }),
});
type NzbnsBody = Static<typeof NzbnsBody>;
const NzbnList = Type.Object({ nzbns: Type.Array(Nzbn) }, Strict);
const IdParams = Type.Object({ watchlistId: Type.String({ maxLength: 60 }) });
type IdParams = Static<typeof IdParams>;
const ListQuery = Type.Object({
  name: Type.Optional(Type.String({ maxLength: 200 })),
  'organisation-id': Type.Optional(Type.String({ maxLength: 100 })),
  'change-event-types': Type.Optional(Type.Array(Type.String({ maxLength: 500 }), { maxItems: 20 })),
  'sort-by': Type.Optional(
    Type.String({ maxLength: 40, description: 'name (default), fromDate or watchlistId' }),
  ),
  sortorder: Type.Optional(
    Type.String({ maxLength: 10, description: 'ASC (default) or DESC (sic: no hyphen)' }),
  ),
  ...PageQuery,
});
type ListQuery = Static<typeof ListQuery>;

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

function date(text: string, field: string): Date {
  const parsed = parseNzDateTime(text);
  if (parsed === null) throw badRequest(field, `must be ${NZ_DATE_TIME_RULE}`);
  return new Date(parsed);
}

function changeTypes(values: readonly string[], field: string): string[] {
  const names = [...new Set(values.map((value) => value.trim().toUpperCase()).filter(Boolean))];
  const unknown = names.filter((name) => !isChangeEventType(name));
  if (unknown.length > 0) throw badRequest(field, `unknown change event type "${unknown.join('", "')}"`);
  return names;
}

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

/** The whole watchlist after applying `body` over `current`, checked. */
function merged(
  body: WatchlistUpdate,
  current: (WatchlistFields & { endDatedAt?: Date | null }) | null,
  now: Date,
): WatchlistFields {
  const name = body.name ?? current?.name;
  if (!name?.trim()) throw badRequest('name', 'is required');
  const channel = (body.channel ?? current?.channel)?.toUpperCase();
  if (channel !== 'EMAIL' && channel !== 'PUSH') throw badRequest('channel', 'must be EMAIL or PUSH');
  const frequency = (
    body.frequency ??
    current?.frequency ??
    (channel === 'PUSH' ? 'IMMEDIATE' : 'DAILY')
  ).toUpperCase();
  if (!(FREQUENCIES as readonly string[]).includes(frequency)) {
    throw badRequest('frequency', `must be one of ${FREQUENCIES.join(', ')}`);
  }
  const wildcardText = body.wildcard === undefined ? current?.wildcard : body.wildcard;
  const wildcard = wildcardText ? wildcardText.toUpperCase() : null;
  if (wildcard !== null && wildcard !== 'ALL' && wildcard !== 'NEW') {
    throw badRequest(
      'wildcard',
      'must be ALL (every change across the register), NEW (every new registration) or null',
    );
  }
  const changeEventTypes =
    body.changeEventTypes !== undefined
      ? changeTypes(body.changeEventTypes, 'changeEventTypes')
      : (current?.changeEventTypes ?? ['ALL']);
  if (changeEventTypes.length === 0)
    throw badRequest('changeEventTypes', 'must name at least one type (or ALL)');
  const pick = <K extends 'pushEndpoint' | 'authorizationToken' | 'adminEmailAddress'>(key: K) =>
    body[key] === undefined ? (current?.[key] ?? null) : (body[key] ?? null);
  const pushEndpoint = pick('pushEndpoint');
  if (pushEndpoint !== null) {
    const problem = pushEndpointProblem(pushEndpoint);
    if (problem) throw badRequest('pushEndpoint', problem);
  }
  const adminEmailAddress = pick('adminEmailAddress');
  if (adminEmailAddress !== null && !EMAIL.test(adminEmailAddress)) {
    throw badRequest('adminEmailAddress', 'is not an email address');
  }
  const watchlistEmailAddresses = body.watchlistEmailAddresses ?? current?.watchlistEmailAddresses ?? [];
  for (const address of watchlistEmailAddresses) {
    if (!EMAIL.test(address))
      throw badRequest('watchlistEmailAddresses', `"${address}" is not an email address`);
  }
  if (channel === 'PUSH') {
    if (pushEndpoint === null) throw badRequest('pushEndpoint', 'is required for the PUSH channel');
    if (adminEmailAddress === null) {
      throw badRequest(
        'adminEmailAddress',
        'is required for the PUSH channel (told when delivery is suspended)',
      );
    }
  } else if (watchlistEmailAddresses.length === 0) {
    throw badRequest('watchlistEmailAddresses', 'at least one address is required for the EMAIL channel');
  }
  const fromDate = body.fromDate !== undefined ? date(body.fromDate, 'fromDate') : (current?.fromDate ?? now);
  const toDate =
    body.toDate === undefined
      ? (current?.toDate ?? null)
      : body.toDate === null
        ? null
        : date(body.toDate, 'toDate');
  if (toDate && toDate < fromDate) throw badRequest('toDate', 'is before fromDate');
  if (body.suspended === false && current?.endDatedAt) {
    throw badRequest(
      'suspended',
      'this watchlist was end-dated after a month of suspension and cannot be resumed; create a new one',
    );
  }
  if (body.suspended === true && !current?.suspended) {
    throw badRequest('suspended', 'only delivery suspends a watchlist; send false to resume');
  }
  return {
    name: name.trim(),
    channel,
    frequency,
    wildcard,
    changeEventTypes,
    pushEndpoint,
    authorizationToken: pick('authorizationToken'),
    adminEmailAddress,
    watchlistEmailAddresses,
    fromDate,
    toDate,
    suspended: body.suspended ?? current?.suspended ?? false,
  };
}

function view(context: NzbnContext, request: FastifyRequest, watchlist: StoredWatchlist) {
  const self = `${baseUrl(context, request)}/watchlists/${watchlist.id}`;
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
        `${baseUrl(context, request)}/watchlists`,
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
        items: found.watchlists.map((watchlist) => view(context, request, watchlist)),
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
      const fields = merged(request.body, null, now);
      const nzbns = await checkedNzbns(context, request.body.nzbns ?? []);
      if (nzbns.length === 0 && fields.wildcard === null) {
        throw badRequest('nzbns', 'list at least one business number, or set a wildcard (ALL or NEW)');
      }
      const secret = newWebhookSecret();
      const id = await createWatchlist(pool, owner, fields, nzbns, secret, now);
      const created = await load(request, id);
      reply.code(201).header('location', `${baseUrl(context, request)}/watchlists/${id}`);
      return { ...view(context, request, created), webhookSecret: secret };
    },
  );

  app.get<{ Params: IdParams }>(
    '/watchlists/:watchlistId',
    { schema: { summary: 'View a watchlist', params: IdParams, response: responses({ 200: Watchlist }) } },
    async (request) => view(context, request, await load(request, request.params.watchlistId)),
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
      const fields = merged(request.body, current, now);
      if (!(await updateWatchlist(pool, ownerOf(request).key, watchlistId, fields, now)))
        throw notFound(watchlistId);
      return view(context, request, await load(request, watchlistId));
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

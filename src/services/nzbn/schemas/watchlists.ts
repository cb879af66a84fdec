/**
 * The TypeBox schemas of the watchlist operations (watchlists.ts): the watchlist as answered, the
 * bodies of POST and PUT, the business number lists, the path and the list query.
 */
import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { Link, Nullable, Nzbn, NzDateTime, Strict } from '../domain/schema.ts';
import { PagingQuery } from './operations.ts';

export const MAX_NZBNS_PER_REQUEST = 1_000;

export const Watchlist = Type.Object(
  {
    watchlistId: Type.Integer({ format: 'int32' }),
    name: Type.String(),
    userId: Nullable(Type.String()),
    fromDate: NzDateTime,
    toDate: Nullable(NzDateTime),
    organisationId: Nullable(Type.String()),
    channel: Type.String(),
    frequency: Type.String(),
    wildcard: Nullable(Type.String()),
    changeEventTypes: Type.String({ description: 'Comma-joined change event types' }),
    pushEndpoint: Nullable(Type.String()),
    authorizationToken: Nullable(Type.String()),
    adminEmailAddress: Nullable(Type.String()),
    watchlistEmailAddresses: Type.String({ description: 'Comma-joined email addresses' }),
    lastSuccessfulChangeNoticeId: Nullable(Type.Integer()),
    suspended: Type.Boolean(),
    links: Type.Array(Link),
    nzbns: Type.Array(Nzbn),
  },
  Strict,
);
export const CreatedWatchlist = Type.Object(
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
  frequency: opt(Type.String({ maxLength: 20, description: 'ONEVENT, DAILY or WEEKLY' })),
  wildcard: NullableOpt(
    Type.String({
      maxLength: 20,
      description:
        'ALL, COMPANIES, INCORPORATED or UNINCORPORATED; PUBLIC_SECTOR is refused (public sector entities are not reported). Every new registration: ALL with changeEventTypes NEW (NEW, an earlier name, is read so)',
    }),
  ),
  changeEventTypes: opt(
    Type.Union(
      [Type.String({ maxLength: 3000 }), Type.Array(Type.String({ maxLength: 60 }), { maxItems: 50 })],
      {
        description: 'Comma-joined change event types (the published form), or a list',
      },
    ),
  ),
  pushEndpoint: NullableOpt(Type.String({ maxLength: 2000 })),
  authorizationToken: NullableOpt(Type.String({ maxLength: 2000 })),
  adminEmailAddress: NullableOpt(Type.String({ maxLength: 254 })),
  watchlistEmailAddresses: opt(
    Type.Union(
      [Type.String({ maxLength: 13000 }), Type.Array(Type.String({ maxLength: 254 }), { maxItems: 50 })],
      {
        description: 'Comma-joined email addresses (the published form), or a list',
      },
    ),
  ),
  fromDate: opt(Type.String({ maxLength: 40 })),
  toDate: NullableOpt(Type.String({ maxLength: 40 })),
};
export const WatchlistCreate = Type.Object(
  {
    ...writable,
    nzbns: opt(Type.Array(Type.String({ maxLength: 20 }), { maxItems: MAX_NZBNS_PER_REQUEST })),
  },
  {
    // The sandbox's example entity (a fixed test case); mail goes to an example.test address.
    examples: [
      {
        name: 'Suppliers',
        channel: 'EMAIL',
        frequency: 'DAILY',
        adminEmailAddress: 'watch@example.test',
        watchlistEmailAddresses: 'watch@example.test',
        nzbns: ['9429000001007'],
      },
    ],
  },
);
export type WatchlistCreate = Static<typeof WatchlistCreate>;
export const WatchlistUpdate = Type.Object(
  {
    ...writable,
    name: opt(writable.name),
    channel: opt(writable.channel),
    suspended: opt(Type.Boolean({ description: 'false resumes a suspended watchlist' })),
  },
  { examples: [{ frequency: 'WEEKLY' }] },
);
export type WatchlistUpdate = Static<typeof WatchlistUpdate>;
export const NzbnsBody = Type.Object(
  {
    nzbns: Type.Array(Type.String({ maxLength: 20 }), { minItems: 1, maxItems: MAX_NZBNS_PER_REQUEST }),
  },
  // A fixed test case (the unlimited company).
  { examples: [{ nzbns: ['9429000001014'] }] },
);
export type NzbnsBody = Static<typeof NzbnsBody>;
/** The published NZBNList: the business numbers, with the links that change them. */
export const NzbnList = Type.Object({ nzbns: Type.Array(Nzbn), links: Type.Array(Link) }, Strict);
/** The published TestMessage: what a test notification says. */
export const TestMessage = Type.Object(
  { text: Type.Optional(Type.Union([Type.String({ maxLength: 1000 }), Type.Null()])) },
  { ...Strict, examples: [{ text: 'Checking our receiver' }] },
);
export type TestMessage = Static<typeof TestMessage>;
export const SentTestMessage = Type.Object({ text: Type.String() }, Strict);
export const IdParams = Type.Object({ watchlistId: Type.String({ maxLength: 60 }) });
export type IdParams = Static<typeof IdParams>;
export const ListQuery = Type.Object({
  name: Type.Optional(Type.String({ maxLength: 200 })),
  'organisation-id': Type.Optional(Type.String({ maxLength: 100 })),
  'change-event-types': Type.Optional(Type.Array(Type.String({ maxLength: 500 }), { maxItems: 20 })),
  'sort-by': Type.Optional(
    Type.String({ maxLength: 40, description: 'name (default), fromDate or watchlistId' }),
  ),
  sortorder: Type.Optional(
    Type.String({ maxLength: 10, description: 'ASC (default) or DESC (sic: no hyphen)' }),
  ),
  ...PagingQuery,
});
export type ListQuery = Static<typeof ListQuery>;

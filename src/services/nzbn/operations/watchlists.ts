/**
 * Watchlists: list, create, view, update (the fields given; `suspended: false` resumes), delete, and
 * their business numbers (view, add, remove). A watchlist belongs to the caller's organisation (the
 * call's organisation) or, without one, to the caller's subscription; anyone else gets the same 404 as
 * for a missing watchlist. Writes hold against the representation they change: the watchlist's for
 * its update and deletion, its business numbers' for theirs (`watchlistShown`, `numbersShown`).
 */
import type { Caller } from '../../../gateway/service-context.ts';
import { strongEtag } from '../../../platform/http/conditional.ts';
import { badRequest, HttpError } from '../../../platform/http/errors.ts';
import type { Preconditions, ResourceValidators } from '../../../platform/http/operation.ts';
import { formatNzDateTime } from '../../../platform/nz-time.ts';
import { PUBLIC_SECTOR_TYPE_CODES } from '../domain/codes.ts';
import { changeTypes, isWatchlistId, MAX_WATCHLIST_ID, mergeWatchlist } from '../domain/watchlist.ts';
import { newWebhookSecret } from '../domain/webhook-signing.ts';
import { NZBN_ERRORS } from '../errors.ts';
import type { WatchlistCreate, WatchlistUpdate } from '../schemas/watchlists.ts';
import { queueTestNotification } from '../store/delivery.ts';
import {
  changeNzbns,
  createWatchlist,
  deleteWatchlist,
  findWatchlist,
  listWatchlists,
  type StoredWatchlist,
  updateWatchlist,
} from '../store/watchlists.ts';
import { baseUrl, choice, link, type NzbnContext, registeredNzbns } from './support.ts';

interface Owner {
  key: string;
  userId: string | null;
  organisationId: string | null;
}

/** Who owns the caller's watchlists: the call's organisation, else its subscription. */
export function ownerOf(caller: Caller | undefined): Owner {
  if (!caller) throw new HttpError(NZBN_ERRORS.unauthorized, 'Unauthorized: no subscription');
  const organisationId = caller.organisationId ?? null;
  return {
    key: organisationId ? `org:${organisationId}` : `sub:${caller.subscriptionId}`,
    userId: caller.userId ?? caller.subscriberId,
    organisationId,
  };
}

/**
 * Why no watchlist of the caller's has this `watchlistId`: a 400 when it is not a published watchlistId
 * (a whole number within int32) at all, otherwise 404 (another owner's watchlist is not found either).
 */
export const notFound = (id: string): HttpError =>
  isWatchlistId(id)
    ? new HttpError(NZBN_ERRORS.notFound, `Object Not Found: no watchlist has the id ${id}`)
    : badRequest('watchlistId', `must be a whole number from 1 to ${MAX_WATCHLIST_ID}`);

/** Checks business numbers' form and that the register holds them, not public sector; 400 naming the others. */
export async function checkedNzbns(context: NzbnContext, values: readonly string[]): Promise<string[]> {
  const types = await registeredNzbns(context, values);
  const nzbns = [...types.keys()];
  const publicSector = nzbns.filter((nzbn) => PUBLIC_SECTOR_TYPE_CODES.has(types.get(nzbn)!)).sort();
  if (publicSector.length > 0) {
    throw badRequest(
      'nzbns',
      `"${publicSector.join('", "')}": public sector entities cannot be watched (they have no source register, so no change feed)`,
    );
  }
  return nzbns;
}

/** The links to a watchlist's business numbers and the published actions that change them. */
const numberLinks = (self: string) => [
  link('nzbns', `${self}/nzbns`, ['GET']),
  link('action-append-nzbns', `${self}/action-append-nzbns`, ['POST']),
  link('action-delete-nzbns', `${self}/action-delete-nzbns`, ['POST']),
];

/** A watchlist in the published watchlist model. */
export function view(context: NzbnContext, watchlist: StoredWatchlist) {
  const self = `${baseUrl(context)}/watchlists/${watchlist.number}`;
  return {
    watchlistId: watchlist.number,
    name: watchlist.name,
    userId: watchlist.userId,
    fromDate: formatNzDateTime(watchlist.fromDate.getTime()),
    toDate: watchlist.toDate ? formatNzDateTime(watchlist.toDate.getTime()) : null,
    organisationId: watchlist.organisationId,
    channel: watchlist.channel,
    frequency: watchlist.frequency,
    wildcard: watchlist.wildcard,
    // Published as text: the types and the addresses comma-joined, the notice's id a number.
    changeEventTypes: watchlist.changeEventTypes.join(','),
    pushEndpoint: watchlist.pushEndpoint,
    authorizationToken: watchlist.authorizationToken,
    adminEmailAddress: watchlist.adminEmailAddress,
    watchlistEmailAddresses: watchlist.watchlistEmailAddresses.join(','),
    lastSuccessfulChangeNoticeId:
      watchlist.lastSuccessfulChangeNoticeId === null ? null : Number(watchlist.lastSuccessfulChangeNoticeId),
    suspended: watchlist.suspended,
    links: [
      link('self', self, ['GET', 'PUT', 'DELETE']),
      ...numberLinks(self),
      link('action-send-test-notification', `${self}/action-send-test-notification`, ['POST']),
    ],
    nzbns: watchlist.nzbns,
  };
}

/** A representation as sent (its JSON text) with its validators. */
export interface Shown {
  text: string;
  validators: ResourceValidators;
}

/**
 * The two representations a watchlist has, each with its validators: the watchlist itself
 * (`/watchlists/{id}`) and its business numbers (`…/nzbns`). The ETag is made from the bytes sent; the
 * watchlist's `updated_at` (moved by every change of either, deliveries included) is the Last-Modified.
 */
function represented(body: unknown, watchlist: StoredWatchlist): Shown {
  const text = JSON.stringify(body);
  return { text, validators: { etag: strongEtag(text), lastModified: watchlist.updatedAt } };
}

export const watchlistShown = (context: NzbnContext, watchlist: StoredWatchlist): Shown =>
  represented(view(context, watchlist), watchlist);
/** The published NZBNList: the watchlist's business numbers, with the links that change them. */
export const numbersShown = (context: NzbnContext, watchlist: StoredWatchlist): Shown =>
  represented(
    { nzbns: watchlist.nzbns, links: numberLinks(`${baseUrl(context)}/watchlists/${watchlist.number}`) },
    watchlist,
  );

type Representation = typeof watchlistShown;

/** The caller's watchlist, or 404. */
async function load(context: NzbnContext, caller: Caller | undefined, id: string): Promise<StoredWatchlist> {
  const found = await findWatchlist(context.database.pool, ownerOf(caller).key, id);
  if (!found) throw notFound(id);
  return found;
}

/** A write's preconditions against one representation of the locked watchlist. */
const against =
  (context: NzbnContext, preconditions: Preconditions, of: Representation) => (current: StoredWatchlist) =>
    preconditions(of(context, current).validators);

const WATCHLIST_SORT = ['name', 'fromDate', 'watchlistId'] as const;

export interface WatchlistSearch {
  name?: string | undefined;
  organisationId?: string | undefined;
  /** Repeated and comma-joined change event types. */
  changeEventTypes?: string[] | undefined;
  /** `name`, `fromDate` or `watchlistId`, any case (default `name`). */
  sortBy?: string | undefined;
  /** `ASC` or `DESC`, any case (default `ASC`). */
  sortOrder?: string | undefined;
}

/** One page of the caller's watchlists, in the order asked for (400 naming a bad parameter). */
export async function listWatchlistsOf(
  context: NzbnContext,
  input: { caller: Caller | undefined; search: WatchlistSearch; page: { pageSize: number; offset: number } },
) {
  const { search, page } = input;
  const owner = ownerOf(input.caller);
  const sortBy = choice(search.sortBy ?? 'name', WATCHLIST_SORT);
  if (!sortBy) throw badRequest('sort-by', `must be one of ${WATCHLIST_SORT.join(', ')}`);
  const sortOrder = (search.sortOrder ?? 'ASC').toUpperCase();
  if (sortOrder !== 'ASC' && sortOrder !== 'DESC') throw badRequest('sortorder', 'must be ASC or DESC');
  const types = search.changeEventTypes?.flatMap((value) => value.split(','));
  // Only the caller's own organisation has watchlists the caller may see.
  const other = search.organisationId !== undefined && search.organisationId !== owner.organisationId;
  const found = other
    ? { total: 0, watchlists: [] }
    : await listWatchlists(context.database.pool, owner.key, {
        name: search.name,
        changeEventTypes: types ? changeTypes(types, 'change-event-types') : undefined,
        sortBy,
        descending: sortOrder === 'DESC',
        limit: page.pageSize,
        offset: page.offset,
      });
  const items = found.watchlists.map((watchlist) => view(context, watchlist));
  return { total: found.total, items, sort: { sortBy, sortOrder } };
}

/** Creates a watchlist; the answer shows its webhook secret, once. */
export async function createWatchlistFor(
  context: NzbnContext,
  input: { caller: Caller | undefined; watchlist: WatchlistCreate },
) {
  const owner = ownerOf(input.caller);
  const now = context.clock.now();
  const fields = mergeWatchlist(input.watchlist, null, now);
  const nzbns = await checkedNzbns(context, input.watchlist.nzbns ?? []);
  if (nzbns.length === 0 && fields.wildcard === null) {
    throw badRequest('nzbns', 'list at least one business number, or set a wildcard');
  }
  const secret = newWebhookSecret();
  const id = await createWatchlist(context.database.pool, owner, fields, nzbns, secret, now);
  const created = await load(context, input.caller, id);
  return {
    // The watchlist's validators (without the secret, which only this answer shows).
    validators: watchlistShown(context, created).validators,
    location: `${baseUrl(context)}/watchlists/${id}`,
    body: { ...view(context, created), webhookSecret: secret },
  };
}

/** The watchlist, or its business numbers (`of`), as the caller's representation. */
export async function showWatchlist(
  context: NzbnContext,
  input: { caller: Caller | undefined; watchlistId: string; of: Representation },
): Promise<Shown> {
  return input.of(context, await load(context, input.caller, input.watchlistId));
}

/** Updates the fields given; answers the watchlist as it now stands. */
export async function changeWatchlist(
  context: NzbnContext,
  input: {
    caller: Caller | undefined;
    watchlistId: string;
    update: WatchlistUpdate;
    preconditions: Preconditions;
  },
): Promise<Shown> {
  const { watchlistId } = input;
  const now = context.clock.now();
  const check = against(context, input.preconditions, watchlistShown);
  const owner = ownerOf(input.caller).key;
  const saved = await updateWatchlist(context.database.pool, owner, watchlistId, now, (current) => {
    check(current);
    return mergeWatchlist(input.update, current, now);
  });
  if (!saved) throw notFound(watchlistId);
  return watchlistShown(context, await load(context, input.caller, watchlistId));
}

/** Deletes the watchlist. */
export async function removeWatchlist(
  context: NzbnContext,
  input: { caller: Caller | undefined; watchlistId: string; preconditions: Preconditions },
): Promise<void> {
  const { watchlistId } = input;
  const owner = ownerOf(input.caller).key;
  const check = against(context, input.preconditions, watchlistShown);
  if (!(await deleteWatchlist(context.database.pool, owner, watchlistId, check))) throw notFound(watchlistId);
}

type NumbersInput = {
  caller: Caller | undefined;
  watchlistId: string;
  nzbns: string[];
  preconditions: Preconditions;
};

/** Adds or removes business numbers once the list's preconditions hold; answers the list as it is. */
async function changeList(
  context: NzbnContext,
  input: NumbersInput,
  change: { add?: string[]; remove?: string[] },
): Promise<Shown> {
  const { watchlistId } = input;
  const owner = ownerOf(input.caller).key;
  const now = context.clock.now();
  const check = against(context, input.preconditions, numbersShown);
  if (!(await changeNzbns(context.database.pool, owner, watchlistId, now, check, change)))
    throw notFound(watchlistId);
  return numbersShown(context, await load(context, input.caller, watchlistId));
}

/** Adds business numbers the register holds (not public sector ones). */
export async function addWatchlistNzbns(context: NzbnContext, input: NumbersInput): Promise<Shown> {
  // Someone else's watchlist is a 404 before its numbers are looked at.
  await load(context, input.caller, input.watchlistId);
  const add = await checkedNzbns(context, input.nzbns);
  return changeList(context, input, { add });
}

/** Removes business numbers (those not on the list are ignored). */
export async function removeWatchlistNzbns(context: NzbnContext, input: NumbersInput): Promise<Shown> {
  const remove = [...new Set(input.nzbns.map((nzbn) => nzbn.trim()))];
  return changeList(context, input, { remove });
}

/** What a test notification says when the request gives no text. */
export const DEFAULT_TEST_MESSAGE = 'A test notification from the business number register';

/**
 * Sends a test notification to the watchlist's recipients through its own delivery: signed push (in
 * order, retried, suspending as every push) or the next email digest. Answers the message sent (the
 * published TestMessage).
 */
export async function sendTestNotification(
  context: NzbnContext,
  input: { caller: Caller | undefined; watchlistId: string; text?: string | null | undefined },
): Promise<{ text: string }> {
  const watchlist = await load(context, input.caller, input.watchlistId);
  const text = input.text?.trim() || DEFAULT_TEST_MESSAGE;
  await queueTestNotification(context.database.pool, watchlist.id, text, context.clock.now());
  return { text };
}

/**
 * The watchlist merge rule: how a create (POST /watchlists) or an update (PUT /watchlists/{id}) is
 * applied over the stored watchlist, with the rules every watchlist keeps. A broken rule is a
 * RuleError naming the field (answered 400). Pure.
 *
 * Our choices where the reference is open: `wildcard` is null (only the listed business numbers) or one
 * of the published wildcards (WILDCARDS below; `NEW`, our earlier name for "every new registration", is
 * read as `ALL` with the change event type `NEW`); `frequency` is one of
 * the published ONEVENT, DAILY or WEEKLY (default DAILY for EMAIL, ONEVENT for PUSH; IMMEDIATE, our
 * earlier name, is read as ONEVENT); `changeEventTypes` and `watchlistEmailAddresses` are published as
 * text, comma-joined, and are taken as text or as a list; a PUSH watchlist needs a
 * `pushEndpoint` (https, or http on localhost) and an `adminEmailAddress` (told when delivery is
 * suspended); an EMAIL watchlist needs `watchlistEmailAddresses`. A field not given keeps its value;
 * `suspended` may only be set to false (resume): delivery alone suspends, and a watchlist end-dated
 * after a month of suspension cannot be resumed.
 */

import { RuleError } from '../../../platform/errors.ts';
import { NZ_DATE_TIME_RULE, parseNzDateTime } from '../../../platform/nz-time.ts';
import { ENTITY_TYPE_CODES, ENTITY_TYPES, isChangeEventType } from './codes.ts';

/** The largest watchlistId (published as int32). */
export const MAX_WATCHLIST_ID = 2_147_483_647;
/** A published watchlistId: a whole number from 1 to the int32 maximum, without sign or leading zero. */
export const isWatchlistId = (id: string): boolean =>
  /^[1-9][0-9]{0,9}$/.test(id) && Number(id) <= MAX_WATCHLIST_ID;

/**
 * The wildcards a watchlist may have: the published ALL, COMPANIES, INCORPORATED and UNINCORPORATED
 * (every change to an entity of those types). The published PUBLIC_SECTOR is refused: public sector
 * entities have no source register, so watchlists and change event searches do not report them (the
 * specification: not all business types can be used in watchlists and change event searches). Every new
 * registration is `ALL` with the change event type `NEW`.
 */
export const WILDCARDS = ['ALL', 'COMPANIES', 'INCORPORATED', 'UNINCORPORATED'] as const;

/** Our earlier wildcard for every new registration: read as ALL, reporting only the change event type NEW. */
const EARLIER_NEW_WILDCARD = 'NEW';
export type Wildcard = (typeof WILDCARDS)[number];

/** The entity type codes each type wildcard reports: companies; every type from a source register; the opt-in types. */
export const WILDCARD_TYPES: Readonly<
  Record<'COMPANIES' | 'INCORPORATED' | 'UNINCORPORATED', readonly string[]>
> = {
  COMPANIES: ENTITY_TYPE_CODES.filter((code) => ENTITY_TYPES[code].kind === 'company'),
  INCORPORATED: ENTITY_TYPE_CODES.filter((code) => ENTITY_TYPES[code].sourceRegister !== 'NZBN'),
  UNINCORPORATED: ENTITY_TYPE_CODES.filter((code) => ENTITY_TYPES[code].mayRegisterThroughApi),
};

/** A watchlist's own fields, as stored (store/watchlists.ts). */

export interface WatchlistFields {
  name: string;
  channel: 'EMAIL' | 'PUSH';
  frequency: string;
  wildcard: Wildcard | null;
  changeEventTypes: string[];
  pushEndpoint: string | null;
  authorizationToken: string | null;
  adminEmailAddress: string | null;
  watchlistEmailAddresses: string[];
  fromDate: Date;
  toDate: Date | null;
  suspended: boolean;
}

/** What a client sends (POST or PUT body): a field left out is `undefined`, a field cleared `null`. */
export interface WatchlistInput {
  name?: string;
  channel?: string;
  frequency?: string;
  wildcard?: string | null;
  /** Comma-joined (the published form) or a list. */
  changeEventTypes?: string[] | string;
  pushEndpoint?: string | null;
  authorizationToken?: string | null;
  adminEmailAddress?: string | null;
  /** Comma-joined (the published form) or a list. */
  watchlistEmailAddresses?: string[] | string;
  fromDate?: string;
  toDate?: string | null;
  suspended?: boolean;
}

/** The stored watchlist an update applies to; `endDatedAt` set when delivery end-dated it. */
export type CurrentWatchlist = WatchlistFields & { endDatedAt?: Date | null };

/** The published frequencies (Frequency). */
export const FREQUENCIES = ['ONEVENT', 'DAILY', 'WEEKLY'] as const;
/** Our earlier names of the published frequencies, still read. */
const EARLIER_FREQUENCIES: Readonly<Record<string, string>> = { IMMEDIATE: 'ONEVENT' };

/** A list sent as a list or as the published comma-joined text, its items trimmed, blanks left out. */
export function textList(value: readonly string[] | string): string[] {
  const items = typeof value === 'string' ? value.split(',') : value.flatMap((item) => item.split(','));
  return items.map((item) => item.trim()).filter(Boolean);
}
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

/** Change event type names, upper-cased, each once; an unknown one is a problem of `field`. */
export function changeTypes(values: readonly string[], field: string): string[] {
  const names = [...new Set(values.map((value) => value.trim().toUpperCase()).filter(Boolean))];
  const unknown = names.filter((name) => !isChangeEventType(name));
  if (unknown.length > 0) throw new RuleError(field, `unknown change event type "${unknown.join('", "')}"`);
  return names;
}

function date(text: string, field: string): Date {
  const parsed = parseNzDateTime(text);
  if (parsed === null) throw new RuleError(field, `must be ${NZ_DATE_TIME_RULE}`);
  return new Date(parsed);
}

/** The change event types of a watchlist asked for with the earlier NEW wildcard: NEW, or a 400 when they differ. */
function newRegistrationTypes(given: WatchlistInput['changeEventTypes']): string[] {
  if (given === undefined) return ['NEW'];
  const types = changeTypes(textList(given), 'changeEventTypes');
  if (types.every((type) => type === 'NEW' || type === 'ALL')) return ['NEW'];
  throw new RuleError(
    'changeEventTypes',
    'the wildcard NEW (every new registration) reports only the change event type NEW; for other types use the wildcard ALL',
  );
}

/**
 * The whole watchlist after applying `body` over `current` (null for a new watchlist), checked.
 * `now` is the default `fromDate` of a new watchlist.
 */
export function mergeWatchlist(
  body: WatchlistInput,
  current: CurrentWatchlist | null,
  now: Date,
): WatchlistFields {
  const name = body.name ?? current?.name;
  if (!name?.trim()) throw new RuleError('name', 'is required');
  const channel = (body.channel ?? current?.channel)?.toUpperCase();
  if (channel !== 'EMAIL' && channel !== 'PUSH') throw new RuleError('channel', 'must be EMAIL or PUSH');
  const given = (
    body.frequency ??
    current?.frequency ??
    (channel === 'PUSH' ? 'ONEVENT' : 'DAILY')
  ).toUpperCase();
  const frequency = EARLIER_FREQUENCIES[given] ?? given;
  if (!(FREQUENCIES as readonly string[]).includes(frequency)) {
    throw new RuleError('frequency', `must be one of ${FREQUENCIES.join(', ')}`);
  }
  const wildcardText = body.wildcard === undefined ? current?.wildcard : body.wildcard;
  const asked = wildcardText ? wildcardText.toUpperCase() : null;
  const newRegistrations = asked === EARLIER_NEW_WILDCARD;
  const wildcard = newRegistrations ? 'ALL' : asked;
  if (wildcard === 'PUBLIC_SECTOR') {
    throw new RuleError(
      'wildcard',
      'PUBLIC_SECTOR cannot be watched: public sector entities have no source register, so watchlists do not report them',
    );
  }
  if (wildcard !== null && !(WILDCARDS as readonly string[]).includes(wildcard)) {
    throw new RuleError(
      'wildcard',
      `must be ALL (every change), COMPANIES, INCORPORATED or UNINCORPORATED (every change to those entity types) or null`,
    );
  }
  const changeEventTypes = newRegistrations
    ? newRegistrationTypes(body.changeEventTypes)
    : body.changeEventTypes !== undefined
      ? changeTypes(textList(body.changeEventTypes), 'changeEventTypes')
      : (current?.changeEventTypes ?? ['ALL']);
  if (changeEventTypes.length === 0)
    throw new RuleError('changeEventTypes', 'must name at least one type (or ALL)');
  const pick = <K extends 'pushEndpoint' | 'authorizationToken' | 'adminEmailAddress'>(key: K) =>
    body[key] === undefined ? (current?.[key] ?? null) : (body[key] ?? null);
  const pushEndpoint = pick('pushEndpoint');
  if (pushEndpoint !== null) {
    const problem = pushEndpointProblem(pushEndpoint);
    if (problem) throw new RuleError('pushEndpoint', problem);
  }
  const adminEmailAddress = pick('adminEmailAddress');
  if (adminEmailAddress !== null && !EMAIL.test(adminEmailAddress)) {
    throw new RuleError('adminEmailAddress', 'is not an email address');
  }
  const watchlistEmailAddresses =
    body.watchlistEmailAddresses === undefined
      ? (current?.watchlistEmailAddresses ?? [])
      : textList(body.watchlistEmailAddresses);
  for (const address of watchlistEmailAddresses) {
    if (!EMAIL.test(address))
      throw new RuleError('watchlistEmailAddresses', `"${address}" is not an email address`);
  }
  if (channel === 'PUSH') {
    if (pushEndpoint === null) throw new RuleError('pushEndpoint', 'is required for the PUSH channel');
    if (adminEmailAddress === null) {
      throw new RuleError(
        'adminEmailAddress',
        'is required for the PUSH channel (told when delivery is suspended)',
      );
    }
  } else if (watchlistEmailAddresses.length === 0) {
    throw new RuleError('watchlistEmailAddresses', 'at least one address is required for the EMAIL channel');
  }
  const fromDate = body.fromDate !== undefined ? date(body.fromDate, 'fromDate') : (current?.fromDate ?? now);
  const toDate =
    body.toDate === undefined
      ? (current?.toDate ?? null)
      : body.toDate === null
        ? null
        : date(body.toDate, 'toDate');
  if (toDate && toDate < fromDate) throw new RuleError('toDate', 'is before fromDate');
  if (body.suspended === false && current?.endDatedAt) {
    throw new RuleError(
      'suspended',
      'this watchlist was end-dated after a month of suspension and cannot be resumed; create a new one',
    );
  }
  if (body.suspended === true && !current?.suspended) {
    throw new RuleError('suspended', 'only delivery suspends a watchlist; send false to resume');
  }
  return {
    name: name.trim(),
    channel,
    frequency,
    wildcard: wildcard as Wildcard | null,
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

/**
 * An entity's history: the published list of links to each kind (`GET …/history`), or one kind
 * (`HistoryKind`), each with its validators. Addresses are answered as the published Addresses (`links`
 * and `addressList`) of the `address-type` asked for; status periods carry the reason code and comment
 * of the request that set them. Private addresses and trading names are left out as in the entity itself.
 */
import type { Caller } from '../../../gateway/service-context.ts';
import { entityHistory, HISTORY_KINDS, type HistoryKind } from '../domain/history.ts';
import { historyItems, parseEntity, statusNoteOf } from '../store/entities.ts';
import { addressesOfType, type ReadAnswer, readAnswer } from './entities.ts';
import { actsFor, baseUrl, link, loadEntity, type NzbnContext } from './support.ts';

/** The key of each kind's list in the history the domain makes (domain/history.ts). */
const HISTORY_KEYS = {
  addresses: 'addresses',
  'entity-names': 'entityNames',
  'trading-names': 'tradingNames',
  'trading-areas': 'tradingAreas',
  'entity-statuses': 'entityStatuses',
  'hibernation-statuses': 'hibernationStatuses',
} as const satisfies Record<HistoryKind, string>;

type HistoryInput = { caller: Caller | undefined; nzbn: string };

/**
 * `GET …/history`: a link to each kind of the entity's history (addresses of every type). Nothing of
 * the history itself is read: Last-Modified is the entity's.
 */
export async function readHistory(context: NzbnContext, input: HistoryInput): Promise<ReadAnswer> {
  const stored = await loadEntity(context, input.nzbn);
  const base = `${baseUrl(context)}/entities/${stored.nzbn}/history`;
  const links = HISTORY_KINDS.map((kind) =>
    link(kind, kind === 'addresses' ? `${base}/addresses?address-type=ALL` : `${base}/${kind}`),
  );
  return readAnswer(links, stored.lastUpdated);
}

/**
 * One kind of the entity's history: oldest first, the current item last; addresses of `addressType`
 * (required: a type or `ALL`) as the published Addresses.
 */
export async function readHistoryList(
  context: NzbnContext,
  input: HistoryInput & { kind: HistoryKind; addressType?: string | undefined },
): Promise<ReadAnswer> {
  const { kind } = input;
  const stored = await loadEntity(context, input.nzbn);
  // An address type that is none is refused before anything is read.
  if (kind === 'addresses') addressesOfType([], input.addressType);
  const authorised = await actsFor(context, input.caller, stored.nzbn);
  const pool = context.database.pool;
  const records = await historyItems(pool, stored.nzbn, kind);
  const note = kind === 'entity-statuses' ? await statusNoteOf(pool, stored.nzbn) : undefined;
  const history = entityHistory(parseEntity(stored), records, authorised, note);
  if (kind === 'addresses') {
    const addressList = addressesOfType(history.addresses, input.addressType);
    return readAnswer({ links: [], addressList }, stored.lastUpdated);
  }
  return readAnswer(history[HISTORY_KEYS[kind]], stored.lastUpdated);
}

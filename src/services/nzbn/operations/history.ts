/**
 * An entity's history: every kind at once, or one list (`HistoryKind`), each with its validators.
 * Private addresses and trading names are left out as in the entity itself.
 */
import type { Caller } from '../../../gateway/service-context.ts';
import { type EntityHistory, entityHistory, type HistoryKind } from '../domain/history.ts';
import { historyItems, parseEntity } from '../store/entities.ts';
import { type ReadAnswer, readAnswer } from './entities.ts';
import { actsFor, loadEntity, type NzbnContext } from './support.ts';

/** The key of each kind's list in the whole history. */
export const HISTORY_KEYS: Readonly<Record<HistoryKind, keyof EntityHistory>> = {
  addresses: 'addresses',
  'entity-names': 'entityNames',
  'trading-names': 'tradingNames',
  'trading-areas': 'tradingAreas',
  'entity-statuses': 'entityStatuses',
  'hibernation-statuses': 'hibernationStatuses',
};

type HistoryInput = { caller: Caller | undefined; nzbn: string };

async function historyOf(context: NzbnContext, input: HistoryInput, kind?: HistoryKind) {
  const stored = await loadEntity(context, input.nzbn);
  const authorised = await actsFor(context, input.caller, stored.nzbn);
  const records = await historyItems(context.database.pool, stored.nzbn, kind);
  return { stored, history: entityHistory(parseEntity(stored), records, authorised) };
}

/** Every kind of the entity's history; Last-Modified is the entity's. */
export async function readHistory(context: NzbnContext, input: HistoryInput): Promise<ReadAnswer> {
  const { stored, history } = await historyOf(context, input);
  return readAnswer(history, stored.lastUpdated);
}

/** One kind of the entity's history: oldest first, the current item last. */
export async function readHistoryList(
  context: NzbnContext,
  input: HistoryInput & { kind: HistoryKind },
): Promise<ReadAnswer> {
  const { stored, history } = await historyOf(context, input, input.kind);
  return readAnswer(history[HISTORY_KEYS[input.kind]], stored.lastUpdated);
}

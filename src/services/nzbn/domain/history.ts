/**
 * The published history of an entity, per kind: the periods that ended (kept by the store when an
 * update ends them, and the seed's earlier names) followed by what is current in the record. The
 * status history of a generated entity is derived: registered from its registration, and its present
 * status from its last update when that is not Registered. Pure.
 */
import { ENTITY_STATUSES, HIBERNATION_STATUSES, type HibernationStatusCode } from './codes.ts';
import { isPrivateAddress } from './privacy.ts';
import type { Address, Entity, TradingArea, TradingName } from './schema.ts';

export const HISTORY_KINDS = [
  'addresses',
  'entity-names',
  'trading-names',
  'trading-areas',
  'entity-statuses',
  'hibernation-statuses',
] as const;
export type HistoryKind = (typeof HISTORY_KINDS)[number];

export interface EndedRecord {
  kind: string;
  item: unknown;
}

interface Period {
  startDate: string | null;
  endDate: string | null;
}
export type EntityNamePeriod = Period & { entityName: string };
/** The published EntityStatus, in its key order: a status period and the reason a request gave for it. */
export interface StatusPeriod {
  entityStatusCode: string;
  startDate: string | null;
  endDate: string | null;
  statusReasonCode: string | null;
  entityStatusDescription: string;
  comment: string | null;
}
/** What a status request said of the status it set (the published `statusReasonCode` and `comment`). */
export interface StatusNote {
  statusReasonCode: string | null;
  comment: string | null;
}
export const NO_STATUS_NOTE: StatusNote = { statusReasonCode: null, comment: null };
export type HibernationPeriod = Period & {
  hibernationStatusCode: string;
  hibernationStatusDescription: string;
};

export interface EntityHistory {
  addresses: Address[];
  entityNames: EntityNamePeriod[];
  tradingNames: TradingName[];
  tradingAreas: TradingArea[];
  entityStatuses: StatusPeriod[];
  hibernationStatuses: HibernationPeriod[];
}

const endedOf = <T>(records: readonly EndedRecord[], kind: HistoryKind) =>
  records.filter((record) => record.kind === kind).map((record) => record.item as T);

/** When the current period of a kind began: the end of the last ended one, else registration. */
function currentStart(ended: readonly Period[], entity: Entity): string {
  return ended.at(-1)?.endDate ?? entity.registrationDate;
}

/** A status period in the published shape (periods stored before the reason was kept have none). */
function statusPeriod(period: Partial<StatusPeriod> & { entityStatusCode: string }): StatusPeriod {
  const code = period.entityStatusCode;
  return {
    entityStatusCode: code,
    startDate: period.startDate ?? null,
    endDate: period.endDate ?? null,
    statusReasonCode: period.statusReasonCode ?? null,
    entityStatusDescription:
      period.entityStatusDescription ??
      ENTITY_STATUSES[code as keyof typeof ENTITY_STATUSES]?.description ??
      code,
    comment: period.comment ?? null,
  };
}

/**
 * The entity's status periods, the current one last, carrying `note`: the reason and comment of the
 * request that set the present status, if one did.
 */
export function statusPeriods(
  entity: Entity,
  records: readonly EndedRecord[],
  note: StatusNote = NO_STATUS_NOTE,
): StatusPeriod[] {
  const ended = endedOf<StatusPeriod>(records, 'entity-statuses').map(statusPeriod);
  const current = (code: string, startDate: string): StatusPeriod =>
    statusPeriod({ entityStatusCode: code, startDate, endDate: null, ...note });
  if (ended.length === 0 && entity.entityStatusCode !== '50') {
    return [
      statusPeriod({
        entityStatusCode: '50',
        startDate: entity.registrationDate,
        endDate: entity.lastUpdatedDate,
      }),
      current(entity.entityStatusCode, entity.lastUpdatedDate),
    ];
  }
  return [...ended, current(entity.entityStatusCode, currentStart(ended, entity))];
}

export function entityHistory(
  entity: Entity,
  records: readonly EndedRecord[],
  authorised: boolean,
  note: StatusNote = NO_STATUS_NOTE,
): EntityHistory {
  const privacy = entity.privacySettings;
  const names = endedOf<EntityNamePeriod>(records, 'entity-names');
  const hibernation = endedOf<HibernationPeriod>(records, 'hibernation-statuses');
  const current = currentHibernation(entity, records);
  const byStart = <T extends { startDate: string | null }>(items: T[]) =>
    items.sort((a, b) => (a.startDate ?? '').localeCompare(b.startDate ?? ''));
  const addresses = byStart([...endedOf<Address>(records, 'addresses'), ...entity.addresses.addressList]);
  const tradingNames = byStart([...endedOf<TradingName>(records, 'trading-names'), ...entity.tradingNames]);
  return {
    addresses: authorised ? addresses : addresses.filter((address) => !isPrivateAddress(privacy, address)),
    entityNames: [
      ...names,
      { entityName: entity.entityName, startDate: currentStart(names, entity), endDate: null },
    ],
    tradingNames: !authorised && privacy.tradingNamePrivateInformation ? [] : tradingNames,
    tradingAreas: byStart([...endedOf<TradingArea>(records, 'trading-areas'), ...entity.tradingAreas]),
    entityStatuses: statusPeriods(entity, records, note),
    hibernationStatuses: [...hibernation, ...(current ? [current] : [])],
  };
}

/**
 * The entity's present hibernation period (null when it is not hibernating): from the end of the last
 * ended one (`records`, its hibernation history), else from its registration.
 */
export function currentHibernation(
  entity: Entity,
  records: readonly EndedRecord[],
): HibernationPeriod | null {
  const code = entity.hibernationStatusCode as HibernationStatusCode | null;
  if (!code) return null;
  return {
    hibernationStatusCode: code,
    hibernationStatusDescription: HIBERNATION_STATUSES[code],
    startDate: currentStart(endedOf<HibernationPeriod>(records, 'hibernation-statuses'), entity),
    endDate: null,
  };
}

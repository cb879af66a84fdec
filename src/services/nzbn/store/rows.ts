/**
 * An entity as a row of `nzbn_entities`: the published representation as a JSON document (the whole
 * record, private items included, in the published key order) beside the typed columns that search,
 * filters and conditional requests use. The seed (COPY) and every update build rows here, so the two
 * always agree.
 */
import { createHash } from 'node:crypto';
import { arrayLiteral, copyLine } from '../../../platform/db/copy-text.ts';
import { parseNzDateTime } from '../../../platform/nz-time.ts';
import { hidesItems, publicView, setPrivacyFlags } from '../domain/privacy.ts';
import type { Entity } from '../domain/schema.ts';
import { searchableText, sortName } from '../domain/search-text.ts';

export type EntityOrigin = 'generated' | 'fixture' | 'registered';

export interface EntityRow {
  nzbn: string;
  seedIndex: number | null;
  origin: EntityOrigin;
  entityName: string;
  sortName: string;
  statusCode: string;
  typeCode: string;
  /** ISO 8601 in UTC, for timestamptz columns. */
  registrationDate: string;
  sourceRegisterUniqueId: string | null;
  industryCodes: string[];
  /** Public trading names (private ones are neither listed in search nor searchable). */
  tradingNames: string[];
  previousNames: string[];
  searchText: string;
  privateFlags: string[];
  hidesItems: boolean;
  lastUpdated: string;
  /** Null for a generated entity whose document is not stored (see below). */
  etag: string | null;
  version: number;
  document: string | null;
}

export interface RowExtras {
  seedIndex?: number | null;
  origin: EntityOrigin;
  previousNames?: readonly string[];
  version?: number;
  /**
   * False for a generated entity as generated: its document is not stored but generated again from
   * (seed, index) when read, which keeps a national-scale seed to the columns (see README).
   */
  storeDocument?: boolean;
}

/** Entity dates are written in New Zealand time with an offset; columns hold the instant. */
export function instant(nzDateTime: string): string {
  const epoch = parseNzDateTime(nzDateTime);
  if (epoch === null) throw new RangeError(`not a register date-time: ${nzDateTime}`);
  return new Date(epoch).toISOString();
}

/** The stored version's identity: a hash of the whole record (the ETag header adds the view). */
export function documentEtag(document: string): string {
  return createHash('sha256').update(document).digest('base64url').slice(0, 27);
}

export function toEntityRow(entity: Entity, extras: RowExtras): EntityRow {
  const document = extras.storeDocument === false ? null : JSON.stringify(entity);
  const visible = publicView(entity);
  const previousNames = [...(extras.previousNames ?? [])];
  const tradingNames = visible.tradingNames.filter((item) => item.endDate === null).map((item) => item.name);
  return {
    nzbn: entity.nzbn,
    seedIndex: extras.seedIndex ?? null,
    origin: extras.origin,
    entityName: entity.entityName,
    sortName: sortName(entity.entityName),
    statusCode: entity.entityStatusCode,
    typeCode: entity.entityTypeCode,
    registrationDate: instant(entity.registrationDate),
    sourceRegisterUniqueId: entity.sourceRegisterUniqueIdentifier,
    industryCodes: visible.industryClassifications.map((item) => item.classificationCode),
    tradingNames,
    previousNames,
    searchText: searchableText({
      entityName: entity.entityName,
      tradingNames,
      previousNames,
      sourceRegisterUniqueIdentifier: entity.sourceRegisterUniqueIdentifier,
      nzbn: entity.nzbn,
    }),
    privateFlags: setPrivacyFlags(entity.privacySettings),
    hidesItems: hidesItems(entity),
    lastUpdated: instant(entity.lastUpdatedDate),
    etag: document === null ? null : documentEtag(document),
    version: extras.version ?? 1,
    document,
  };
}

/** Column order of ENTITY_COLUMNS, shared by COPY and INSERT … SELECT. */
export const ENTITY_COLUMNS = [
  'nzbn',
  'seed_index',
  'origin',
  'entity_name',
  'sort_name',
  'status_code',
  'type_code',
  'registration_date',
  'source_register_unique_id',
  'industry_codes',
  'trading_names',
  'previous_names',
  'search_text',
  'private_flags',
  'hides_items',
  'last_updated',
  'etag',
  'version',
  'document',
] as const;

/** The row's values in ENTITY_COLUMNS order, arrays as array literals (for COPY and parameters). */
export function entityRowValues(row: EntityRow): (string | number | boolean | null)[] {
  return [
    row.nzbn,
    row.seedIndex,
    row.origin,
    row.entityName,
    row.sortName,
    row.statusCode,
    row.typeCode,
    row.registrationDate,
    row.sourceRegisterUniqueId,
    arrayLiteral(row.industryCodes),
    arrayLiteral(row.tradingNames),
    arrayLiteral(row.previousNames),
    row.searchText,
    arrayLiteral(row.privateFlags),
    row.hidesItems,
    row.lastUpdated,
    row.etag,
    row.version,
    row.document,
  ];
}

export const entityCopyLine = (row: EntityRow): string => copyLine(entityRowValues(row));

/** The columns of `nzbn_entity_history` a COPY of ended entity names fills (entityNameHistoryLine). */
export const HISTORY_COPY_COLUMNS = 'nzbn, kind, item, start_date, end_date';

/** An ended entity name, as GET /entities/{nzbn}/history/entity-names lists it: a COPY line. */
export function entityNameHistoryLine(
  nzbn: string,
  name: string,
  startDate: string,
  endDate: string,
): string {
  const item = JSON.stringify({ entityName: name, startDate, endDate });
  return copyLine([nzbn, 'entity-names', item, instant(startDate), instant(endDate)]);
}

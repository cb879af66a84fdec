/**
 * The register's import and export (transfer/): all their SQL. Exports read entities in business-number
 * order a page at a time, with their ended history periods and organisation parts; imports write on the
 * framework's connection, inside its transaction: new entities by COPY, a changed one as a new version
 * (the replaced document kept, as `updateEntity` keeps it), and one notice that empties every process's
 * entity cache when the transaction commits.
 */
import type pg from 'pg';
import { copyLine, copyText } from '../../../platform/db/copy-text.ts';
import type { OrganisationPart } from '../domain/organisation-part.ts';
import { type ChangeEvent, recordChange } from './changes.ts';
import type { DocumentSource } from './document-source.ts';
import { ENTITY_RECORD_COLUMNS, type EntityRecord, type StoredEntity, toStored } from './entities.ts';
import { ENTITY_CHANNEL } from './entity-cache.ts';
import { PART_COPY_COLUMNS, partCopyLine, replacePart } from './org-parts.ts';
import {
  ENTITY_COLUMNS,
  type EntityOrigin,
  type EntityRow,
  entityRowValues,
  HISTORY_COPY_COLUMNS,
} from './rows.ts';

type Client = Pick<pg.PoolClient, 'query'>;

/** An ended period of an item, as `nzbn_entity_history` keeps it (dates as instants). */
export interface HistoryRow {
  kind: string;
  /** The item's JSON text, as stored. */
  item: string;
  startDate: Date | null;
  endDate: Date;
}

export interface EntityTransferRow {
  stored: StoredEntity;
  origin: EntityOrigin;
  seedIndex: number | null;
  history: HistoryRow[];
  parts: { document: string; version: number }[];
}

const ENTITY_RECORD_COLUMNS_OF_E = `${ENTITY_RECORD_COLUMNS.split(', ')
  .map((column) => `e.${column}`)
  .join(', ')}, e.origin`;

type TransferRecord = EntityRecord & { origin: EntityOrigin };

async function withParts(
  client: Client,
  records: TransferRecord[],
  documents: DocumentSource,
): Promise<EntityTransferRow[]> {
  const nzbns = records.map((row) => row.nzbn);
  const [history, parts] = await Promise.all([
    client.query<HistoryRow & { nzbn: string }>(
      `SELECT nzbn, kind, item::text AS item, start_date AS "startDate", end_date AS "endDate"
         FROM nzbn_entity_history WHERE nzbn = ANY($1::text[]) ORDER BY nzbn, id`,
      [nzbns],
    ),
    client.query<{ parent_nzbn: string; document: string; version: number }>(
      `SELECT parent_nzbn, document::text AS document, version FROM nzbn_organisation_parts
        WHERE parent_nzbn = ANY($1::text[]) ORDER BY parent_nzbn, opn`,
      [nzbns],
    ),
  ]);
  const byEntity = new Map<string, EntityTransferRow>(
    records.map((row) => [
      row.nzbn,
      {
        stored: toStored(row, documents),
        origin: row.origin,
        seedIndex: row.seed_index,
        history: [],
        parts: [],
      },
    ]),
  );
  for (const row of history.rows) byEntity.get(row.nzbn)!.history.push(row);
  for (const row of parts.rows) byEntity.get(row.parent_nzbn)!.parts.push(row);
  return [...byEntity.values()];
}

/** Entities after `after` (by business number), at most `limit`, with their history and parts. */
export async function entitiesAfter(
  client: Client,
  documents: DocumentSource,
  after: string,
  limit: number,
): Promise<EntityTransferRow[]> {
  const result = await client.query<TransferRecord>(
    `SELECT ${ENTITY_RECORD_COLUMNS_OF_E} FROM nzbn_entities e WHERE e.nzbn > $1 ORDER BY e.nzbn LIMIT $2`,
    [after, limit],
  );
  return withParts(client, result.rows, documents);
}

/** The entities of these numbers the register holds, locked for the import, with history and parts. */
export async function entitiesNamed(
  client: Client,
  documents: DocumentSource,
  nzbns: readonly string[],
): Promise<EntityTransferRow[]> {
  const result = await client.query<TransferRecord>(
    `SELECT ${ENTITY_RECORD_COLUMNS_OF_E} FROM nzbn_entities e WHERE e.nzbn = ANY($1::text[]) FOR UPDATE`,
    [nzbns],
  );
  return withParts(client, result.rows, documents);
}

const historyLine = (nzbn: string, h: HistoryRow) =>
  copyLine([nzbn, h.kind, h.item, h.startDate?.toISOString() ?? null, h.endDate.toISOString()]);

/** New entities with their history and organisation parts, by COPY. */
export async function insertEntities(
  client: pg.PoolClient,
  entities: readonly { row: EntityRow; history: readonly HistoryRow[]; parts: readonly OrganisationPart[] }[],
): Promise<void> {
  if (entities.length === 0) return;
  await copyText(
    client,
    `COPY nzbn_entities (${ENTITY_COLUMNS.join(', ')}) FROM STDIN`,
    entities.map((e) => copyLine(entityRowValues(e.row))),
  );
  const history = entities.flatMap((e) => e.history.map((h) => historyLine(e.row.nzbn, h)));
  if (history.length > 0)
    await copyText(client, `COPY nzbn_entity_history (${HISTORY_COPY_COLUMNS}) FROM STDIN`, history);
  const parts = entities.flatMap((e) =>
    e.parts.map((part) => partCopyLine(part, new Date(e.row.lastUpdated))),
  );
  if (parts.length > 0)
    await copyText(client, `COPY nzbn_organisation_parts (${PART_COPY_COLUMNS}) FROM STDIN`, parts);
}

/**
 * A changed entity: the replaced document kept as its version, the row written as `row` (its version
 * the next), the history periods and parts the register does not hold yet added, changed parts replaced.
 */
export async function replaceEntity(
  client: pg.PoolClient,
  before: EntityTransferRow,
  row: EntityRow,
  history: readonly HistoryRow[],
  parts: readonly OrganisationPart[],
  now: Date,
): Promise<void> {
  if (row.document !== before.stored.document) {
    await client.query(
      'INSERT INTO nzbn_entity_versions (nzbn, version, document, replaced_at) VALUES ($1, $2, $3, $4)',
      [row.nzbn, before.stored.version, before.stored.document, now],
    );
  }
  const assignments = ENTITY_COLUMNS.slice(1)
    .map((column, i) => `${column} = $${i + 2}`)
    .join(', ');
  await client.query(`UPDATE nzbn_entities SET ${assignments} WHERE nzbn = $1`, entityRowValues(row));
  const held = new Set(before.history.map((h) => `${h.kind}\u0000${h.item}`));
  const added = history.filter((h) => !held.has(`${h.kind}\u0000${h.item}`));
  if (added.length > 0) {
    await copyText(
      client,
      `COPY nzbn_entity_history (${HISTORY_COPY_COLUMNS}) FROM STDIN`,
      added.map((h) => historyLine(row.nzbn, h)),
    );
  }
  const heldParts = new Map(before.parts.map((p) => [(JSON.parse(p.document) as OrganisationPart).opn, p]));
  const fresh: OrganisationPart[] = [];
  for (const part of parts) {
    const held = heldParts.get(part.opn);
    if (!held) fresh.push(part);
    else if (held.document !== JSON.stringify(part)) await replacePart(client, part, held.version, now);
  }
  if (fresh.length > 0) {
    await copyText(
      client,
      `COPY nzbn_organisation_parts (${PART_COPY_COLUMNS}) FROM STDIN`,
      fresh.map((part) => partCopyLine(part, now)),
    );
  }
}

/** Change events of an import (`--emit-changes`), in its transaction. */
export async function recordChanges(client: pg.PoolClient, events: readonly ChangeEvent[]): Promise<void> {
  for (const event of events) await recordChange(client, event);
}

/** Every process's entity cache forgets everything when the import's transaction commits. */
export async function forgetCachedEntities(client: Client): Promise<void> {
  await client.query('SELECT pg_notify($1, $2)', [ENTITY_CHANNEL, 'import']);
}

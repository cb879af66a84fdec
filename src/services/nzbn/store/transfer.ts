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
import type { DocumentRow } from './documents.ts';
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

/** A filing made through the API (NZBN_905) with its document's row, as the register keeps them. */
export interface FilingTransferRow extends DocumentRow {
  filingId: string;
  filingCode: string;
  registrationDate: Date;
  submissionDate: Date;
  effectiveDate: Date;
  filedBy: string;
}

export interface EntityTransferRow {
  stored: StoredEntity;
  origin: EntityOrigin;
  seedIndex: number | null;
  history: HistoryRow[];
  parts: { document: string; version: number }[];
  filings: FilingTransferRow[];
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
  if (records.length === 0) return [];
  const nzbns = records.map((row) => row.nzbn);
  // One after another: `client` may be the import's connection, which runs one query at a time.
  const history = await client.query<HistoryRow & { nzbn: string }>(
    `SELECT nzbn, kind, item::text AS item, start_date AS "startDate", end_date AS "endDate"
       FROM nzbn_entity_history WHERE nzbn = ANY($1::text[]) ORDER BY nzbn, id`,
    [nzbns],
  );
  const parts = await client.query<{ parent_nzbn: string; document: string; version: number }>(
    `SELECT parent_nzbn, document::text AS document, version FROM nzbn_organisation_parts
      WHERE parent_nzbn = ANY($1::text[]) ORDER BY parent_nzbn, opn`,
    [nzbns],
  );
  const byEntity = new Map<string, EntityTransferRow>(
    records.map((row) => [
      row.nzbn,
      {
        stored: toStored(row, documents),
        origin: row.origin,
        seedIndex: row.seed_index,
        history: [],
        parts: [],
        filings: [],
      },
    ]),
  );
  for (const row of history.rows) byEntity.get(row.nzbn)!.history.push(row);
  for (const row of parts.rows) byEntity.get(row.parent_nzbn)!.parts.push(row);
  const filings = await client.query<FilingTransferRow & { nzbn: string }>(
    `SELECT f.nzbn, f.filing_id AS "filingId", f.filing_code AS "filingCode",
            f.registration_date AS "registrationDate", f.submission_date AS "submissionDate",
            f.effective_date AS "effectiveDate", f.filed_by AS "filedBy", d.document_id AS "documentId",
            d.storage_id AS "storageId", d.owner_user_id AS "ownerUserId", d.document_type AS "documentType",
            d.file_name AS "fileName", d.content_type AS "contentType", d.size_bytes::int AS "sizeBytes",
            d.sha256, d.version, d.created_at AS "createdAt", d.updated_at AS "updatedAt",
            d.filed_at AS "filedAt"
       FROM nzbn_filings f JOIN nzbn_documents d USING (document_id)
      WHERE f.nzbn = ANY($1::text[]) ORDER BY f.nzbn, f.registration_date, f.filing_id`,
    [nzbns],
  );
  for (const { nzbn, ...row } of filings.rows) byEntity.get(nzbn)!.filings.push(row);
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

/** The ids among these that are a filing's or a document's already (each: what holds it). */
export async function heldFilingIds(
  client: Client,
  filingIds: readonly string[],
  documentIds: readonly string[],
): Promise<Map<string, string>> {
  const { rows } = await client.query<{ id: string; holder: string }>(
    `SELECT filing_id AS id, 'entity ' || nzbn AS holder FROM nzbn_filings WHERE filing_id = ANY($1::text[])
     UNION ALL
     SELECT document_id, coalesce((SELECT 'entity ' || f.nzbn FROM nzbn_filings f
                                    WHERE f.document_id = d.document_id), 'an unfiled upload')
       FROM nzbn_documents d WHERE document_id = ANY($2::text[])`,
    [filingIds, documentIds],
  );
  return new Map(rows.map((r) => [r.id, r.holder]));
}

/** New filings of entities with their documents' rows (their bytes already in the document store). */
export async function insertFilings(
  client: Client,
  filings: readonly (FilingTransferRow & { nzbn: string })[],
): Promise<void> {
  if (filings.length === 0) return;
  const rows = JSON.stringify(filings);
  await client.query(
    `INSERT INTO nzbn_documents (document_id, storage_id, owner_user_id, document_type, file_name,
       content_type, size_bytes, sha256, version, created_at, updated_at, filed_at)
     SELECT d."documentId", d."storageId", d."ownerUserId", d."documentType", d."fileName", d."contentType",
            d."sizeBytes", d.sha256, d.version, d."createdAt", d."updatedAt", d."filedAt"
       FROM json_to_recordset($1::json) AS d("documentId" text, "storageId" text, "ownerUserId" text,
         "documentType" text, "fileName" text, "contentType" text, "sizeBytes" bigint, sha256 text,
         version integer, "createdAt" timestamptz, "updatedAt" timestamptz, "filedAt" timestamptz)`,
    [rows],
  );
  await client.query(
    `INSERT INTO nzbn_filings (filing_id, nzbn, filing_code, registration_date, submission_date,
       effective_date, document_id, filed_by)
     SELECT f."filingId", f.nzbn, f."filingCode", f."registrationDate", f."submissionDate",
            f."effectiveDate", f."documentId", f."filedBy"
       FROM json_to_recordset($1::json) AS f("filingId" text, nzbn text, "filingCode" text,
         "registrationDate" timestamptz, "submissionDate" timestamptz, "effectiveDate" timestamptz,
         "documentId" text, "filedBy" text)`,
    [rows],
  );
  // Filing ids are the register's item numbers: the numbering moves past the imported ones.
  const highest = filings.reduce((max, f) => (BigInt(f.filingId) > max ? BigInt(f.filingId) : max), 0n);
  await client.query(
    "SELECT setval('nzbn_item_id_seq', GREATEST((SELECT last_value FROM nzbn_item_id_seq), $1::bigint))",
    [highest.toString()],
  );
}

/** Change events of an import (`--emit-changes`), in its transaction. */
export async function recordChanges(client: pg.PoolClient, events: readonly ChangeEvent[]): Promise<void> {
  for (const event of events) await recordChange(client, event);
}

/** Every process's entity cache forgets everything when the import's transaction commits. */
export async function forgetCachedEntities(client: Client): Promise<void> {
  await client.query('SELECT pg_notify($1, $2)', [ENTITY_CHANNEL, 'import']);
}

/**
 * Reading entities: one indexed lookup by business number returns the stored version's validators and
 * the document as text, so a read can answer 304 or send the document without parsing it. A generated
 * entity unchanged since the seed has no stored document: its row's is made by the caller's
 * `DocumentSource` (document-source.ts), which the service wires at start.
 */
import type pg from 'pg';
import type { Entity } from '../domain/schema.ts';
import type { DocumentSource } from './document-source.ts';

type Queryable = pg.Pool | pg.PoolClient;

export interface StoredEntity {
  nzbn: string;
  /** Hash of the stored document (the authorised view's ETag; the public view adds `-p` when it differs). */
  etag: string;
  version: number;
  lastUpdated: Date;
  /** Some present item is private: the public view differs from the stored document. */
  hidesItems: boolean;
  previousNames: string[];
  /** The published representation, whole, as stored. */
  document: string;
}

export interface EntityRecord {
  nzbn: string;
  seed_index: number | null;
  etag: string | null;
  version: number;
  last_updated: Date;
  hides_items: boolean;
  previous_names: string[];
  document: string | null;
}

export const ENTITY_RECORD_COLUMNS =
  'nzbn, seed_index, etag, version, last_updated, hides_items, previous_names, document::text AS document';

/** A row whose document is not stored gets the generated one, from `documents`. */
export function toStored(row: EntityRecord, documents: DocumentSource): StoredEntity {
  const made = row.document === null ? documents.version(row.seed_index!) : undefined;
  return {
    nzbn: row.nzbn,
    etag: made?.etag ?? row.etag!,
    version: row.version,
    lastUpdated: row.last_updated,
    hidesItems: row.hides_items,
    previousNames: row.previous_names,
    document: made?.document ?? row.document!,
  };
}

export async function findEntity(
  db: Queryable,
  documents: DocumentSource,
  nzbn: string,
): Promise<StoredEntity | undefined> {
  const result = await db.query<EntityRecord>({
    name: 'nzbn-find-entity',
    text: `SELECT ${ENTITY_RECORD_COLUMNS} FROM nzbn_entities WHERE nzbn = $1`,
    values: [nzbn],
  });
  return result.rows[0] && toStored(result.rows[0], documents);
}

/** Several entities by number, in no particular order (missing numbers are left out). */
export async function findEntities(
  db: Queryable,
  documents: DocumentSource,
  nzbns: readonly string[],
): Promise<StoredEntity[]> {
  if (nzbns.length === 0) return [];
  const result = await db.query<EntityRecord>(
    `SELECT ${ENTITY_RECORD_COLUMNS} FROM nzbn_entities WHERE nzbn = ANY($1)`,
    [nzbns],
  );
  return result.rows.map((row) => toStored(row, documents));
}

/**
 * The stored version of a generated entity that has not changed since the seed, made from `documents`
 * alone: the row the seed wrote for it holds nothing the generator does not make again (version 1, its
 * `hides_items`, `last_updated` and `previous_names` from the same entity; reads never look at the
 * previous names, so they are made only if asked for). Only for an index that entity-cache.ts knows to be
 * seeded and unchanged.
 */
export function unchangedGeneratedEntity(
  documents: DocumentSource,
  nzbn: string,
  index: number,
): StoredEntity {
  const made = documents.version(index);
  let previousNames: string[] | undefined;
  return {
    nzbn,
    etag: made.etag,
    version: 1,
    lastUpdated: new Date(made.lastUpdatedMs),
    hidesItems: made.hidesItems,
    get previousNames() {
      previousNames ??= documents.previousNames(index);
      return previousNames;
    },
    document: made.document,
  };
}

export const parseEntity = (stored: StoredEntity): Entity => JSON.parse(stored.document) as Entity;

/** Ended periods of one history kind (addresses, entity-names …), oldest first. */
export async function historyItems(
  db: Queryable,
  nzbn: string,
  kind?: string,
): Promise<{ kind: string; item: unknown }[]> {
  const result = await db.query<{ kind: string; item: unknown }>(
    `SELECT kind, item FROM nzbn_entity_history WHERE nzbn = $1 AND ($2::text IS NULL OR kind = $2)
      ORDER BY kind, start_date NULLS FIRST, end_date, id`,
    [nzbn, kind ?? null],
  );
  return result.rows;
}

/** The reason code and comment the request that set the entity's present status gave (migration 008). */
export async function statusNoteOf(
  db: Queryable,
  nzbn: string,
): Promise<{ statusReasonCode: string | null; comment: string | null } | undefined> {
  const result = await db.query<{ status_reason_code: string | null; comment: string | null }>(
    'SELECT status_reason_code, comment FROM nzbn_entity_status_notes WHERE nzbn = $1',
    [nzbn],
  );
  const row = result.rows[0];
  return row && { statusReasonCode: row.status_reason_code, comment: row.comment };
}

/** Keeps what a status request said of the status it set, in its transaction. */
export async function keepStatusNote(
  client: pg.PoolClient,
  nzbn: string,
  note: { statusReasonCode: string | null; comment: string | null },
): Promise<void> {
  await client.query(
    `INSERT INTO nzbn_entity_status_notes (nzbn, status_reason_code, comment) VALUES ($1, $2, $3)
     ON CONFLICT (nzbn) DO UPDATE SET status_reason_code = EXCLUDED.status_reason_code, comment = EXCLUDED.comment`,
    [nzbn, note.statusReasonCode, note.comment],
  );
}

/** The entity type code of each business number the register holds (others are left out). */
export async function entityTypesOf(db: Queryable, nzbns: readonly string[]): Promise<Map<string, string>> {
  if (nzbns.length === 0) return new Map();
  const result = await db.query<{ nzbn: string; type_code: string }>(
    'SELECT nzbn, type_code FROM nzbn_entities WHERE nzbn = ANY($1::text[])',
    [nzbns],
  );
  return new Map(result.rows.map((row) => [row.nzbn, row.type_code]));
}

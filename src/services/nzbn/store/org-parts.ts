/**
 * Organisation parts in SQL: create (telling the caller the fee for a part beyond the entity's second),
 * read, list, search with the visibility rule applied in the query (approved access requests,
 * store/org-part-access.ts, included), replace, and number allocation.
 * Writers hold the parent entity's row lock, so counting the parts for the fee cannot race.
 */
import type pg from 'pg';
import { arrayLiteral, copyLine } from '../../../platform/db/copy-text.ts';
import { withTransaction } from '../../../platform/db/pool.ts';
import { withCheckDigit } from '../../../platform/gs1.ts';
import { organisationPartFee } from '../domain/fees.ts';
import {
  type OrganisationPart,
  type OrganisationPartPrivacy,
  sharedWith,
} from '../domain/organisation-part.ts';
import { documentEtag } from './rows.ts';

type Queryable = pg.Pool | pg.PoolClient;

export interface StoredPart {
  part: OrganisationPart;
  etag: string;
  version: number;
  lastUpdated: Date;
}

interface PartRow {
  document: OrganisationPart;
  etag: string;
  version: number;
  last_updated: Date;
}

const PART_COLUMNS = 'document, etag, version, last_updated';
const stored = (row: PartRow): StoredPart => ({
  part: row.document,
  etag: row.etag,
  version: row.version,
  lastUpdated: row.last_updated,
});

function partValues(part: OrganisationPart) {
  const document = JSON.stringify(part);
  return {
    document,
    etag: documentEtag(document),
    values: [
      part.opn,
      part.parentNzbn,
      part.parentGln,
      part.name,
      part.function,
      part.organisationPartStatus,
      part.privacy,
      sharedWith(part),
    ],
  };
}

/** The columns a part's COPY line fills, in its order (`partCopyLine`). */
export const PART_COPY_COLUMNS =
  'opn, parent_nzbn, parent_gln, name, function, status, privacy, nzbn_list, last_updated, etag, document';

/** A part as a COPY line of `nzbn_organisation_parts` (the seed's generated parts), last updated then. */
export function partCopyLine(part: OrganisationPart, lastUpdated: Date): string {
  const { document, etag, values } = partValues(part);
  const fields = values.map((value) => (Array.isArray(value) ? arrayLiteral(value) : value));
  return copyLine([...fields, lastUpdated.toISOString(), etag, document]);
}

/**
 * Inserts a new part. Returns its ETag and the fee code when the entity already had two or more parts;
 * the route charges it through `context.fees` in this transaction (the seed charges nobody).
 */
export async function insertPart(
  client: pg.PoolClient,
  part: OrganisationPart,
  now: Date,
): Promise<{ fee: ReturnType<typeof organisationPartFee>; etag: string }> {
  const existing = await partCount(client, part.parentNzbn);
  const { document, etag, values } = partValues(part);
  await client.query(
    `INSERT INTO nzbn_organisation_parts
       (opn, parent_nzbn, parent_gln, name, function, status, privacy, nzbn_list, last_updated, etag, document)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
    [...values, now, etag, document],
  );
  await client.query('UPDATE nzbn_opn_allocations SET used_at = $2 WHERE opn = $1', [part.opn, now]);
  const fee = organisationPartFee(existing);
  return { fee, etag };
}

/** How many parts (active or not) the entity has. */
export async function partCount(db: Queryable, nzbn: string): Promise<number> {
  const result = await db.query<{ parts: number }>(
    'SELECT count(*)::int AS parts FROM nzbn_organisation_parts WHERE parent_nzbn = $1',
    [nzbn],
  );
  return result.rows[0]!.parts;
}

export async function replacePart(
  client: pg.PoolClient,
  part: OrganisationPart,
  version: number,
  now: Date,
): Promise<StoredPart> {
  const { document, etag, values } = partValues(part);
  await client.query(
    `UPDATE nzbn_organisation_parts SET parent_gln = $3, name = $4, function = $5, status = $6, privacy = $7,
       nzbn_list = $8, last_updated = $9, etag = $10, document = $11, version = $12
     WHERE opn = $1 AND parent_nzbn = $2`,
    [...values, now, etag, document, version + 1],
  );
  return { part, etag, version: version + 1, lastUpdated: now };
}

export async function findPart(db: Queryable, opn: string, lock = false): Promise<StoredPart | undefined> {
  const result = await db.query<PartRow>(
    `SELECT ${PART_COLUMNS} FROM nzbn_organisation_parts WHERE opn = $1${lock ? ' FOR UPDATE' : ''}`,
    [opn],
  );
  return result.rows[0] && stored(result.rows[0]);
}

export async function partsOf(db: Queryable, nzbn: string): Promise<StoredPart[]> {
  const result = await db.query<PartRow>(
    `SELECT ${PART_COLUMNS} FROM nzbn_organisation_parts WHERE parent_nzbn = $1 ORDER BY opn`,
    [nzbn],
  );
  return result.rows.map(stored);
}

/** The published search of organisation parts (GET /entities/organisation-parts), read and checked. */
export interface PartFilters {
  /** Matched within the part's name (any case), or the whole part number. */
  searchTerm: string;
  function?: string | undefined;
  parentNzbn?: string | undefined;
  /** Matched within the parent entity's name (any case). */
  parentNzbnName?: string | undefined;
  parentGlns?: readonly string[] | undefined;
  purposes?: readonly string[] | undefined;
  status?: string | undefined;
}

const likePattern = (text: string) => `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * Parts matching the filters that a caller acting for `mine` may see (domain/organisation-part.ts
 * `partVisibleTo`, approved access requests included), by name.
 */
export async function searchParts(
  db: Queryable,
  filters: PartFilters,
  mine: readonly string[],
  page: { limit: number; offset: number },
): Promise<{ total: number; parts: OrganisationPart[] }> {
  const where = `(lower(name) LIKE $1 OR opn = $2) AND ($3::text IS NULL OR function = $3)
    AND ($4::text IS NULL OR parent_nzbn = $4)
    AND ($5::text IS NULL OR lower(document->>'parentNzbnName') LIKE $5)
    AND ($6::text[] IS NULL OR parent_gln = ANY($6))
    AND ($7::text[] IS NULL OR EXISTS (SELECT 1 FROM json_array_elements(document->'purposes') p
                                        WHERE p->>'purpose' = ANY($7)))
    AND ($8::text IS NULL OR status = $8)
    AND (privacy = 'PUBLIC' OR parent_nzbn = ANY($9) OR (privacy = 'SHARED' AND nzbn_list && $9)
         OR opn IN (SELECT a.opn FROM nzbn_part_access_requests a
                     WHERE a.status = 'APPROVED' AND a.requesting_nzbn = ANY($9)))`;
  const params = [
    likePattern(filters.searchTerm),
    filters.searchTerm.trim(),
    filters.function ?? null,
    filters.parentNzbn ?? null,
    filters.parentNzbnName ? likePattern(filters.parentNzbnName) : null,
    filters.parentGlns ?? null,
    filters.purposes ?? null,
    filters.status ?? null,
    mine,
  ];
  const [count, rows] = await Promise.all([
    db.query<{ total: number }>(
      `SELECT count(*)::int AS total FROM nzbn_organisation_parts WHERE ${where}`,
      params,
    ),
    db.query<{ document: OrganisationPart }>(
      `SELECT document FROM nzbn_organisation_parts WHERE ${where} ORDER BY name, opn LIMIT $10 OFFSET $11`,
      [...params, page.limit, page.offset],
    ),
  ]);
  return { total: count.rows[0]!.total, parts: rows.rows.map((row) => row.document) };
}

/** How many organisation part numbers the entity holds (its parts, and numbers reserved before). */
export async function partNumbersOf(db: Queryable, nzbn: string): Promise<number> {
  const result = await db.query<{ held: number }>(
    `SELECT count(*)::int AS held FROM (
       SELECT opn FROM nzbn_organisation_parts WHERE parent_nzbn = $1
       UNION SELECT opn FROM nzbn_opn_allocations WHERE nzbn = $1 AND used_at IS NULL) numbers`,
    [nzbn],
  );
  return result.rows[0]!.held;
}

/** A new organisation part number, reserved for the entity. */
export async function allocateOpn(client: Queryable, nzbn: string, now: Date): Promise<string> {
  const body = await client.query<{ body: string }>("SELECT nextval('nzbn_opn_body_seq')::text AS body");
  const opn = withCheckDigit(`9429${body.rows[0]!.body.padStart(8, '0')}`);
  await client.query('INSERT INTO nzbn_opn_allocations (opn, nzbn, allocated_at) VALUES ($1, $2, $3)', [
    opn,
    nzbn,
    now,
  ]);
  return opn;
}

export type { OrganisationPartPrivacy };

/**
 * Runs `work` in a transaction holding the entity's row lock (so part counts for fees cannot race);
 * undefined when there is no such entity.
 */
export async function withEntityLocked<T>(
  pool: pg.Pool,
  nzbn: string,
  work: (client: pg.PoolClient, parent: LockedEntity) => Promise<T>,
): Promise<T | undefined> {
  return withTransaction(pool, async (client) => {
    const parent = await lockEntityRow(client, nzbn);
    return parent && work(client, parent);
  });
}

/** The parent of new parts, as the entity's row lock gives it. */
export interface LockedEntity {
  nzbn: string;
  entityName: string;
  entityTypeCode: string;
}

/** Locks the entity's row in the client's transaction; undefined when there is no such entity. */
export async function lockEntityRow(client: pg.PoolClient, nzbn: string): Promise<LockedEntity | undefined> {
  const locked = await client.query<{ entity_name: string; type_code: string }>(
    'SELECT entity_name, type_code FROM nzbn_entities WHERE nzbn = $1 FOR UPDATE',
    [nzbn],
  );
  const row = locked.rows[0];
  return row && { nzbn, entityName: row.entity_name, entityTypeCode: row.type_code };
}

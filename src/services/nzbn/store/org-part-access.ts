/**
 * Requests for access to organisation parts (migration 017, `nzbn_part_access_requests`): one per part
 * and requesting entity, with its status; the parts an entity was given access to (approved requests),
 * which the reads of parts add to what a caller sees.
 */
import type pg from 'pg';
import { copyLine } from '../../../platform/db/copy-text.ts';
import { withTransaction } from '../../../platform/db/pool.ts';
import type { AccessRequestStatus } from '../domain/organisation-part-access.ts';

type Queryable = pg.Pool | pg.PoolClient;

export interface StoredAccessRequest {
  opn: string;
  /** The part's name and its entity, as the part now stands. */
  name: string;
  parentNzbn: string;
  requestingNzbn: string;
  requestingEntityName: string;
  status: AccessRequestStatus;
  requestedAt: Date;
  decidedAt: Date | null;
  updatedAt: Date;
}

interface AccessRow {
  opn: string;
  name: string;
  parent_nzbn: string;
  requesting_nzbn: string;
  requesting_entity_name: string;
  status: AccessRequestStatus;
  requested_at: Date;
  decided_at: Date | null;
  updated_at: Date;
}

const SELECT = `SELECT a.opn, p.name, p.parent_nzbn, a.requesting_nzbn, e.entity_name AS requesting_entity_name,
    a.status, a.requested_at, a.decided_at, a.updated_at
  FROM nzbn_part_access_requests a
  JOIN nzbn_organisation_parts p ON p.opn = a.opn
  JOIN nzbn_entities e ON e.nzbn = a.requesting_nzbn`;

const stored = (row: AccessRow): StoredAccessRequest => ({
  opn: row.opn,
  name: row.name,
  parentNzbn: row.parent_nzbn,
  requestingNzbn: row.requesting_nzbn,
  requestingEntityName: row.requesting_entity_name,
  status: row.status,
  requestedAt: row.requested_at,
  decidedAt: row.decided_at,
  updatedAt: row.updated_at,
});

/** The request of `requestingNzbn` for the part, locked for its change when `lock`. */
export async function findAccessRequest(
  db: Queryable,
  opn: string,
  requestingNzbn: string,
  lock = false,
): Promise<StoredAccessRequest | undefined> {
  const { rows } = await db.query<AccessRow>(
    `${SELECT} WHERE a.opn = $1 AND a.requesting_nzbn = $2${lock ? ' FOR UPDATE OF a' : ''}`,
    [opn, requestingNzbn],
  );
  return rows[0] && stored(rows[0]);
}

/**
 * The requester asks (again): in one transaction, the request's present status (undefined when there is
 * none) given to `after`, and the status it answers written; answers that status.
 */
export async function askForAccess(
  pool: pg.Pool,
  request: { opn: string; requestingNzbn: string; by: string | null; at: Date },
  after: (current: AccessRequestStatus | undefined) => AccessRequestStatus,
): Promise<AccessRequestStatus> {
  return withTransaction(pool, async (client) => {
    // The part's row lock serialises the requests for it (a first request has no row of its own to lock).
    await client.query('SELECT 1 FROM nzbn_organisation_parts WHERE opn = $1 FOR UPDATE', [request.opn]);
    const current = await client.query<{ status: AccessRequestStatus }>(
      'SELECT status FROM nzbn_part_access_requests WHERE opn = $1 AND requesting_nzbn = $2 FOR UPDATE',
      [request.opn, request.requestingNzbn],
    );
    const was = current.rows[0]?.status;
    const status = after(was);
    if (status === was) return status;
    await client.query(
      `INSERT INTO nzbn_part_access_requests (opn, requesting_nzbn, status, requested_at, requested_by, updated_at)
       VALUES ($1, $2, $3, $4, $5, $4)
       ON CONFLICT (opn, requesting_nzbn) DO UPDATE
         SET status = EXCLUDED.status, requested_at = EXCLUDED.requested_at, requested_by = EXCLUDED.requested_by,
             decided_at = NULL, decided_by = NULL, updated_at = EXCLUDED.updated_at`,
      [request.opn, request.requestingNzbn, status, request.at, request.by],
    );
    return status;
  });
}

/**
 * The owner decides: in one transaction, the request as it stands (locked) given to `decide`, which
 * checks it (throwing refuses, nothing written) and names the status; answers the request as written,
 * or undefined when the part has no request of `requestingNzbn`.
 */
export async function decideAccess(
  pool: pg.Pool,
  key: { opn: string; requestingNzbn: string },
  decision: { by: string | null; at: Date },
  decide: (current: StoredAccessRequest) => AccessRequestStatus,
): Promise<StoredAccessRequest | undefined> {
  return withTransaction(pool, async (client) => {
    const current = await findAccessRequest(client, key.opn, key.requestingNzbn, true);
    if (!current) return undefined;
    const status = decide(current);
    await client.query(
      `UPDATE nzbn_part_access_requests SET status = $3, decided_at = $4, decided_by = $5, updated_at = $4
        WHERE opn = $1 AND requesting_nzbn = $2`,
      [key.opn, key.requestingNzbn, status, decision.at, decision.by],
    );
    return { ...current, status, decidedAt: decision.at, updatedAt: decision.at };
  });
}

/** The requests for the parts of `parentNzbn`, one page of them (by request date, then part) and how many. */
export async function accessRequestsTo(
  db: Queryable,
  parentNzbn: string,
  filters: { opn?: string | undefined; status?: AccessRequestStatus | undefined },
  page: { limit: number; offset: number },
): Promise<{ total: number; items: StoredAccessRequest[] }> {
  const where = `p.parent_nzbn = $1 AND ($2::text IS NULL OR a.opn = $2) AND ($3::text IS NULL OR a.status = $3)`;
  const params = [parentNzbn, filters.opn ?? null, filters.status ?? null];
  const [count, rows] = await Promise.all([
    db.query<{ total: number }>(
      `SELECT count(*)::int AS total FROM nzbn_part_access_requests a
         JOIN nzbn_organisation_parts p ON p.opn = a.opn WHERE ${where}`,
      params,
    ),
    db.query<AccessRow>(
      `${SELECT} WHERE ${where} ORDER BY a.requested_at, a.opn, a.requesting_nzbn LIMIT $4 OFFSET $5`,
      [...params, page.limit, page.offset],
    ),
  ]);
  return { total: count.rows[0]!.total, items: rows.rows.map(stored) };
}

/** The parts the entities `nzbns` were given access to (their approved requests), each with when. */
export async function grantedParts(db: Queryable, nzbns: readonly string[]): Promise<Map<string, Date>> {
  if (nzbns.length === 0) return new Map();
  const { rows } = await db.query<{ opn: string; granted: Date }>(
    `SELECT opn, max(updated_at) AS granted FROM nzbn_part_access_requests
      WHERE status = 'APPROVED' AND requesting_nzbn = ANY($1) GROUP BY opn`,
    [nzbns],
  );
  return new Map(rows.map((row) => [row.opn, row.granted]));
}

/** A request the seed makes (sandbox/fixtures.ts), decided or not. */
export interface SeededAccessRequest {
  opn: string;
  requestingNzbn: string;
  status: AccessRequestStatus;
  requestedAt: Date;
  decidedAt: Date | null;
}

/** Inserts a seeded request unless the part already has one of that entity (a later seed changes none). */
export async function insertSeededAccessRequest(
  client: pg.PoolClient,
  request: SeededAccessRequest,
): Promise<void> {
  await client.query(
    `INSERT INTO nzbn_part_access_requests (opn, requesting_nzbn, status, requested_at, decided_at, updated_at)
     VALUES ($1, $2, $3, $4::timestamptz, $5::timestamptz, coalesce($5::timestamptz, $4::timestamptz))
     ON CONFLICT (opn, requesting_nzbn) DO NOTHING`,
    [request.opn, request.requestingNzbn, request.status, request.requestedAt, request.decidedAt],
  );
}

/** The columns a seeded request's COPY line fills, in its order (`accessRequestCopyLine`). */
export const ACCESS_REQUEST_COPY_COLUMNS =
  'opn, requesting_nzbn, status, requested_at, decided_at, updated_at';

/** A seeded request as a COPY line of `nzbn_part_access_requests` (the generated parts'). */
export function accessRequestCopyLine(request: SeededAccessRequest): string {
  const decided = request.decidedAt?.toISOString() ?? null;
  const requested = request.requestedAt.toISOString();
  return copyLine([
    request.opn,
    request.requestingNzbn,
    request.status,
    requested,
    decided,
    decided ?? requested,
  ]);
}

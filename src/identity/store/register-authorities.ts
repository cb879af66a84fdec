/**
 * The SQL of business authorities as a register publishes them (`authorities` with migration 007's
 * status, type, evidence and decision): the search, a request, a change of status, and the end of the
 * authorities a user held through a membership. Granting and the live "may act" checks are
 * store/authorities.ts.
 */
import type { ClientBase, Pool } from 'pg';
import type { Environment } from '../../services/contract.ts';
import type {
  AuthorityRequest,
  AuthoritySearch,
  AuthorityStatus,
  RegisterAuthority,
} from '../domain/register-profiles.ts';

type Db = Pool | ClientBase;

const COLUMNS = `a.id, a.object_id AS "objectId", a.user_id AS "userId", u.name AS "userName",
  u.email AS "userEmail", o.identifier AS "organisationIdentifier", o.name AS "organisationName",
  a.status, a.authority_type AS "authorityType", a.approval_type AS "approvalType",
  a.supporting_information AS "supportingInformation", a.documents, a.reason, a.comment,
  a.granted_at AS "grantedAt", a.updated_at AS "updatedAt"`;
const FROM =
  'authorities a LEFT JOIN users u ON u.id = a.user_id LEFT JOIN organisations o ON o.id = a.organisation_id';

/** After the sort asked for, ties go by what the authority is about and for whom, then its id: a page
 * of authorities granted at one instant (a seed) comes out the same in every run. */
const TIES = 'a.object_id, o.identifier NULLS FIRST, lower(u.email) NULLS FIRST, a.id';

const SORT: Record<AuthoritySearch['sortBy'], string> = {
  authorityStartDate: 'a.granted_at',
  nzbn: 'a.object_id',
  status: 'a.status',
};

/** Objects the user acts on (their own accepted authorities, or their organisations'). */
const ACTED_ON = `SELECT b.object_id FROM authorities b
  WHERE b.status = 'ACCEPTED' AND b.environment = $1 AND b.service = $2 AND b.object_kind = $3
    AND (b.user_id = $7 OR (b.user_id IS NULL AND b.organisation_id IN
         (SELECT organisation_id FROM memberships WHERE user_id = $7)))`;

export async function searchRegisterAuthorities(
  db: Db,
  scope: { environment: Environment; service: string },
  search: AuthoritySearch,
): Promise<{ total: number; items: RegisterAuthority[] }> {
  const where = `a.environment = $1 AND a.service = $2 AND a.object_kind = $3
    AND ($4::text IS NULL OR a.object_id = $4)
    AND ($5::uuid IS NULL OR a.user_id = $5)
    AND ($6::text IS NULL OR o.identifier = $6)
    AND ($7::uuid IS NULL OR a.user_id = $7
         OR a.organisation_id IN (SELECT organisation_id FROM memberships WHERE user_id = $7)
         OR a.object_id IN (${ACTED_ON}))
    AND ($8 OR a.revoked_at IS NULL)
    AND (cardinality($9::text[]) = 0 OR a.status = ANY($9::text[]))`;
  const values = [
    scope.environment,
    scope.service,
    search.kind,
    search.objectId ?? null,
    search.userId ?? null,
    search.organisationIdentifier ?? null,
    search.visibleTo,
    search.historic,
    [...search.statuses],
  ];
  const total = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM ${FROM} WHERE ${where}`,
    values,
  );
  const items = await db.query<RegisterAuthority>(
    `SELECT ${COLUMNS} FROM ${FROM} WHERE ${where}
      ORDER BY ${SORT[search.sortBy]} ${search.sortOrder}, ${TIES} LIMIT $10 OFFSET $11`,
    [...values, search.limit, search.offset],
  );
  return { total: total.rows[0]!.n, items: items.rows };
}

export async function findRegisterAuthority(
  db: Db,
  scope: { environment: Environment; service: string; kind: string },
  id: string,
  lock = false,
): Promise<RegisterAuthority | undefined> {
  const result = await db.query<RegisterAuthority>(
    `SELECT ${COLUMNS} FROM ${FROM}
      WHERE a.id = $1 AND a.environment = $2 AND a.service = $3 AND a.object_kind = $4${lock ? ' FOR UPDATE OF a' : ''}`,
    [id, scope.environment, scope.service, scope.kind],
  );
  return result.rows[0];
}

/** Records a request (or an authority granted at once); undefined when the holder has a current one. */
export async function insertAuthorityRequest(
  db: Db,
  scope: { environment: Environment; service: string },
  request: AuthorityRequest,
  at: Date,
): Promise<string | undefined> {
  const result = await db.query<{ id: string }>(
    `INSERT INTO authorities (environment, service, object_kind, object_id, user_id, organisation_id, role,
        status, authority_type, approval_type, supporting_information, documents, reason, comment, granted_by,
        granted_at, updated_at)
     SELECT $1, $2, $3, $4, $5, (SELECT id FROM organisations WHERE environment = $1 AND identifier = $6),
        'authority', $7, $8, $9, $10, $11, $12, $13, $14, $15, $15
     ON CONFLICT DO NOTHING RETURNING id`,
    [
      scope.environment,
      scope.service,
      request.kind,
      request.objectId,
      request.userId,
      request.organisationIdentifier,
      request.status,
      request.authorityType,
      request.approvalType,
      JSON.stringify(request.supportingInformation),
      JSON.stringify(request.documents),
      request.reason,
      request.comment,
      request.requestedBy,
      at,
    ],
  );
  return result.rows[0]?.id;
}

/** Moves an authority to a status (an ended one is revoked at `at`), with the decision's facts. */
export async function updateAuthorityStatus(
  db: Db,
  id: string,
  change: { status: AuthorityStatus; by: string | null; reason?: string | null; comment?: string | null },
  at: Date,
): Promise<void> {
  await db.query(
    `UPDATE authorities SET status = $2::text, updated_at = $3::timestamptz,
        revoked_at = CASE WHEN $2::text IN ('PENDING', 'ACCEPTED') THEN NULL ELSE $3::timestamptz END,
        granted_at = CASE WHEN $2::text = 'ACCEPTED' AND status = 'PENDING' THEN $3::timestamptz ELSE granted_at END,
        decided_by = COALESCE($4::uuid, decided_by),
        decided_at = CASE WHEN $4::uuid IS NULL THEN decided_at ELSE $3::timestamptz END,
        reason = COALESCE($5::text, reason), comment = COALESCE($6::text, comment)
      WHERE id = $1`,
    [id, change.status, at, change.by, change.reason ?? null, change.comment ?? null],
  );
}

/** Changes a pending request's evidence and words. */
export async function updateAuthorityEvidence(
  db: Db,
  id: string,
  evidence: { supportingInformation?: unknown[]; documents?: unknown[]; reason?: string; comment?: string },
  at: Date,
): Promise<void> {
  await db.query(
    `UPDATE authorities SET updated_at = $2::timestamptz,
        supporting_information = COALESCE($3::jsonb, supporting_information),
        documents = COALESCE($4::jsonb, documents), reason = COALESCE($5::text, reason),
        comment = COALESCE($6::text, comment)
      WHERE id = $1`,
    [
      id,
      at,
      evidence.supportingInformation ? JSON.stringify(evidence.supportingInformation) : null,
      evidence.documents ? JSON.stringify(evidence.documents) : null,
      evidence.reason ?? null,
      evidence.comment ?? null,
    ],
  );
}

/** Ends (REMOVED) the current authorities the user held for the organisation: their membership ended. */
export async function endMembershipAuthorities(
  db: Db,
  organisationId: string,
  userId: string,
  at: Date,
): Promise<number> {
  const result = await db.query(
    `UPDATE authorities SET status = 'REMOVED', revoked_at = $3, updated_at = $3
      WHERE organisation_id = $1 AND user_id = $2 AND revoked_at IS NULL`,
    [organisationId, userId, at],
  );
  return result.rowCount ?? 0;
}

/** Pending requests of every register (the operators' queue), oldest first. */
export async function pendingRegisterAuthorities(
  db: Db,
  limit: number,
): Promise<(RegisterAuthority & { environment: Environment; service: string; objectKind: string })[]> {
  const result = await db.query<
    RegisterAuthority & { environment: Environment; service: string; objectKind: string }
  >(
    `SELECT ${COLUMNS}, a.environment, a.service, a.object_kind AS "objectKind" FROM ${FROM}
      WHERE a.status = 'PENDING' ORDER BY a.updated_at, a.id LIMIT $1`,
    [limit],
  );
  return result.rows;
}

/** Locks a pending request of any register: true when there is one with this id. */
export async function lockPendingAuthority(db: Db, id: string): Promise<boolean> {
  const result = await db.query("SELECT 1 FROM authorities WHERE id = $1 AND status = 'PENDING' FOR UPDATE", [
    id,
  ]);
  return (result.rowCount ?? 0) > 0;
}

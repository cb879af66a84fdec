/**
 * The SQL of `authorities` (gateway database): who may act on a register object. Granting one (with its
 * rule) is operations/authorities.ts; the types and rules are domain/authorities.ts.
 */
import type { Pool } from 'pg';
import type { Environment } from '../../services/contract.ts';
import type { Actor, Authority, Holder, RegisterObject } from '../domain/authorities.ts';

const COLUMNS = `a.id, a.environment, a.service, a.object_kind AS "objectKind", a.object_id AS "objectId",
  a.user_id AS "userId", a.organisation_id AS "organisationId", COALESCE(u.email, o.identifier) AS "holderName",
  a.role, a.granted_at AS "grantedAt"`;
const FROM =
  'authorities a LEFT JOIN users u ON u.id = a.user_id LEFT JOIN organisations o ON o.id = a.organisation_id';

const holderIds = (holder: Holder) => ({
  userId: 'userId' in holder ? holder.userId : null,
  organisationId: 'organisationId' in holder ? holder.organisationId : null,
});

/**
 * Records the holder's authority over the object, or finds the one it holds already (not revoked):
 * its id either way.
 */
export async function insertAuthority(
  pool: Pool,
  object: RegisterObject,
  holder: Holder,
  options: { grantedBy: string | null; role: string; at: Date | null },
): Promise<string> {
  const { userId, organisationId } = holderIds(holder);
  const inserted = await pool.query<{ id: string }>(
    `INSERT INTO authorities (environment, service, object_kind, object_id, user_id, organisation_id, role, granted_by, granted_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, COALESCE($9::timestamptz, now())) ON CONFLICT DO NOTHING RETURNING id`,
    [
      object.environment,
      object.service,
      object.kind,
      object.id,
      userId,
      organisationId,
      options.role,
      options.grantedBy,
      options.at,
    ],
  );
  if (inserted.rows[0]) return inserted.rows[0].id;
  // Held already, or asked for: a request waiting for a decision is granted by this grant.
  const held = await pool.query<{ id: string }>(
    `UPDATE authorities SET status = 'ACCEPTED', updated_at = COALESCE($7::timestamptz, now()),
        granted_at = CASE WHEN status = 'PENDING' THEN COALESCE($7::timestamptz, now()) ELSE granted_at END
      WHERE revoked_at IS NULL AND environment = $1 AND service = $2 AND object_kind = $3
        AND object_id = $4 AND COALESCE(user_id, organisation_id) = COALESCE($5::uuid, $6::uuid) RETURNING id`,
    [object.environment, object.service, object.kind, object.id, userId, organisationId, options.at],
  );
  return held.rows[0]!.id;
}

export async function findAuthority(pool: Pool, id: string): Promise<Authority | undefined> {
  return (await pool.query<Authority>(`SELECT ${COLUMNS} FROM ${FROM} WHERE a.id = $1`, [id])).rows[0];
}

/** Revokes one authority over the object; true when there was one to revoke. */
export async function revokeAuthority(
  pool: Pool,
  object: RegisterObject,
  authorityId: string,
  at?: Date,
): Promise<boolean> {
  const result = await pool.query(
    `UPDATE authorities SET revoked_at = COALESCE($6::timestamptz, now()), status = 'REVOKED',
        updated_at = COALESCE($6::timestamptz, now())
      WHERE id = $5 AND status = 'ACCEPTED' AND environment = $1 AND service = $2 AND object_kind = $3 AND object_id = $4`,
    [object.environment, object.service, object.kind, object.id, authorityId, at ?? null],
  );
  return (result.rowCount ?? 0) > 0;
}

export async function listAuthorities(pool: Pool, object: RegisterObject): Promise<Authority[]> {
  const result = await pool.query<Authority>(
    `SELECT ${COLUMNS} FROM ${FROM}
      WHERE a.status = 'ACCEPTED' AND a.environment = $1 AND a.service = $2 AND a.object_kind = $3 AND a.object_id = $4
      ORDER BY a.granted_at`,
    [object.environment, object.service, object.kind, object.id],
  );
  return result.rows;
}

/**
 * Accepted authorities the actor holds: the user's own (held for an organisation too), or an
 * organisation's (the calling one, or one the user belongs to).
 */
const ACTS = `a.status = 'ACCEPTED' AND a.environment = $1 AND a.service = $2
  AND (a.user_id = $3 OR (a.user_id IS NULL AND (a.organisation_id = $4
       OR a.organisation_id IN (SELECT organisation_id FROM memberships WHERE user_id = $3))))`;

export async function mayAct(pool: Pool, object: RegisterObject, actor: Actor): Promise<boolean> {
  if (!actor.userId && !actor.organisationId) return false;
  const result = await pool.query(
    `SELECT 1 FROM authorities a WHERE ${ACTS} AND a.object_kind = $5 AND a.object_id = $6 LIMIT 1`,
    [
      object.environment,
      object.service,
      actor.userId ?? null,
      actor.organisationId ?? null,
      object.kind,
      object.id,
    ],
  );
  return (result.rowCount ?? 0) > 0;
}

/** The ids of every object of one kind the actor may act on (for private-data filters and listings). */
export async function objectsActorMayActOn(
  pool: Pool,
  scope: { environment: Environment; service: string; kind: string },
  actor: Actor,
): Promise<string[]> {
  if (!actor.userId && !actor.organisationId) return [];
  const result = await pool.query<{ id: string }>(
    `SELECT DISTINCT a.object_id AS id FROM authorities a WHERE ${ACTS} AND a.object_kind = $5 ORDER BY 1`,
    [scope.environment, scope.service, actor.userId ?? null, actor.organisationId ?? null, scope.kind],
  );
  return result.rows.map((row) => row.id);
}

/**
 * `service:kind:id` of up to `limit` objects the user may act on in the environment, held themselves
 * or by an organisation of theirs (a three-legged access token's `authorities` claim).
 */
export async function authorityClaims(
  pool: Pool,
  environment: Environment,
  userId: string,
  limit: number,
): Promise<string[]> {
  const rows = await pool.query<{ service: string; object_kind: string; object_id: string }>(
    `SELECT DISTINCT a.service, a.object_kind, a.object_id FROM authorities a
      WHERE a.status = 'ACCEPTED' AND a.environment = $1
        AND (a.user_id = $2 OR (a.user_id IS NULL
             AND a.organisation_id IN (SELECT organisation_id FROM memberships WHERE user_id = $2)))
      ORDER BY 1, 2, 3 LIMIT $3`,
    [environment, userId, limit],
  );
  return rows.rows.map((r) => `${r.service}:${r.object_kind}:${r.object_id}`);
}

import type { Pool } from 'pg';
import { RuleError } from '../platform/errors.ts';
import type { ErrorCode } from '../platform/http/error-codes.ts';
import type { Environment } from '../services/contract.ts';
import { IDENTITY_ERRORS } from './errors.ts';

/**
 * Who may act on a register object. Services ask here — never the tables — "may this caller act on
 * this object?". A user acts on an object when they hold authority over it themselves, or when an
 * organisation they belong to (in that environment) holds it, or when the calling organisation does.
 */
export interface RegisterObject {
  environment: Environment;
  service: string;
  /** e.g. `entity` (a business number), `fund`, `secured-party-group`. */
  kind: string;
  id: string;
}

export type Holder = { userId: string } | { organisationId: string };

export interface Actor {
  userId?: string | undefined;
  organisationId?: string | undefined;
}

export interface Authority {
  id: string;
  environment: Environment;
  service: string;
  objectKind: string;
  objectId: string;
  userId: string | null;
  organisationId: string | null;
  holderName: string;
  role: string;
  grantedAt: Date;
}

/** An authority rule broken: its code (`IDENTITY_ERRORS`) tells which. */
export class AuthorityError extends RuleError {
  constructor(code: ErrorCode, field: string, rule: string, message: string) {
    super(field, rule, { code, message });
  }
}

const COLUMNS = `a.id, a.environment, a.service, a.object_kind AS "objectKind", a.object_id AS "objectId",
  a.user_id AS "userId", a.organisation_id AS "organisationId", COALESCE(u.email, o.identifier) AS "holderName",
  a.role, a.granted_at AS "grantedAt"`;
const FROM =
  'authorities a LEFT JOIN users u ON u.id = a.user_id LEFT JOIN organisations o ON o.id = a.organisation_id';

export async function grantAuthority(
  pool: Pool,
  object: RegisterObject,
  holder: Holder,
  options: { grantedBy?: string; role?: string; at?: Date } = {},
): Promise<Authority> {
  const userId = 'userId' in holder ? holder.userId : null;
  const organisationId = 'organisationId' in holder ? holder.organisationId : null;
  if (organisationId) {
    const org = await pool.query<{ environment: string }>(
      'SELECT environment FROM organisations WHERE id = $1',
      [organisationId],
    );
    if (org.rows[0]?.environment !== object.environment) {
      const rule = `does not belong to the ${object.environment} environment`;
      throw new AuthorityError(
        IDENTITY_ERRORS.organisationEnvironment,
        'organisation',
        rule,
        `the organisation ${rule}`,
      );
    }
  }
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
      options.role ?? 'authority',
      options.grantedBy ?? null,
      options.at ?? null,
    ],
  );
  const id =
    inserted.rows[0]?.id ??
    (
      await pool.query<{ id: string }>(
        `SELECT id FROM authorities WHERE revoked_at IS NULL AND environment = $1 AND service = $2 AND object_kind = $3
           AND object_id = $4 AND COALESCE(user_id, organisation_id) = COALESCE($5::uuid, $6::uuid)`,
        [object.environment, object.service, object.kind, object.id, userId, organisationId],
      )
    ).rows[0]!.id;
  return (await pool.query<Authority>(`SELECT ${COLUMNS} FROM ${FROM} WHERE a.id = $1`, [id])).rows[0]!;
}

/** Revokes one authority over the object; true when there was one to revoke. */
export async function revokeAuthority(
  pool: Pool,
  object: RegisterObject,
  authorityId: string,
  at?: Date,
): Promise<boolean> {
  const result = await pool.query(
    `UPDATE authorities SET revoked_at = COALESCE($6::timestamptz, now())
      WHERE id = $5 AND revoked_at IS NULL AND environment = $1 AND service = $2 AND object_kind = $3 AND object_id = $4`,
    [object.environment, object.service, object.kind, object.id, authorityId, at ?? null],
  );
  return (result.rowCount ?? 0) > 0;
}

export async function listAuthorities(pool: Pool, object: RegisterObject): Promise<Authority[]> {
  const result = await pool.query<Authority>(
    `SELECT ${COLUMNS} FROM ${FROM}
      WHERE a.revoked_at IS NULL AND a.environment = $1 AND a.service = $2 AND a.object_kind = $3 AND a.object_id = $4
      ORDER BY a.granted_at`,
    [object.environment, object.service, object.kind, object.id],
  );
  return result.rows;
}

const ACTS = `a.revoked_at IS NULL AND a.environment = $1 AND a.service = $2
  AND (a.user_id = $3 OR a.organisation_id = $4
       OR a.organisation_id IN (SELECT organisation_id FROM memberships WHERE user_id = $3))`;

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

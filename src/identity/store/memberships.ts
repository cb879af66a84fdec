/** The SQL of `memberships` (gateway database): who belongs to which organisation, with which role. */
import type { Pool } from 'pg';
import type { Environment } from '../../services/contract.ts';
import type { MembershipRole, Organisation } from '../domain/organisations.ts';

export async function addMember(
  pool: Pool,
  organisationId: string,
  userId: string,
  role: MembershipRole,
): Promise<void> {
  await pool.query(
    `INSERT INTO memberships (organisation_id, user_id, role) VALUES ($1, $2, $3)
     ON CONFLICT (organisation_id, user_id) DO UPDATE SET role = excluded.role`,
    [organisationId, userId, role],
  );
}

/** Makes the user the owner of their own personal organisation only (checked in the statement itself). */
export async function addPersonalOwner(pool: Pool, organisationId: string, userId: string): Promise<void> {
  await pool.query(
    `INSERT INTO memberships (organisation_id, user_id, role)
     SELECT id, $2, 'owner' FROM organisations WHERE id = $1 AND personal_of = $2
     ON CONFLICT (organisation_id, user_id) DO NOTHING`,
    [organisationId, userId],
  );
}

export async function isMember(pool: Pool, organisationId: string, userId: string): Promise<boolean> {
  const result = await pool.query('SELECT 1 FROM memberships WHERE organisation_id = $1 AND user_id = $2', [
    organisationId,
    userId,
  ]);
  return (result.rowCount ?? 0) > 0;
}

export async function organisationsOf(
  pool: Pool,
  userId: string,
): Promise<(Organisation & { role: MembershipRole })[]> {
  const result = await pool.query<Organisation & { role: MembershipRole }>(
    `SELECT o.id, o.environment, o.identifier, o.name, m.role
       FROM memberships m JOIN organisations o ON o.id = m.organisation_id
      WHERE m.user_id = $1 ORDER BY o.environment, o.identifier`,
    [userId],
  );
  return result.rows;
}

const ROLE_ORDER = `CASE m.role WHEN 'owner' THEN 0 WHEN 'admin' THEN 1 ELSE 2 END`;

/**
 * The ids of the user's organisations in the environment, in billing's payer order: by role (owner,
 * admin, member), then the oldest membership.
 */
export async function organisationIdsByRole(
  pool: Pool,
  userId: string,
  environment: Environment,
): Promise<string[]> {
  const result = await pool.query<{ id: string }>(
    `SELECT o.id FROM memberships m JOIN organisations o ON o.id = m.organisation_id
      WHERE m.user_id = $1 AND o.environment = $2 ORDER BY ${ROLE_ORDER}, m.created_at, o.id`,
    [userId, environment],
  );
  return result.rows.map((row) => row.id);
}

/**
 * The id of the organisation of the environment with this identifier, when the user belongs to it
 * (the gateway's `x-organisation`); undefined otherwise, whether or not it exists.
 */
export async function memberOrganisationId(
  pool: Pool,
  environment: Environment,
  identifier: string,
  userId: string,
): Promise<string | undefined> {
  const result = await pool.query<{ id: string }>(
    `SELECT o.id FROM organisations o JOIN memberships m ON m.organisation_id = o.id
      WHERE o.environment = $1 AND o.identifier = $2 AND m.user_id = $3`,
    [environment, identifier, userId],
  );
  return result.rows[0]?.id;
}

/**
 * The SQL of `organisations` (gateway database). The rules are in domain/organisations.ts; adding one
 * and the personal sandbox organisation in operations/organisations.ts; memberships in memberships.ts.
 */
import type { Pool } from 'pg';
import type { Environment } from '../../services/contract.ts';
import type { Organisation } from '../domain/organisations.ts';

const COLUMNS = 'id, environment, identifier, name';

/** Adds an organisation; undefined when its identifier is taken in the environment. */
export async function insertOrganisation(
  pool: Pool,
  input: { environment: Environment; identifier: string; name: string },
): Promise<Organisation | undefined> {
  const result = await pool.query<Organisation>(
    `INSERT INTO organisations (environment, identifier, name) VALUES ($1, $2, $3)
     ON CONFLICT DO NOTHING RETURNING ${COLUMNS}`,
    [input.environment, input.identifier, input.name],
  );
  return result.rows[0];
}

export async function findOrganisation(
  pool: Pool,
  environment: Environment,
  identifier: string,
): Promise<Organisation | undefined> {
  const result = await pool.query<Organisation>(
    `SELECT ${COLUMNS} FROM organisations WHERE environment = $1 AND identifier = $2`,
    [environment, identifier],
  );
  return result.rows[0];
}

/** The organisation with this id in the environment (a UUID the caller checked). */
export async function findOrganisationById(
  pool: Pool,
  environment: Environment,
  organisationId: string,
): Promise<Pick<Organisation, 'id' | 'identifier' | 'name'> | undefined> {
  const found = await pool.query<{ id: string; identifier: string; name: string }>(
    'SELECT id, identifier, name FROM organisations WHERE id = $1 AND environment = $2',
    [organisationId, environment],
  );
  return found.rows[0];
}

/** The environment of an organisation; undefined when there is none with this id. */
export async function organisationEnvironment(
  pool: Pool,
  organisationId: string,
): Promise<Environment | undefined> {
  const found = await pool.query<{ environment: Environment }>(
    'SELECT environment FROM organisations WHERE id = $1',
    [organisationId],
  );
  return found.rows[0]?.environment;
}

/** The identifier of each organisation (those that exist), by id. */
export async function organisationIdentifiers(
  pool: Pool,
  ids: readonly string[],
): Promise<Map<string, string>> {
  const result = await pool.query<{ id: string; identifier: string }>(
    'SELECT id, identifier FROM organisations WHERE id = ANY($1::uuid[])',
    [ids],
  );
  return new Map(result.rows.map((row) => [row.id, row.identifier]));
}

/** The user's personal sandbox organisation, if made (`personal_of`). */
export async function findPersonalOrganisation(pool: Pool, userId: string): Promise<string | undefined> {
  return (await pool.query<{ id: string }>('SELECT id FROM organisations WHERE personal_of = $1', [userId]))
    .rows[0]?.id;
}

/**
 * Makes the user's personal sandbox organisation; undefined when not made (the identifier was taken, or
 * another call made the user's organisation meanwhile).
 */
export async function insertPersonalOrganisation(
  pool: Pool,
  input: { userId: string; identifier: string; name: string },
): Promise<string | undefined> {
  const made = await pool.query<{ id: string }>(
    `INSERT INTO organisations (environment, identifier, name, personal_of) VALUES ('sandbox', $1, $2, $3)
     ON CONFLICT DO NOTHING RETURNING id`,
    [input.identifier, input.name, input.userId],
  );
  return made.rows[0]?.id;
}

/**
 * Name and owners' email addresses of each organisation (billing: the name printed on invoices and the
 * contact when the organisation names no billing email). Organisations that do not exist are left out.
 */
export async function organisationBillingFacts(
  pool: Pool,
  ids: readonly string[],
): Promise<Map<string, { name: string; ownerEmails: string[] }>> {
  const result = await pool.query<{ id: string; name: string; owners: string[] }>(
    `SELECT o.id, o.name,
            coalesce(array_agg(u.email ORDER BY u.email) FILTER (WHERE u.email IS NOT NULL), '{}') AS owners
       FROM organisations o
       LEFT JOIN memberships m ON m.organisation_id = o.id AND m.role = 'owner'
       LEFT JOIN users u ON u.id = m.user_id
      WHERE o.id = ANY($1::uuid[])
      GROUP BY o.id, o.name`,
    [ids],
  );
  return new Map(result.rows.map((row) => [row.id, { name: row.name, ownerEmails: row.owners }]));
}

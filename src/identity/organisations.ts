import { randomBytes } from 'node:crypto';
import type { Pool } from 'pg';
import { RuleError } from '../platform/errors.ts';
import type { ErrorCode } from '../platform/http/error-codes.ts';
import type { Environment } from '../services/contract.ts';
import { IDENTITY_ERRORS } from './errors.ts';

export type MembershipRole = 'owner' | 'admin' | 'member';

export interface Organisation {
  id: string;
  environment: Environment;
  identifier: string;
  name: string;
}

/** An organisation rule broken: its code (`IDENTITY_ERRORS`) tells which. */
export class OrganisationError extends RuleError {
  constructor(code: ErrorCode, field: string, rule: string, message: string) {
    super(field, rule, { code, message });
  }
}

const COLUMNS = 'id, environment, identifier, name';

export async function addOrganisation(
  pool: Pool,
  input: { environment: Environment; identifier: string; name: string },
): Promise<Organisation> {
  const identifier = input.identifier.trim();
  if (!/^[\w.-]{1,64}$/.test(identifier)) {
    const rule = 'is 1 to 64 letters, digits, dots, dashes or underscores';
    throw new OrganisationError(
      IDENTITY_ERRORS.invalidOrganisationIdentifier,
      'identifier',
      rule,
      `an organisation identifier ${rule}`,
    );
  }
  const result = await pool.query<Organisation>(
    `INSERT INTO organisations (environment, identifier, name) VALUES ($1, $2, $3)
     ON CONFLICT DO NOTHING RETURNING ${COLUMNS}`,
    [input.environment, identifier, input.name.trim() || identifier],
  );
  const organisation = result.rows[0];
  if (!organisation)
    throw new OrganisationError(
      IDENTITY_ERRORS.organisationExists,
      'identifier',
      'is taken by another organisation',
      `the ${input.environment} organisation ${identifier} exists already`,
    );
  return organisation;
}

/**
 * Identifiers that start with this are made by the gateway itself (a user's personal sandbox
 * organisation, the sandbox operators' organisation): a user cannot choose one, so no user can make, ahead
 * of the system, an organisation the system would then find and join.
 */
export const SYSTEM_IDENTIFIER_PREFIX = 'sandbox-';

/** An identifier a user may choose for an organisation (the portal's form); else what is wrong. */
export function userIdentifierProblem(identifier: string): string | undefined {
  if (identifier.toLowerCase().startsWith(SYSTEM_IDENTIFIER_PREFIX)) {
    return `identifiers starting with "${SYSTEM_IDENTIFIER_PREFIX}" are kept for organisations the sandbox makes itself`;
  }
  return undefined;
}

/**
 * The user's personal sandbox organisation, made on first need with the user as its only owner. It is
 * tied to the user by `personal_of` (unique), never found by its identifier, and its identifier is
 * random: nobody can make it ahead of the user, and it never joins the user to an organisation somebody
 * else made. Idempotent, also when two calls make it at the same moment.
 */
export async function personalSandboxOrganisation(pool: Pool, userId: string): Promise<string> {
  const user = await pool.query<{ email: string }>('SELECT email FROM users WHERE id = $1', [userId]);
  const email = user.rows[0]?.email;
  if (!email) throw new Error(`no user ${userId}`);
  const find = async () =>
    (await pool.query<{ id: string }>('SELECT id FROM organisations WHERE personal_of = $1', [userId]))
      .rows[0]?.id;
  let organisationId = await find();
  // A random identifier may (once in 2^48) be taken: then another one.
  for (let attempt = 0; organisationId === undefined && attempt < 5; attempt++) {
    const identifier = `${SYSTEM_IDENTIFIER_PREFIX}${randomBytes(6).toString('hex')}`;
    const made = await pool.query<{ id: string }>(
      `INSERT INTO organisations (environment, identifier, name, personal_of) VALUES ('sandbox', $1, $2, $3)
       ON CONFLICT DO NOTHING RETURNING id`,
      [identifier, `${email} (sandbox)`, userId],
    );
    // Not made: the identifier was taken, or another call made the user's organisation meanwhile.
    organisationId = made.rows[0]?.id ?? (await find());
  }
  if (organisationId === undefined) throw new Error(`no personal sandbox organisation for ${userId}`);
  // Only into the user's own personal organisation (checked in the statement itself).
  await pool.query(
    `INSERT INTO memberships (organisation_id, user_id, role)
     SELECT id, $2, 'owner' FROM organisations WHERE id = $1 AND personal_of = $2
     ON CONFLICT (organisation_id, user_id) DO NOTHING`,
    [organisationId, userId],
  );
  return organisationId;
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

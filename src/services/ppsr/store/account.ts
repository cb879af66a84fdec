/**
 * The customer organisation (PPSR_44/45) and its secured party groups (PPSR_34): all their SQL.
 */
import type pg from 'pg';
import type { SecuredParty } from '../domain/parties.ts';

type Client = Pick<pg.PoolClient, 'query'>;

export interface CustomerOrganisationRow {
  organisationId: string;
  name: string;
  email: string | null;
  version: number;
  updatedAt: Date;
}

const ORGANISATION_COLUMNS = `organisation_id AS "organisationId", name, email, version, updated_at AS "updatedAt"`;

/** The organisation's record, made from identity's name the first time it is asked for. */
export async function ensureCustomerOrganisation(
  client: Client,
  organisationId: string,
  name: string,
  now: Date,
): Promise<CustomerOrganisationRow> {
  const result = await client.query<CustomerOrganisationRow>(
    `WITH made AS (
       INSERT INTO ppsr_customer_organisations (organisation_id, name, updated_at) VALUES ($1, $2, $3)
       ON CONFLICT (organisation_id) DO NOTHING RETURNING ${ORGANISATION_COLUMNS})
     SELECT * FROM made UNION ALL
     SELECT ${ORGANISATION_COLUMNS} FROM ppsr_customer_organisations WHERE organisation_id = $1 LIMIT 1`,
    [organisationId, name, now],
  );
  const row = result.rows[0];
  if (row) return row;
  // Made at the same moment by another call (its first use too): this statement waited for that insert
  // and did nothing, but its snapshot predates the row. A statement of its own sees it.
  const made = await client.query<CustomerOrganisationRow>(
    `SELECT ${ORGANISATION_COLUMNS} FROM ppsr_customer_organisations WHERE organisation_id = $1`,
    [organisationId],
  );
  return made.rows[0]!;
}

/** The organisation's record, locked for a change in `client`'s transaction. */
export async function lockCustomerOrganisation(
  client: Client,
  organisationId: string,
): Promise<CustomerOrganisationRow | undefined> {
  const result = await client.query<CustomerOrganisationRow>(
    `SELECT ${ORGANISATION_COLUMNS} FROM ppsr_customer_organisations WHERE organisation_id = $1 FOR UPDATE`,
    [organisationId],
  );
  return result.rows[0];
}

/** Sets the email (PPSR_45) when `version` is still the current one; undefined when it is not. */
export async function updateCustomerOrganisation(
  client: Client,
  organisationId: string,
  change: { email: string | null; expectedVersion: number | undefined },
  now: Date,
): Promise<CustomerOrganisationRow | undefined> {
  const result = await client.query<CustomerOrganisationRow>(
    `UPDATE ppsr_customer_organisations SET email = $2, version = version + 1, updated_at = $3
      WHERE organisation_id = $1 AND ($4::int IS NULL OR version = $4)
      RETURNING ${ORGANISATION_COLUMNS}`,
    [organisationId, change.email, now, change.expectedVersion ?? null],
  );
  return result.rows[0];
}

export interface GroupRow {
  securedPartyGroupId: string;
  organisationId: string;
  name: string;
  email: string;
  securedParties: SecuredParty[];
  version: number;
  updatedAt: Date;
}

const GROUP_COLUMNS = `id AS "securedPartyGroupId", organisation_id AS "organisationId", name, email,
  secured_parties AS "securedParties", version, updated_at AS "updatedAt"`;

export async function insertGroup(
  client: Client,
  group: { organisationId: string; name: string; email: string; securedParties: SecuredParty[] },
  now: Date,
): Promise<GroupRow> {
  const result = await client.query<GroupRow>(
    `INSERT INTO ppsr_secured_party_groups (id, organisation_id, name, email, secured_parties, created_at, updated_at)
     VALUES ('SPG' || lpad(nextval('ppsr_secured_party_group_numbers')::text, 8, '0'), $1, $2, $3, $4, $5, $5)
     RETURNING ${GROUP_COLUMNS}`,
    [group.organisationId, group.name, group.email, JSON.stringify(group.securedParties), now],
  );
  return result.rows[0]!;
}

/**
 * A group; `forUpdate` locks it for a change, `forKeyShare` keeps it from being deleted until the
 * caller's transaction ends (a registration under it).
 */
export async function getGroup(
  client: Client,
  id: string,
  options: { forUpdate?: boolean; forKeyShare?: boolean } = {},
): Promise<GroupRow | undefined> {
  const lock = options.forUpdate ? ' FOR UPDATE' : options.forKeyShare ? ' FOR KEY SHARE' : '';
  const result = await client.query<GroupRow>(
    `SELECT ${GROUP_COLUMNS} FROM ppsr_secured_party_groups WHERE id = $1${lock}`,
    [id],
  );
  return result.rows[0];
}

/**
 * Deletes a group (locked by the caller with `getGroup(..., { forUpdate })`) unless a financing
 * statement names it: then nothing is deleted and the answer is how many do.
 */
export async function deleteUnusedGroup(
  client: Client,
  id: string,
): Promise<{ deleted: true } | { deleted: false; statements: number }> {
  const used = await client.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM ppsr_financing_statements WHERE secured_party_group_id = $1',
    [id],
  );
  const statements = used.rows[0]?.n ?? 0;
  if (statements > 0) return { deleted: false, statements };
  await client.query('DELETE FROM ppsr_secured_party_groups WHERE id = $1', [id]);
  return { deleted: true };
}

export async function listGroups(client: Client, organisationId: string): Promise<GroupRow[]> {
  const result = await client.query<GroupRow>(
    `SELECT ${GROUP_COLUMNS} FROM ppsr_secured_party_groups WHERE organisation_id = $1 ORDER BY id`,
    [organisationId],
  );
  return result.rows;
}

export async function updateGroup(
  client: Client,
  id: string,
  group: { name: string; email: string; securedParties: SecuredParty[] },
  now: Date,
): Promise<GroupRow> {
  const result = await client.query<GroupRow>(
    `UPDATE ppsr_secured_party_groups SET name = $2, email = $3, secured_parties = $4, version = version + 1,
            updated_at = $5
      WHERE id = $1 RETURNING ${GROUP_COLUMNS}`,
    [id, group.name, group.email, JSON.stringify(group.securedParties), now],
  );
  return result.rows[0]!;
}

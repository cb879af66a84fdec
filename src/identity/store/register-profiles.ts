/**
 * The SQL of the register profile (gateway database, migration 007): users' and organisations' profile
 * columns, memberships as organisation users, and `membership_invitations`. The rules are
 * domain/register-profiles.ts; what is done with them, operations/register-directory.ts.
 */
import type { ClientBase, Pool } from 'pg';
import type { Environment } from '../../services/contract.ts';
import type { MembershipRole } from '../domain/organisations.ts';
import type {
  OrganisationMember,
  OrganisationMemberPatch,
  OrganisationProfile,
  OrganisationProfilePatch,
  UserProfile,
  UserProfilePatch,
} from '../domain/register-profiles.ts';

type Db = Pool | ClientBase;

const CONTACT = (
  t: string,
) => `${t}.postal_address AS "postalAddress", ${t}.physical_address AS "physicalAddress",
  ${t}.phone, ${t}.fax, ${t}.mobile, ${t}.updated_at AS "updatedAt"`;

const USER = `u.id, u.email, u.name, u.first_name AS "firstName", u.middle_names AS "middleNames",
  u.last_name AS "lastName", u.accept_terms AS "acceptTerms", u.register_status AS status,
  u.is_operator AS "isOperator", ${CONTACT('u')}`;

const ORGANISATION = `o.id, o.identifier, o.name, o.email, o.category_code AS "categoryCode", ${CONTACT('o')}`;

/** Column of each patchable field. */
const USER_COLUMNS: Record<keyof UserProfilePatch, string> = {
  email: 'email',
  firstName: 'first_name',
  middleNames: 'middle_names',
  lastName: 'last_name',
  acceptTerms: 'accept_terms',
  status: 'register_status',
  postalAddress: 'postal_address',
  physicalAddress: 'physical_address',
  phone: 'phone',
  fax: 'fax',
  mobile: 'mobile',
};
const ORGANISATION_COLUMNS: Record<keyof OrganisationProfilePatch, string> = {
  name: 'name',
  email: 'email',
  categoryCode: 'category_code',
  postalAddress: 'postal_address',
  physicalAddress: 'physical_address',
  phone: 'phone',
  fax: 'fax',
  mobile: 'mobile',
};
const MEMBER_COLUMNS: Record<keyof OrganisationMemberPatch, string> = {
  role: 'role',
  firstName: 'first_name',
  middleNames: 'middle_names',
  lastName: 'last_name',
  phone: 'phone',
};
const JSON_FIELDS = new Set(['postalAddress', 'physicalAddress', 'phone', 'fax', 'mobile']);

/** `SET a = $2, b = $3 …` of the fields given, and their values after `first`. */
function setClause(
  patch: Record<string, unknown>,
  columns: Record<string, string>,
  first: number,
): { sql: string; values: unknown[] } {
  const parts: string[] = [];
  const values: unknown[] = [];
  for (const [field, value] of Object.entries(patch)) {
    const column = columns[field];
    if (column === undefined || value === undefined) continue;
    values.push(JSON_FIELDS.has(field) && value !== null ? JSON.stringify(value) : value);
    parts.push(`${column} = $${first + values.length}`);
  }
  return { sql: parts.join(', '), values };
}

export async function findUserProfile(db: Db, id: string, lock = false): Promise<UserProfile | undefined> {
  const result = await db.query<UserProfile>(
    `SELECT ${USER} FROM users u WHERE u.id = $1${lock ? ' FOR UPDATE' : ''}`,
    [id],
  );
  return result.rows[0];
}

export async function listUserProfiles(db: Db): Promise<UserProfile[]> {
  return (await db.query<UserProfile>(`SELECT ${USER} FROM users u ORDER BY lower(u.email)`)).rows;
}

/** Changes the fields given (and the name, when given); an email another user has fails (23505). */
export async function updateUserProfile(
  db: Db,
  id: string,
  patch: UserProfilePatch,
  name: string | undefined,
  at: Date,
): Promise<void> {
  const set = setClause(patch, USER_COLUMNS, 2);
  const named = name === undefined ? '' : `name = $${set.values.length + 3}, `;
  await db.query(`UPDATE users SET ${set.sql ? `${set.sql}, ` : ''}${named}updated_at = $2 WHERE id = $1`, [
    id,
    at,
    ...set.values,
    ...(name === undefined ? [] : [name]),
  ]);
}

export async function findOrganisationProfile(
  db: Db,
  environment: Environment,
  identifier: string,
  lock = false,
): Promise<OrganisationProfile | undefined> {
  const result = await db.query<OrganisationProfile>(
    `SELECT ${ORGANISATION} FROM organisations o WHERE o.environment = $1 AND o.identifier = $2${lock ? ' FOR UPDATE' : ''}`,
    [environment, identifier],
  );
  return result.rows[0];
}

/** The environment's organisations, or those the user belongs to. */
export async function listOrganisationProfiles(
  db: Db,
  environment: Environment,
  memberId: string | null,
): Promise<OrganisationProfile[]> {
  const result = await db.query<OrganisationProfile>(
    `SELECT ${ORGANISATION} FROM organisations o WHERE o.environment = $1
        AND ($2::uuid IS NULL OR o.id IN (SELECT organisation_id FROM memberships WHERE user_id = $2))
      ORDER BY o.identifier`,
    [environment, memberId],
  );
  return result.rows;
}

export async function updateOrganisationProfile(
  db: Db,
  id: string,
  patch: OrganisationProfilePatch,
  at: Date,
): Promise<void> {
  const set = setClause(patch, ORGANISATION_COLUMNS, 2);
  await db.query(`UPDATE organisations SET ${set.sql ? `${set.sql}, ` : ''}updated_at = $2 WHERE id = $1`, [
    id,
    at,
    ...set.values,
  ]);
}

/** Sets the new organisation's profile and makes the user its owner. */
export async function ownNewOrganisation(db: Db, organisationId: string, userId: string): Promise<void> {
  await db.query(
    `INSERT INTO memberships (organisation_id, user_id, role) VALUES ($1, $2, 'owner')
     ON CONFLICT (organisation_id, user_id) DO NOTHING`,
    [organisationId, userId],
  );
}

export async function roleIn(
  db: Db,
  organisationId: string,
  userId: string,
): Promise<MembershipRole | undefined> {
  const result = await db.query<{ role: MembershipRole }>(
    'SELECT role FROM memberships WHERE organisation_id = $1 AND user_id = $2',
    [organisationId, userId],
  );
  return result.rows[0]?.role;
}

const MEMBERS = `
  SELECT m.id, m.organisation_id AS "organisationId", o.identifier AS "organisationIdentifier",
         m.user_id AS "userId", m.role, 'ACTIVE' AS status, u.email, u.first_name AS "firstName",
         u.middle_names AS "middleNames", u.last_name AS "lastName", u.name, m.phone, m.updated_at AS "updatedAt"
    FROM memberships m JOIN users u ON u.id = m.user_id JOIN organisations o ON o.id = m.organisation_id
  UNION ALL
  SELECT i.id, i.organisation_id, o.identifier, NULL, i.role, 'INACTIVE', i.email, i.first_name,
         i.middle_names, i.last_name, NULL, i.phone, i.updated_at
    FROM membership_invitations i JOIN organisations o ON o.id = i.organisation_id
   WHERE i.accepted_at IS NULL AND i.ended_at IS NULL`;

export async function listOrganisationMembers(db: Db, organisationId: string): Promise<OrganisationMember[]> {
  const result = await db.query<OrganisationMember>(
    `SELECT * FROM (${MEMBERS}) x WHERE "organisationId" = $1 ORDER BY lower(email), id`,
    [organisationId],
  );
  return result.rows;
}

export async function findOrganisationMember(
  db: Db,
  organisationId: string,
  id: string,
): Promise<OrganisationMember | undefined> {
  const result = await db.query<OrganisationMember>(
    `SELECT * FROM (${MEMBERS}) x WHERE "organisationId" = $1 AND id = $2`,
    [organisationId, id],
  );
  return result.rows[0];
}

/** Locks the membership or invitation row (for a change checked against it). */
export async function lockOrganisationMember(db: Db, organisationId: string, id: string): Promise<void> {
  await db.query('SELECT 1 FROM memberships WHERE organisation_id = $1 AND id = $2 FOR UPDATE', [
    organisationId,
    id,
  ]);
  await db.query('SELECT 1 FROM membership_invitations WHERE organisation_id = $1 AND id = $2 FOR UPDATE', [
    organisationId,
    id,
  ]);
}

export async function insertInvitation(
  db: Db,
  invitation: {
    organisationId: string;
    email: string;
    role: 'admin' | 'member';
    firstName: string | null;
    middleNames: string | null;
    lastName: string | null;
    phone: unknown;
    codeHash: string;
    invitedBy: string;
    at: Date;
  },
): Promise<string | undefined> {
  const result = await db.query<{ id: string }>(
    `INSERT INTO membership_invitations
       (organisation_id, email, role, first_name, middle_names, last_name, phone, code_hash, invited_by, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10) ON CONFLICT DO NOTHING RETURNING id`,
    [
      invitation.organisationId,
      invitation.email,
      invitation.role,
      invitation.firstName,
      invitation.middleNames,
      invitation.lastName,
      invitation.phone === null ? null : JSON.stringify(invitation.phone),
      invitation.codeHash,
      invitation.invitedBy,
      invitation.at,
    ],
  );
  return result.rows[0]?.id;
}

export interface OpenInvitation {
  id: string;
  organisationId: string;
  email: string;
  role: 'admin' | 'member';
  phone: unknown;
}

/** The open invitation with this code's hash, locked. */
export async function lockOpenInvitation(db: Db, codeHash: string): Promise<OpenInvitation | undefined> {
  const result = await db.query<OpenInvitation>(
    `SELECT id, organisation_id AS "organisationId", email, role, phone FROM membership_invitations
      WHERE code_hash = $1 AND accepted_at IS NULL AND ended_at IS NULL FOR UPDATE`,
    [codeHash],
  );
  return result.rows[0];
}

/** The invitation accepted: the membership made under its id (false when the user was a member already). */
export async function acceptInvitation(
  db: Db,
  invitation: OpenInvitation,
  userId: string,
  at: Date,
): Promise<boolean> {
  const made = await db.query(
    `INSERT INTO memberships (id, organisation_id, user_id, role, phone, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $6) ON CONFLICT DO NOTHING`,
    [
      invitation.id,
      invitation.organisationId,
      userId,
      invitation.role,
      invitation.phone === null ? null : JSON.stringify(invitation.phone),
      at,
    ],
  );
  await db.query(
    'UPDATE membership_invitations SET accepted_at = $2, accepted_by = $3, updated_at = $2 WHERE id = $1',
    [invitation.id, at, userId],
  );
  return (made.rowCount ?? 0) > 0;
}

/** Changes a membership (true) or an open invitation. */
export async function updateOrganisationMember(
  db: Db,
  id: string,
  patch: OrganisationMemberPatch,
  at: Date,
): Promise<void> {
  const { role, phone } = patch;
  const membership = setClause({ role, phone }, MEMBER_COLUMNS, 2);
  await db.query(
    `UPDATE memberships SET ${membership.sql ? `${membership.sql}, ` : ''}updated_at = $2 WHERE id = $1`,
    [id, at, ...membership.values],
  );
  const invitation = setClause(patch, MEMBER_COLUMNS, 2);
  await db.query(
    `UPDATE membership_invitations SET ${invitation.sql ? `${invitation.sql}, ` : ''}updated_at = $2
      WHERE id = $1 AND accepted_at IS NULL AND ended_at IS NULL`,
    [id, at, ...invitation.values],
  );
}

/** Ends a membership or an open invitation. */
export async function removeOrganisationMember(db: Db, organisationId: string, id: string, at: Date) {
  await db.query('DELETE FROM memberships WHERE organisation_id = $1 AND id = $2', [organisationId, id]);
  await db.query(
    `UPDATE membership_invitations SET ended_at = $3, updated_at = $3
      WHERE organisation_id = $1 AND id = $2 AND accepted_at IS NULL AND ended_at IS NULL`,
    [organisationId, id, at],
  );
}

/** How many owners and admins the organisation has. */
export async function administratorCount(db: Db, organisationId: string): Promise<number> {
  const result = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM memberships WHERE organisation_id = $1 AND role IN ('owner', 'admin')`,
    [organisationId],
  );
  return result.rows[0]!.n;
}

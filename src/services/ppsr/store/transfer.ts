/**
 * The register's import and export (transfer/): all their SQL. Exports read in registration-number
 * (and group id, organisation id) order a page at a time; imports write on the framework's connection,
 * inside its transaction, new statements by COPY.
 */
import type pg from 'pg';
import { copyLine, copyText } from '../../../platform/db/copy-text.ts';
import type { SecuredParty } from '../domain/parties.ts';
import { searchKeysOf } from '../domain/search-keys.ts';
import type { Change, StatementDocument } from './statements.ts';

type Client = Pick<pg.PoolClient, 'query'>;

export interface OrganisationRecordRow {
  organisationId: string;
  name: string;
  email: string | null;
  version: number;
  updatedAt: Date;
}

export interface GroupRecordRow {
  securedPartyGroupId: string;
  organisationId: string;
  name: string;
  email: string;
  securedParties: SecuredParty[];
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

export interface VersionRecordRow {
  version: number;
  change: Change;
  changedAt: Date;
  expiryDate: string;
  document: StatementDocument;
}

export interface StatementRecordRow {
  registrationNumber: string;
  organisationId: string | null;
  securedPartyGroupId: string | null;
  registeredAt: Date;
  expiryDate: string;
  dischargedAt: Date | null;
  pinHash: Buffer;
  pinKeyIds: string | null;
  debtorPinHash: Buffer;
  debtorPinKeyIds: string | null;
  versions: VersionRecordRow[];
}

/** Customer organisations after `after` (by id), at most `limit`. */
export async function organisationsAfter(
  client: Client,
  after: string,
  limit: number,
): Promise<OrganisationRecordRow[]> {
  const result = await client.query<OrganisationRecordRow>(
    `SELECT organisation_id::text AS "organisationId", name, email, version, updated_at AS "updatedAt"
       FROM ppsr_customer_organisations WHERE organisation_id::text > $1 ORDER BY organisation_id::text LIMIT $2`,
    [after, limit],
  );
  return result.rows;
}

/** Secured party groups after `after` (by id), at most `limit`. */
export async function groupsAfter(client: Client, after: string, limit: number): Promise<GroupRecordRow[]> {
  const result = await client.query<GroupRecordRow>(
    `SELECT id AS "securedPartyGroupId", organisation_id::text AS "organisationId", name, email,
            secured_parties AS "securedParties", version, created_at AS "createdAt", updated_at AS "updatedAt"
       FROM ppsr_secured_party_groups WHERE id > $1 ORDER BY id LIMIT $2`,
    [after, limit],
  );
  return result.rows;
}

const STATEMENT_RECORD_COLUMNS = `s.registration_number AS "registrationNumber", s.organisation_id::text AS "organisationId",
  s.secured_party_group_id AS "securedPartyGroupId", s.registered_at AS "registeredAt",
  to_char(s.expiry_date, 'YYYY-MM-DD') AS "expiryDate", s.discharged_at AS "dischargedAt",
  s.pin_hash AS "pinHash", s.pin_key_ids AS "pinKeyIds", s.debtor_pin_hash AS "debtorPinHash",
  s.debtor_pin_key_ids AS "debtorPinKeyIds",
  (SELECT json_agg(json_build_object('version', v.version, 'change', v.change, 'changedAt', v.changed_at,
            'expiryDate', to_char(v.expiry_date, 'YYYY-MM-DD'), 'document', v.document) ORDER BY v.version)
     FROM ppsr_financing_statement_versions v WHERE v.registration_number = s.registration_number) AS versions`;

/** JSON gives the versions' instants as text: made `Date`s. */
function withDates(row: StatementRecordRow): StatementRecordRow {
  for (const version of row.versions) version.changedAt = new Date(version.changedAt);
  return row;
}

/** Statements after `after` (by registration number) with every version, at most `limit`. */
export async function statementsAfter(
  client: Client,
  after: string,
  limit: number,
): Promise<StatementRecordRow[]> {
  const result = await client.query<StatementRecordRow>(
    `SELECT ${STATEMENT_RECORD_COLUMNS} FROM ppsr_financing_statements s
      WHERE s.registration_number > $1 ORDER BY s.registration_number LIMIT $2`,
    [after, limit],
  );
  return result.rows.map(withDates);
}

/** The statements of these numbers that the register holds, with every version, locked for the import. */
export async function statementsNamed(
  client: Client,
  numbers: readonly string[],
): Promise<StatementRecordRow[]> {
  const result = await client.query<StatementRecordRow>(
    `SELECT ${STATEMENT_RECORD_COLUMNS} FROM ppsr_financing_statements s
      WHERE s.registration_number = ANY($1::text[]) FOR UPDATE`,
    [numbers],
  );
  return result.rows.map(withDates);
}

/** The groups of these ids the register holds. */
export async function existingGroups(client: Client, ids: readonly string[]): Promise<Set<string>> {
  const result = await client.query<{ id: string }>(
    'SELECT id FROM ppsr_secured_party_groups WHERE id = ANY($1::text[])',
    [ids],
  );
  return new Set(result.rows.map((row) => row.id));
}

/** Writes an organisation as the file has it; false when it was already so. */
export async function putOrganisation(
  client: Client,
  row: OrganisationRecordRow,
): Promise<'inserted' | 'updated' | 'unchanged'> {
  const result = await client.query<{ inserted: boolean }>(
    `INSERT INTO ppsr_customer_organisations AS o (organisation_id, name, email, version, updated_at)
     VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (organisation_id) DO UPDATE
       SET name = EXCLUDED.name, email = EXCLUDED.email, version = EXCLUDED.version, updated_at = EXCLUDED.updated_at
       WHERE (o.name, o.email, o.version, o.updated_at) IS DISTINCT FROM (EXCLUDED.name, EXCLUDED.email, EXCLUDED.version, EXCLUDED.updated_at)
     RETURNING (xmax = 0) AS inserted`,
    [row.organisationId, row.name, row.email, row.version, row.updatedAt],
  );
  const written = result.rows[0];
  return !written ? 'unchanged' : written.inserted ? 'inserted' : 'updated';
}

/** Writes a group as the file has it (its id kept; the numbering moved past it). */
export async function putGroup(
  client: Client,
  row: GroupRecordRow,
): Promise<'inserted' | 'updated' | 'unchanged'> {
  const result = await client.query<{ inserted: boolean }>(
    `INSERT INTO ppsr_secured_party_groups AS g (id, organisation_id, name, email, secured_parties, version, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
     ON CONFLICT (id) DO UPDATE
       SET organisation_id = EXCLUDED.organisation_id, name = EXCLUDED.name, email = EXCLUDED.email,
           secured_parties = EXCLUDED.secured_parties, version = EXCLUDED.version,
           created_at = EXCLUDED.created_at, updated_at = EXCLUDED.updated_at
       WHERE (g.organisation_id, g.name, g.email, g.secured_parties, g.version, g.created_at, g.updated_at)
         IS DISTINCT FROM (EXCLUDED.organisation_id, EXCLUDED.name, EXCLUDED.email, EXCLUDED.secured_parties,
           EXCLUDED.version, EXCLUDED.created_at, EXCLUDED.updated_at)
     RETURNING (xmax = 0) AS inserted`,
    [
      row.securedPartyGroupId,
      row.organisationId,
      row.name,
      row.email,
      JSON.stringify(row.securedParties),
      row.version,
      row.createdAt,
      row.updatedAt,
    ],
  );
  await client.query(
    `SELECT setval('ppsr_secured_party_group_numbers', greatest($1::bigint,
       (SELECT last_value FROM ppsr_secured_party_group_numbers)))`,
    [Number(row.securedPartyGroupId.slice(3))],
  );
  const written = result.rows[0];
  return !written ? 'unchanged' : written.inserted ? 'inserted' : 'updated';
}

const bytea = (buffer: Buffer) => `\\x${buffer.toString('hex')}`;

/** New statements with every version and the current version's search keys, by COPY. */
export async function insertStatements(
  client: pg.PoolClient,
  rows: readonly StatementRecordRow[],
): Promise<void> {
  if (rows.length === 0) return;
  await copyText(
    client,
    `COPY ppsr_financing_statements (registration_number, organisation_id, secured_party_group_id, registered_at,
       expiry_date, discharged_at, version, changed_at, pin_hash, pin_key_ids, debtor_pin_hash, debtor_pin_key_ids,
       document) FROM STDIN`,
    (function* () {
      for (const s of rows) {
        const current = s.versions.at(-1)!;
        yield copyLine([
          s.registrationNumber,
          s.organisationId,
          s.securedPartyGroupId,
          s.registeredAt.toISOString(),
          s.expiryDate,
          s.dischargedAt?.toISOString(),
          current.version,
          current.changedAt.toISOString(),
          bytea(s.pinHash),
          s.pinKeyIds,
          bytea(s.debtorPinHash),
          s.debtorPinKeyIds,
          JSON.stringify(current.document),
        ]);
      }
    })(),
  );
  await insertVersions(
    client,
    rows.flatMap((s) => s.versions.map((v) => ({ registrationNumber: s.registrationNumber, ...v }))),
  );
  await copyText(
    client,
    'COPY ppsr_search_keys (kind, key, registration_number, date_of_birth, expiry_date) FROM STDIN',
    (function* () {
      for (const s of rows) {
        if (s.dischargedAt) continue;
        const { debtors, collaterals } = s.versions.at(-1)!.document;
        for (const key of searchKeysOf(debtors, collaterals)) {
          yield copyLine([key.kind, key.key, s.registrationNumber, key.dateOfBirth, s.expiryDate]);
        }
      }
    })(),
  );
}

async function insertVersions(
  client: pg.PoolClient,
  versions: readonly (VersionRecordRow & { registrationNumber: string })[],
): Promise<void> {
  await copyText(
    client,
    `COPY ppsr_financing_statement_versions (registration_number, version, change, changed_at, expiry_date,
       transaction_id, document) FROM STDIN`,
    (function* () {
      for (const v of versions) {
        yield copyLine([
          v.registrationNumber,
          v.version,
          v.change,
          v.changedAt.toISOString(),
          v.expiryDate,
          null,
          JSON.stringify(v.document),
        ]);
      }
    })(),
  );
}

/**
 * Appends versions to a statement the register holds (its current row follows the last of them, its
 * search keys too) and sets its PIN verifiers when given.
 */
export async function appendVersions(
  client: pg.PoolClient,
  statement: StatementRecordRow,
  added: readonly VersionRecordRow[],
): Promise<void> {
  const last = added.at(-1);
  if (last) {
    await insertVersions(
      client,
      added.map((v) => ({ registrationNumber: statement.registrationNumber, ...v })),
    );
    await client.query('DELETE FROM ppsr_search_keys WHERE registration_number = $1', [
      statement.registrationNumber,
    ]);
    if (!statement.dischargedAt) {
      const keys = searchKeysOf(last.document.debtors, last.document.collaterals);
      await client.query(
        `INSERT INTO ppsr_search_keys (kind, key, registration_number, date_of_birth, expiry_date)
         SELECT kind, key, $1, date_of_birth, $5 FROM unnest($2::text[], $3::text[], $4::date[]) AS k (kind, key, date_of_birth)`,
        [
          statement.registrationNumber,
          keys.map((k) => k.kind),
          keys.map((k) => k.key),
          keys.map((k) => k.dateOfBirth ?? null),
          statement.expiryDate,
        ],
      );
    }
  }
  const current = last ?? statement.versions.at(-1)!;
  await client.query(
    `UPDATE ppsr_financing_statements
        SET version = $2, changed_at = $3, expiry_date = $4, discharged_at = $5, document = $6,
            organisation_id = $7, secured_party_group_id = $8, pin_hash = $9, pin_key_ids = $10,
            debtor_pin_hash = $11, debtor_pin_key_ids = $12
      WHERE registration_number = $1`,
    [
      statement.registrationNumber,
      current.version,
      current.changedAt,
      statement.expiryDate,
      statement.dischargedAt,
      JSON.stringify(current.document),
      statement.organisationId,
      statement.securedPartyGroupId,
      statement.pinHash,
      statement.pinKeyIds,
      statement.debtorPinHash,
      statement.debtorPinKeyIds,
    ],
  );
}

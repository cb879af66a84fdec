/**
 * Financing statements in the database: the current version, every version, and the search keys of the
 * current version (all SQL of the register's statements lives here). Callers pass the client of their
 * own transaction (`withTransaction`), so a registration, its first version, its keys, its transaction
 * record and its fee commit together or not at all.
 */
import type pg from 'pg';
import type { Collateral } from '../domain/collateral.ts';
import type { Debtor, SecuredParty } from '../domain/parties.ts';
import { type KeyLookup, searchKeysOf } from '../domain/search-keys.ts';

type Client = Pick<pg.PoolClient, 'query'>;

/** What a version says, as the API shows it. */
export interface StatementDocument {
  debtors: Debtor[];
  securedParties: SecuredParty[];
  collaterals: Collateral[];
}

export type Change = 'Registered' | 'Amended' | 'Renewed' | 'Discharged';

export interface StatementRow {
  registrationNumber: string;
  organisationId: string | null;
  securedPartyGroupId: string | null;
  registeredAt: Date;
  /** `YYYY-MM-DD`, New Zealand calendar. */
  expiryDate: string;
  dischargedAt: Date | null;
  version: number;
  changedAt: Date;
  document: StatementDocument;
  /** The financing statement PIN's verifier (domain/pin-verifiers.ts) and the ids of its keys. */
  pinHash: Buffer;
  pinKeyIds: string | null;
  /** The debtor PIN's verifier and the ids of its keys. */
  debtorPinHash: Buffer;
  debtorPinKeyIds: string | null;
  /** The secured party group it is registered under, as the group stands now (referenced, not copied). */
  group: StatementGroup | null;
}

/** A statement's secured party group as it stands: its parties, email and validators. */
export interface StatementGroup {
  name: string;
  email: string;
  securedParties: SecuredParty[];
  version: number;
  /** ISO 8601 (from the row's JSON). */
  updatedAt: string;
}

export interface VersionRow {
  version: number;
  change: Change;
  changedAt: Date;
  expiryDate: string;
  document: StatementDocument;
}

const STATEMENT_COLUMNS = `registration_number AS "registrationNumber", organisation_id AS "organisationId",
  secured_party_group_id AS "securedPartyGroupId", registered_at AS "registeredAt",
  to_char(expiry_date, 'YYYY-MM-DD') AS "expiryDate", discharged_at AS "dischargedAt", version,
  changed_at AS "changedAt", document, pin_hash AS "pinHash", pin_key_ids AS "pinKeyIds",
  debtor_pin_hash AS "debtorPinHash", debtor_pin_key_ids AS "debtorPinKeyIds",
  (SELECT jsonb_build_object('name', g.name, 'email', g.email, 'securedParties', g.secured_parties,
     'version', g.version, 'updatedAt', g.updated_at)
     FROM ppsr_secured_party_groups g WHERE g.id = ppsr_financing_statements.secured_party_group_id) AS "group"`;

/** The keys of a statement's current version, found by searches until `expiryDate`. */
async function insertSearchKeys(
  client: Client,
  registrationNumber: string,
  document: StatementDocument,
  expiryDate: string,
) {
  const keys = searchKeysOf(document.debtors, document.collaterals);
  if (keys.length === 0) return;
  await client.query(
    `INSERT INTO ppsr_search_keys (kind, key, registration_number, date_of_birth, expiry_date)
     SELECT kind, key, $1, date_of_birth, $5 FROM unnest($2::text[], $3::text[], $4::date[]) AS k (kind, key, date_of_birth)`,
    [
      registrationNumber,
      keys.map((k) => k.kind),
      keys.map((k) => k.key),
      keys.map((k) => k.dateOfBirth ?? null),
      expiryDate,
    ],
  );
}

const deleteSearchKeys = (client: Client, registrationNumber: string) =>
  client.query('DELETE FROM ppsr_search_keys WHERE registration_number = $1', [registrationNumber]);

export interface NewStatement {
  registrationNumber: string;
  organisationId: string | null;
  securedPartyGroupId: string | null;
  registeredAt: Date;
  expiryDate: string;
  /** The PINs' verifiers (domain/pin-verifiers.ts) and the ids of their keys. */
  pinHash: Buffer;
  pinKeyIds: string;
  debtorPinHash: Buffer;
  debtorPinKeyIds: string;
  document: StatementDocument;
  transactionId: number | null;
  /**
   * The registration's verification statements (store/verification.ts), queued in the same statement
   * (mailed later by the service's job).
   */
  verificationStatements?: readonly { to: string; subject: string; text: string }[];
}

/**
 * Inserts a registration (version 1) with its first version, its search keys and its verification
 * statements, in one statement (one round trip); false when its registration number is taken (draw
 * another: nothing was written).
 */
export async function insertStatement(client: Client, statement: NewStatement): Promise<boolean> {
  const keys = searchKeysOf(statement.document.debtors, statement.document.collaterals);
  const verification = statement.verificationStatements ?? [];
  // Named (prepared once per connection): planning this statement costs more than running it.
  const inserted = await client.query({
    name: 'ppsr-insert-statement',
    text: `WITH statement AS (
       INSERT INTO ppsr_financing_statements (registration_number, organisation_id, secured_party_group_id,
         registered_at, expiry_date, changed_at, pin_hash, debtor_pin_hash, document, pin_key_ids,
         debtor_pin_key_ids)
       VALUES ($1, $2, $3, $4, $5, $4, $6, $7, $8, $16, $17) ON CONFLICT (registration_number) DO NOTHING
       RETURNING registration_number),
     version AS (
       INSERT INTO ppsr_financing_statement_versions
         (registration_number, version, change, changed_at, expiry_date, transaction_id, document)
       SELECT registration_number, 1, 'Registered', $4, $5, $9, $8 FROM statement),
     keys AS (
       INSERT INTO ppsr_search_keys (kind, key, registration_number, date_of_birth, expiry_date)
       SELECT k.kind, k.key, statement.registration_number, k.date_of_birth, $5
         FROM statement, unnest($10::text[], $11::text[], $12::date[]) AS k (kind, key, date_of_birth)),
     verification AS (
       INSERT INTO ppsr_verification_statements (registration_number, version, change, "to", subject, text, created_at)
       SELECT statement.registration_number, 1, 'Registered', v.to, v.subject, v.text, $4
         FROM statement, unnest($13::text[], $14::text[], $15::text[]) AS v ("to", subject, text))
     SELECT registration_number FROM statement`,
    values: [
      statement.registrationNumber,
      statement.organisationId,
      statement.securedPartyGroupId,
      statement.registeredAt,
      statement.expiryDate,
      statement.pinHash,
      statement.debtorPinHash,
      statement.document,
      statement.transactionId,
      keys.map((k) => k.kind),
      keys.map((k) => k.key),
      keys.map((k) => k.dateOfBirth ?? null),
      verification.map((v) => v.to),
      verification.map((v) => v.subject),
      verification.map((v) => v.text),
      statement.pinKeyIds,
      statement.debtorPinKeyIds,
    ],
  });
  return inserted.rowCount === 1;
}

/** The current version; `forUpdate` locks the row until the caller's transaction ends. */
export async function getStatement(
  client: Client,
  registrationNumber: string,
  options: { forUpdate?: boolean } = {},
): Promise<StatementRow | undefined> {
  const result = await client.query<StatementRow>(
    `SELECT ${STATEMENT_COLUMNS} FROM ppsr_financing_statements WHERE registration_number = $1${
      options.forUpdate ? ' FOR UPDATE' : ''
    }`,
    [registrationNumber],
  );
  return result.rows[0];
}

/**
 * Replaces a PIN verifier that matched with one of the current key, unless the verifier changed since it
 * was read (another process rehashed or converted it first); false then.
 */
export async function rehashPin(
  client: Client,
  registrationNumber: string,
  fromKeyIds: string | null,
  to: { hash: Buffer; keyIds: string | null },
): Promise<boolean> {
  const result = await client.query(
    `UPDATE ppsr_financing_statements SET pin_hash = $3, pin_key_ids = $4
      WHERE registration_number = $1 AND pin_key_ids IS NOT DISTINCT FROM $2`,
    [registrationNumber, fromKeyIds, to.hash, to.keyIds],
  );
  return result.rowCount === 1;
}

/**
 * Writes the next version of a statement (locked by the caller with `getStatement(..., { forUpdate })`):
 * the current row, the version record and, when the debtors or collaterals changed, the search keys.
 */
export async function writeVersion(
  client: Client,
  current: StatementRow,
  next: {
    change: Exclude<Change, 'Registered'>;
    at: Date;
    expiryDate: string;
    document: StatementDocument;
    transactionId: number | null;
  },
): Promise<StatementRow> {
  const version = current.version + 1;
  const dischargedAt = next.change === 'Discharged' ? next.at : current.dischargedAt;
  const updated = await client.query<StatementRow>(
    `UPDATE ppsr_financing_statements
        SET version = $2, changed_at = $3, expiry_date = $4, discharged_at = $5, document = $6
      WHERE registration_number = $1 AND version = $7
      RETURNING ${STATEMENT_COLUMNS}`,
    [
      current.registrationNumber,
      version,
      next.at,
      next.expiryDate,
      dischargedAt,
      next.document,
      current.version,
    ],
  );
  const row = updated.rows[0];
  if (!row) throw new Error(`financing statement ${current.registrationNumber} changed under a lock`);
  await client.query(
    `INSERT INTO ppsr_financing_statement_versions
       (registration_number, version, change, changed_at, expiry_date, transaction_id, document)
     VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [
      current.registrationNumber,
      version,
      next.change,
      next.at,
      next.expiryDate,
      next.transactionId,
      next.document,
    ],
  );
  // The search keys follow the current version: none once discharged, new ones when the debtors or
  // collaterals changed, the new expiry when renewed.
  const keysChanged =
    JSON.stringify([current.document.debtors, current.document.collaterals]) !==
    JSON.stringify([next.document.debtors, next.document.collaterals]);
  if (next.change === 'Discharged') await deleteSearchKeys(client, current.registrationNumber);
  else if (keysChanged) {
    await deleteSearchKeys(client, current.registrationNumber);
    await insertSearchKeys(client, current.registrationNumber, next.document, next.expiryDate);
  } else if (next.expiryDate !== current.expiryDate) {
    await client.query('UPDATE ppsr_search_keys SET expiry_date = $2 WHERE registration_number = $1', [
      current.registrationNumber,
      next.expiryDate,
    ]);
  }
  return row;
}

/** Every version, oldest first (PPSR_55). */
export async function listVersions(client: Client, registrationNumber: string): Promise<VersionRow[]> {
  const result = await client.query<VersionRow>(
    `SELECT version, change, changed_at AS "changedAt", to_char(expiry_date, 'YYYY-MM-DD') AS "expiryDate", document
       FROM ppsr_financing_statement_versions WHERE registration_number = $1 ORDER BY version`,
    [registrationNumber],
  );
  return result.rows;
}

/**
 * An organisation's statements discharged in `[from, to)` (PPSR_38), oldest discharge first: one page,
 * and the total counted up to `cap` (the published 50,000) so a count never scans past what can be paged.
 */
export async function dischargedBetween(
  client: Client,
  organisationId: string,
  from: Date,
  to: Date,
  page: { offset: number; limit: number; cap: number },
): Promise<{ total: number; rows: StatementRow[] }> {
  const [count, rows] = await Promise.all([
    client.query<{ total: number }>(
      `SELECT count(*)::int AS total FROM (SELECT 1 FROM ppsr_financing_statements
         WHERE organisation_id = $1 AND discharged_at >= $2 AND discharged_at < $3 LIMIT $4) AS capped`,
      [organisationId, from, to, page.cap],
    ),
    client.query<StatementRow>(
      `SELECT ${STATEMENT_COLUMNS} FROM ppsr_financing_statements
        WHERE organisation_id = $1 AND discharged_at >= $2 AND discharged_at < $3
        ORDER BY discharged_at, registration_number OFFSET $4 LIMIT $5`,
      [organisationId, from, to, page.offset, page.limit],
    ),
  ]);
  return { total: count.rows[0]?.total ?? 0, rows: rows.rows };
}

/** Statements of one secured party group (PPSR_40), by registration number. */
export async function statementsOfGroup(
  client: Client,
  groupId: string,
  page: { offset: number; limit: number },
): Promise<{ total: number; rows: StatementRow[] }> {
  const [count, rows] = await Promise.all([
    client.query<{ total: number }>(
      'SELECT count(*)::int AS total FROM ppsr_financing_statements WHERE secured_party_group_id = $1',
      [groupId],
    ),
    client.query<StatementRow>(
      `SELECT ${STATEMENT_COLUMNS} FROM ppsr_financing_statements WHERE secured_party_group_id = $1
        ORDER BY registration_number OFFSET $2 LIMIT $3`,
      [groupId, page.offset, page.limit],
    ),
  ]);
  return { total: count.rows[0]?.total ?? 0, rows: rows.rows };
}

/** Several statements by registration number, in the order asked. */
export async function getStatements(
  client: Client,
  registrationNumbers: readonly string[],
): Promise<StatementRow[]> {
  if (registrationNumbers.length === 0) return [];
  const result = await client.query<StatementRow>(
    `SELECT ${STATEMENT_COLUMNS} FROM ppsr_financing_statements WHERE registration_number = ANY($1::text[])`,
    [registrationNumbers],
  );
  const byNumber = new Map(result.rows.map((row) => [row.registrationNumber, row]));
  return registrationNumbers.flatMap((n) => byNumber.get(n) ?? []);
}

/**
 * Registration numbers of statements in force on `today` (not discharged, not expired) that a search
 * finds, in key order, at most `limit`. Ours: discharged and expired statements are not search results.
 */
export async function findInForce(
  client: Client,
  lookup: KeyLookup,
  today: string,
  limit: number,
): Promise<string[]> {
  if (lookup.kinds.length === 0) {
    // A registration number search: the statement itself.
    const result = await client.query<{ registration_number: string }>(
      `SELECT registration_number FROM ppsr_financing_statements
        WHERE registration_number = $1 AND discharged_at IS NULL AND expiry_date >= $2`,
      [lookup.keys[0], today],
    );
    return result.rows.map((r) => r.registration_number);
  }
  const conditions = lookup.prefix
    ? // A prefix is a range of the "C"-collated index: [prefix, prefix followed by the highest code point).
      'kind = $1 AND key >= $2 AND key < $2 || chr(1114111)'
    : '(kind, key) IN (SELECT * FROM unnest($1::text[], $2::text[]))';
  const base: unknown[] = lookup.prefix ? [lookup.kinds[0], lookup.keys[0]] : [lookup.kinds, lookup.keys];
  const dateOfBirth = lookup.dateOfBirth ? ' AND date_of_birth = $7' : '';
  // The index alone, in its order, a batch at a time after the last (key, number) seen, so the scan stops
  // as soon as `limit` distinct statements are found (one statement may match by two debtors). Expired
  // statements' keys are skipped by the expiry the index carries; discharged ones have none.
  const found = new Set<string>();
  let after: [string, string] | undefined;
  for (;;) {
    const batch = limit - found.size + 16;
    // The first batch starts at the criterion itself; a later one right after the last (key, number)
    // seen. (One query with both lower bounds lets the planner start the index scan at the weaker one:
    // at the beginning of the kind, not of the prefix.)
    const params = [
      ...base,
      today,
      batch,
      ...(after ?? ['', '']),
      ...(lookup.dateOfBirth ? [lookup.dateOfBirth] : []),
    ];
    const resume = after
      ? ' AND (key, registration_number) > ($5::text COLLATE "C", $6::text)'
      : " AND $5::text = '' AND $6::text = ''";
    const result = await client.query<{ key: string; registration_number: string }>(
      `SELECT key, registration_number FROM ppsr_search_keys
        WHERE ${conditions}${dateOfBirth} AND expiry_date >= $3${resume}
        ORDER BY key, registration_number LIMIT $4`,
      params,
    );
    for (const row of result.rows) {
      if (found.size < limit) found.add(row.registration_number);
    }
    const last = result.rows.at(-1);
    if (found.size >= limit || result.rows.length < batch || !last) break;
    after = [last.key, last.registration_number];
  }
  return [...found];
}

/**
 * Loads the sandbox's generated register with COPY, a chunk at a time: the statements, every version
 * and the current version's search keys, and the chunk's row in `ppsr_seed_chunks`, in one transaction
 * claimed with an advisory lock. A chunk is there whole or not at all; a second seeder skips it.
 */
import { createHash } from 'node:crypto';
import type pg from 'pg';
import { withIndexesDeferred } from '../../../platform/db/bulk-load.ts';
import { copyLine, copyText } from '../../../platform/db/copy-text.ts';
import { withTransaction } from '../../../platform/db/pool.ts';
import { NO_PIN } from '../domain/pin-verifiers.ts';
import { searchKeysOf } from '../domain/search-keys.ts';
import type { Change, StatementDocument } from './statements.ts';

/** One version of a statement as the seed loads it (the sandbox's generator makes them). */
export interface GeneratedVersion {
  change: Change;
  at: Date;
  expiryDate: string;
  document: StatementDocument;
}

/** A financing statement as the seed loads it, with every version it has had. */
export interface GeneratedStatement {
  registrationNumber: string;
  registeredAt: Date;
  /** Oldest first; the last is the current version. */
  versions: GeneratedVersion[];
  expiryDate: string;
  dischargedAt: Date | null;
  /** A known financing statement PIN (the fixtures'); generated statements have none anyone holds. */
  pin?: string;
  /** The customer organisation that registered it (the fixtures': the operators'); none for generated ones. */
  organisationId?: string;
}

const SEED_LOCK_SPACE = 420_017;

/** Generated PINs are never shown: their verifier is of a value no one holds, and matches no PIN. */
const unusablePinHash = (registrationNumber: string, kind: string) =>
  createHash('sha256').update(`generated\u0000${kind}\u0000${registrationNumber}`).digest();
const bytea = (buffer: Buffer) => `\\x${buffer.toString('hex')}`;

function* statementLines(statements: readonly GeneratedStatement[]): Generator<string> {
  for (const s of statements) {
    const current = s.versions.at(-1)!;
    yield copyLine([
      s.registrationNumber,
      s.organisationId ?? null,
      null,
      s.registeredAt.toISOString(),
      s.expiryDate,
      s.dischargedAt?.toISOString(),
      s.versions.length,
      current.at.toISOString(),
      // The fixed test cases' published PIN: the unkeyed form of old (no secret to keep), which the
      // service keys when it starts (store/key-conversion.ts) and verifying accepts meanwhile.
      bytea(
        s.pin
          ? createHash('sha256').update(s.pin).digest()
          : unusablePinHash(s.registrationNumber, 'statement'),
      ),
      s.pin ? null : NO_PIN,
      bytea(unusablePinHash(s.registrationNumber, 'debtor')),
      NO_PIN,
      JSON.stringify(current.document),
    ]);
  }
}

function* versionLines(statements: readonly GeneratedStatement[]): Generator<string> {
  for (const s of statements) {
    for (const [i, v] of s.versions.entries()) {
      yield copyLine([
        s.registrationNumber,
        i + 1,
        v.change,
        v.at.toISOString(),
        v.expiryDate,
        null,
        JSON.stringify(v.document),
      ]);
    }
  }
}

function* keyLines(statements: readonly GeneratedStatement[]): Generator<string> {
  for (const s of statements) {
    // A discharged statement is never found: it has no keys.
    if (s.dischargedAt) continue;
    const { debtors, collaterals } = s.versions.at(-1)!.document;
    for (const key of searchKeysOf(debtors, collaterals)) {
      yield copyLine([key.kind, key.key, s.registrationNumber, key.dateOfBirth, s.expiryDate]);
    }
  }
}

/**
 * Loads chunk `chunk` of seed `seed` (made by `make` only when the chunk is not there yet); returns the
 * statements loaded, 0 when the chunk was loaded before.
 */
export async function loadChunk(
  pool: pg.Pool,
  seed: string,
  chunk: number,
  make: () => GeneratedStatement[],
): Promise<number> {
  return withTransaction(pool, async (client) => {
    // Bulk load: the commit need not wait for the disk (a crash loses at most this chunk, which reloads).
    await client.query('SET LOCAL synchronous_commit = off');
    return copyChunk(client, seed, chunk, make);
  });
}

/** The tables a seed fills. */
export const SEEDED_TABLES = [
  'ppsr_financing_statements',
  'ppsr_financing_statement_versions',
  'ppsr_search_keys',
];

/**
 * Loads many chunks in one transaction, the tables' secondary indexes and foreign keys made once after
 * the load (platform/db/bulk-load.ts) rather than kept row by row; `load` is handed the transaction's
 * client for `copyChunk`.
 */
export async function loadInBulk<T>(pool: pg.Pool, load: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  return withTransaction(pool, async (client) => {
    await client.query('SET LOCAL synchronous_commit = off');
    return withIndexesDeferred(client, SEEDED_TABLES, () => load(client));
  });
}

/** `loadChunk` in the caller's transaction. */
export async function copyChunk(
  client: pg.PoolClient,
  seed: string,
  chunk: number,
  make: () => GeneratedStatement[],
): Promise<number> {
  await client.query('SELECT pg_advisory_xact_lock($1, $2)', [SEED_LOCK_SPACE, chunk]);
  const done = await client.query('SELECT 1 FROM ppsr_seed_chunks WHERE seed = $1 AND chunk = $2', [
    seed,
    chunk,
  ]);
  if (done.rowCount) return 0;
  const statements = make();
  await copyText(
    client,
    `COPY ppsr_financing_statements (registration_number, organisation_id, secured_party_group_id, registered_at,
       expiry_date, discharged_at, version, changed_at, pin_hash, pin_key_ids, debtor_pin_hash, debtor_pin_key_ids,
       document) FROM STDIN`,
    statementLines(statements),
  );
  await copyText(
    client,
    `COPY ppsr_financing_statement_versions (registration_number, version, change, changed_at, expiry_date,
       transaction_id, document) FROM STDIN`,
    versionLines(statements),
  );
  await copyText(
    client,
    'COPY ppsr_search_keys (kind, key, registration_number, date_of_birth, expiry_date) FROM STDIN',
    keyLines(statements),
  );
  await client.query('INSERT INTO ppsr_seed_chunks (seed, chunk, statements) VALUES ($1, $2, $3)', [
    seed,
    chunk,
    statements.length,
  ]);
  return statements.length;
}

/** The chunks of seed `seed` loaded so far. */
export async function loadedChunks(client: Pick<pg.Pool, 'query'>, seed: string): Promise<Set<number>> {
  const result = await client.query<{ chunk: number }>('SELECT chunk FROM ppsr_seed_chunks WHERE seed = $1', [
    seed,
  ]);
  return new Set(result.rows.map((row) => row.chunk));
}

/** Statements loaded so far by seed `seed`. */
export async function seededCount(client: Pick<pg.Pool, 'query'>, seed: string): Promise<number> {
  const result = await client.query<{ total: number }>(
    'SELECT coalesce(sum(statements), 0)::int AS total FROM ppsr_seed_chunks WHERE seed = $1',
    [seed],
  );
  return result.rows[0]?.total ?? 0;
}

/**
 * After a bulk load: the planner's statistics, and the visibility map that lets a search read the keys'
 * index alone (an index-only scan) instead of visiting the table for each key.
 */
export async function settleAfterLoad(pool: pg.Pool): Promise<void> {
  await pool.query('VACUUM (ANALYZE) ppsr_search_keys, ppsr_financing_statements');
}

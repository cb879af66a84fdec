import type { Pool } from 'pg';

/**
 * A fingerprint of tables: per table its row count and the sum of its rows' `xmin` (the transaction
 * that wrote each row version), so any committed insert, update or delete changes it, while a write
 * rolled back leaves it as it was; no row is read as text, so it stays cheap on large tables. A harness
 * takes one before a refused write and one after: they must be equal. `where` leaves rows out (e.g. a
 * cache filled by reads).
 */
export interface FingerprintedTables {
  pool: Pool;
  /** Tables whose name starts with one of these (e.g. `nzbn_`), plus the tables named. */
  prefixes?: string[];
  tables?: string[];
  /** Per table, the rows that count (an SQL condition on `t`). */
  where?: Record<string, string>;
}

const listed = new WeakMap<FingerprintedTables, Promise<string[]>>();

async function tablesOf(spec: FingerprintedTables): Promise<string[]> {
  const prefixes = spec.prefixes ?? [];
  const result = await spec.pool.query<{ name: string }>(
    `SELECT table_name AS name FROM information_schema.tables
      WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'
        AND (table_name = ANY($1) OR table_name LIKE ANY($2))
      ORDER BY table_name`,
    [spec.tables ?? [], prefixes.map((p) => `${p.replaceAll('_', '\\_')}%`)],
  );
  return result.rows.map((row) => row.name);
}

export async function fingerprint(...specs: FingerprintedTables[]): Promise<string> {
  const parts: string[] = [];
  for (const spec of specs) {
    let tables = listed.get(spec);
    if (!tables) {
      tables = tablesOf(spec);
      listed.set(spec, tables);
    }
    const names = await tables;
    if (names.length === 0) continue;
    const sql = names
      .map((name) => {
        const where = spec.where?.[name] ? ` WHERE ${spec.where[name]}` : '';
        return `SELECT '${name}' AS name, count(*) AS n,
                  coalesce(sum(t.xmin::text::bigint), 0) AS h FROM "${name}" t${where}`;
      })
      .join(' UNION ALL ');
    const result = await spec.pool.query<{ name: string; n: string; h: string }>(sql);
    parts.push(...result.rows.map((row) => `${row.name}:${row.n}:${row.h}`));
  }
  return parts.join(' ');
}

/**
 * A fingerprint of a whole database by what it holds: per table of its schema its row count and an MD5
 * over its rows' text (in a fixed order), and per sequence its last value. Two databases with the same
 * content give the same map, whatever transactions wrote them (a copy made from a template included);
 * a map, so a failing comparison names the tables that differ.
 */
export async function databaseFingerprint(pool: Pool): Promise<Record<string, string>> {
  const tables = await pool.query<{ name: string }>(
    `SELECT table_name AS name FROM information_schema.tables
      WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name`,
  );
  const fingerprints: Record<string, string> = {};
  for (const { name } of tables.rows) {
    const result = await pool.query<{ n: string; digest: string }>(
      `SELECT count(*) AS n, md5(coalesce(string_agg(r, ',' ORDER BY r), '')) AS digest
         FROM (SELECT md5(t::text) AS r FROM "${name}" t) rows`,
    );
    fingerprints[name] = `${result.rows[0]!.n}:${result.rows[0]!.digest}`;
  }
  const sequences = await pool.query<{ name: string; value: string | null }>(
    `SELECT sequencename AS name, last_value::text AS value FROM pg_sequences
      WHERE schemaname = current_schema() ORDER BY sequencename`,
  );
  for (const { name, value } of sequences.rows) fingerprints[`sequence ${name}`] = value ?? 'unused';
  return fingerprints;
}

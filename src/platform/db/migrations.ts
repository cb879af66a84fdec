import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type pg from 'pg';
import { withTransaction } from './pool.ts';

/**
 * Numbered, forward-only SQL migrations, one folder per module, recorded in `schema_migrations`.
 * A PostgreSQL advisory lock serialises runners, so two processes starting at once apply each file
 * exactly once; each file runs in its own transaction with its record.
 */
export interface MigrationSource {
  /** Module name, e.g. `gateway` or a service's id; versions are per module. */
  module: string;
  dir: string;
}

interface MigrationFile {
  version: number;
  name: string;
  sql: string;
  checksum: string;
}

const LOCK_KEY = 7_361_042_901; // any constant shared by every runner

async function readMigrations(dir: string): Promise<MigrationFile[]> {
  if (!existsSync(dir)) return [];
  const names = (await readdir(dir)).filter((name) => name.endsWith('.sql')).sort();
  const files: MigrationFile[] = [];
  for (const name of names) {
    const match = /^(\d+)_[\w-]+\.sql$/.exec(name);
    if (!match) throw new Error(`migration file ${path.join(dir, name)} must be named NNN_description.sql`);
    const sql = await readFile(path.join(dir, name), 'utf8');
    files.push({
      version: Number(match[1]),
      name,
      sql,
      checksum: createHash('sha256').update(sql).digest('hex'),
    });
  }
  for (let i = 1; i < files.length; i++) {
    if (files[i]?.version === files[i - 1]?.version)
      throw new Error(`two migrations numbered ${files[i]?.version} in ${dir}`);
  }
  return files;
}

export interface MigrationResult {
  applied: string[];
}

export async function migrate(pool: pg.Pool, sources: MigrationSource[]): Promise<MigrationResult> {
  const client = await pool.connect();
  const applied: string[] = [];
  try {
    await client.query('SELECT pg_advisory_lock($1)', [LOCK_KEY]);
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      module text NOT NULL,
      version integer NOT NULL,
      name text NOT NULL,
      checksum text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (module, version))`);
    for (const source of sources) {
      const done = await client.query<{ version: number; checksum: string; name: string }>(
        'SELECT version, checksum, name FROM schema_migrations WHERE module = $1',
        [source.module],
      );
      const known = new Map(done.rows.map((row) => [row.version, row]));
      for (const file of await readMigrations(source.dir)) {
        const previous = known.get(file.version);
        if (previous) {
          if (previous.checksum !== file.checksum) {
            throw new Error(
              `migration ${source.module}/${file.name} was changed after it was applied; migrations are forward-only: add a new file`,
            );
          }
          continue;
        }
        // On the connection that holds the session's advisory lock: each file and its record in one
        // transaction, so a failed file leaves nothing behind and is tried again by the next runner.
        try {
          await withTransaction(client, async () => {
            await client.query(file.sql);
            await client.query(
              'INSERT INTO schema_migrations (module, version, name, checksum) VALUES ($1, $2, $3, $4)',
              [source.module, file.version, file.name, file.checksum],
            );
          });
        } catch (error) {
          throw new Error(`migration ${source.module}/${file.name} failed: ${(error as Error).message}`);
        }
        applied.push(`${source.module}/${file.name}`);
      }
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [LOCK_KEY]).catch(() => {});
    client.release();
  }
  return { applied };
}

/**
 * A fingerprint of the migrations of `sources` (each file's module, name and content): it changes when a
 * file is added, so a database copied from a template made under other migrations is known to need them.
 */
export async function migrationsFingerprint(sources: MigrationSource[]): Promise<string> {
  const hash = createHash('sha256');
  for (const source of sources) {
    for (const file of await readMigrations(source.dir)) {
      hash.update(`${source.module}/${file.name}:${file.checksum}\n`);
    }
  }
  return hash.digest('hex');
}

/** Whether any migration was ever applied to the database (a database made and left empty has none). */
export async function hasMigrations(pool: pg.Pool): Promise<boolean> {
  const table = await pool.query<{ found: boolean }>(
    "SELECT to_regclass('schema_migrations') IS NOT NULL AS found",
  );
  if (table.rows[0]?.found !== true) return false;
  const applied = await pool.query('SELECT 1 FROM schema_migrations LIMIT 1');
  return (applied.rowCount ?? 0) > 0;
}

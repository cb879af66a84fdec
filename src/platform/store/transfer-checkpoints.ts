/**
 * `transfer_checkpoints`: where a batched import's last committed batch ended (platform/transfer/). Each
 * write is made on the batch's own connection, inside its transaction.
 */
import type pg from 'pg';

type Client = Pick<pg.ClientBase, 'query'>;

export interface Checkpoint {
  fileIndex: number;
  line: number;
  records: number;
}

export async function readCheckpoint(
  client: Client,
  register: string,
  fingerprint: string,
): Promise<Checkpoint | undefined> {
  const result = await client.query<Checkpoint>(
    `SELECT file_index AS "fileIndex", line, records FROM transfer_checkpoints
      WHERE register = $1 AND fingerprint = $2`,
    [register, fingerprint],
  );
  return result.rows[0];
}

export async function writeCheckpoint(
  client: Client,
  register: string,
  fingerprint: string,
  checkpoint: Checkpoint,
): Promise<void> {
  await client.query(
    `INSERT INTO transfer_checkpoints (register, fingerprint, file_index, line, records)
     VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (register, fingerprint) DO UPDATE
       SET file_index = EXCLUDED.file_index, line = EXCLUDED.line, records = EXCLUDED.records, updated_at = now()`,
    [register, fingerprint, checkpoint.fileIndex, checkpoint.line, checkpoint.records],
  );
}

export async function deleteCheckpoint(client: Client, register: string, fingerprint: string): Promise<void> {
  await client.query('DELETE FROM transfer_checkpoints WHERE register = $1 AND fingerprint = $2', [
    register,
    fingerprint,
  ]);
}

/**
 * An import's transactions on its own connection (platform/transfer/import.ts): begun, committed and
 * rolled back by hand, since a batched import commits many on one connection.
 */
export const beginImport = async (client: Client): Promise<void> => {
  await client.query('BEGIN');
};
export const commitImport = async (client: Client): Promise<void> => {
  await client.query('COMMIT');
};
export const rollbackImport = async (client: Client): Promise<void> => {
  await client.query('ROLLBACK');
};

/**
 * Brings the planner's statistics up to date (`ANALYZE`, which sees the transaction's own rows) for the
 * tables the import has written to in this transaction that a foreign key refers to and that have grown
 * to twice their size at their last analysis (eight pages at least). A foreign key's check is planned
 * once per connection and kept: planned while the table it looks in was nearly empty, it scans that
 * whole table for every row, and a load into an empty register grew quadratically. An analysis of the
 * table makes such plans again; at each doubling, a load pays for a log of them.
 *
 * Only the columns foreign keys refer to are analysed: the plan of a key's check needs the table's size
 * (which any analysis counts) and its key's statistics, not those of a large document column, whose
 * analysis took ten times as long (a financing statement's `document`: 270 ms rather than 20 ms at
 * 20,000 rows).
 */
export async function analyzeGrown(client: Client): Promise<void> {
  const { rows } = await client.query<{ target: string }>(
    `SELECT format('%I.%I (%s)', t.schemaname, t.relname, keys.columns) AS target
       FROM pg_stat_xact_user_tables t JOIN pg_class c ON c.oid = t.relid
       CROSS JOIN LATERAL (
         SELECT string_agg(DISTINCT quote_ident(a.attname), ', ') AS columns
           FROM pg_constraint f CROSS JOIN unnest(f.confkey) AS k(attnum)
           JOIN pg_attribute a ON a.attrelid = f.confrelid AND a.attnum = k.attnum
          WHERE f.contype = 'f' AND f.confrelid = t.relid) keys
      WHERE t.n_tup_ins > 0
        AND keys.columns IS NOT NULL
        AND pg_relation_size(t.relid) / current_setting('block_size')::int >= 2 * greatest(c.relpages, 8)
      ORDER BY t.relid`,
  );
  if (rows.length > 0) await client.query(`ANALYZE ${rows.map((row) => row.target).join(', ')}`);
}

/** The SQL of `mail_outbox` (gateway database): every message the gateway sends, and what became of it. */
import type { Pool, PoolClient } from 'pg';

export interface OutboxEntry {
  id: string;
  to: string;
  subject: string;
  text: string;
  html?: string | undefined;
  createdAt: Date;
  sentAt: Date | null;
  error: string | null;
}

const COLUMNS = `id, "to", subject, text, html, created_at AS "createdAt", sent_at AS "sentAt", error`;

export async function insertOutboxEntry(
  pool: Pool,
  message: {
    to: string;
    subject: string;
    text: string;
    html: string | null;
    environment: 'sandbox' | 'production' | null;
  },
): Promise<OutboxEntry> {
  const inserted = await pool.query<OutboxEntry>(
    `INSERT INTO mail_outbox ("to", subject, text, html, environment) VALUES ($1, $2, $3, $4, $5)
     RETURNING ${COLUMNS}`,
    [message.to, message.subject, message.text, message.html, message.environment],
  );
  return inserted.rows[0]!;
}

export async function markOutboxSent(pool: Pool, id: string): Promise<OutboxEntry> {
  const sent = await pool.query<OutboxEntry>(
    `UPDATE mail_outbox SET sent_at = now() WHERE id = $1 RETURNING ${COLUMNS}`,
    [id],
  );
  return sent.rows[0]!;
}

export async function markOutboxFailed(pool: Pool, id: string, reason: string): Promise<OutboxEntry> {
  const failed = await pool.query<OutboxEntry>(
    `UPDATE mail_outbox SET error = $2 WHERE id = $1 RETURNING ${COLUMNS}`,
    [id, reason],
  );
  return failed.rows[0]!;
}

/** The newest `limit` messages first, all or those to one address (case-insensitive). */
export async function outboxEntries(pool: Pool, limit: number, to: string | null): Promise<OutboxEntry[]> {
  const result = await pool.query<OutboxEntry>(
    `SELECT ${COLUMNS} FROM mail_outbox WHERE ($1::text IS NULL OR lower("to") = lower($1))
      ORDER BY created_at DESC, id LIMIT $2`,
    [to, limit],
  );
  return result.rows;
}

/**
 * The messages sent from one environment, every column, as one JSON array (what a kept sandbox state
 * holds of the outbox: `replaceEnvironmentMail` puts them back).
 */
export async function environmentMail(pool: Pool | PoolClient, environment: string): Promise<unknown[]> {
  const result = await pool.query<{ mail: unknown[] }>(
    `SELECT coalesce(jsonb_agg(m ORDER BY m.created_at, m.id), '[]'::jsonb) AS mail
       FROM mail_outbox m WHERE m.environment = $1`,
    [environment],
  );
  return result.rows[0]?.mail ?? [];
}

/** Replaces the messages sent from one environment with `mail` (from `environmentMail`), in `tx`. */
export async function replaceEnvironmentMail(
  tx: PoolClient,
  environment: string,
  mail: unknown[],
): Promise<void> {
  await tx.query('DELETE FROM mail_outbox WHERE environment = $1', [environment]);
  await tx.query(
    `INSERT INTO mail_outbox SELECT * FROM jsonb_populate_recordset(NULL::mail_outbox, $1::jsonb)
      WHERE environment = $2`,
    [JSON.stringify(mail), environment],
  );
}

/** The SQL of `mail_outbox` (gateway database): every message the gateway sends, and what became of it. */
import type { Pool } from 'pg';

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
  message: { to: string; subject: string; text: string; html: string | null },
): Promise<OutboxEntry> {
  const inserted = await pool.query<OutboxEntry>(
    `INSERT INTO mail_outbox ("to", subject, text, html) VALUES ($1, $2, $3, $4) RETURNING ${COLUMNS}`,
    [message.to, message.subject, message.text, message.html],
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

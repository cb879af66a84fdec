import nodemailer, { type Transporter } from 'nodemailer';
import type { Pool } from 'pg';

/**
 * Outgoing mail. Every message is first recorded in the outbox (`mail_outbox`), so operators can read
 * what was sent from the portal even when no SMTP server is configured; with `SMTP_URL` it is then
 * handed to that server through nodemailer, and the outcome (sent_at or error) is recorded beside it.
 * A failing SMTP server never fails the caller's action: the error is kept in the outbox.
 */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string | undefined;
}

export interface OutboxEntry extends MailMessage {
  id: string;
  createdAt: Date;
  sentAt: Date | null;
  error: string | null;
}

export interface MailSettings {
  pool: Pool;
  /** smtp:// or smtps:// URL, with credentials in it when the server wants them. */
  smtpUrl?: string | undefined;
  from: string;
}

const COLUMNS = `id, "to", subject, text, html, created_at AS "createdAt", sent_at AS "sentAt", error`;
const MAX_ERROR = 500;

const transports = new Map<string, Transporter>();

function transportFor(smtpUrl: string): Transporter {
  let transport = transports.get(smtpUrl);
  if (!transport) {
    transport = nodemailer.createTransport(smtpUrl);
    transports.set(smtpUrl, transport);
  }
  return transport;
}

/** Closes the SMTP transports this process opened (for tests and shutdown). */
export function closeMailTransports(): void {
  for (const transport of transports.values()) transport.close();
  transports.clear();
}

export async function sendMail(settings: MailSettings, message: MailMessage): Promise<OutboxEntry> {
  const inserted = await settings.pool.query<OutboxEntry>(
    `INSERT INTO mail_outbox ("to", subject, text, html) VALUES ($1, $2, $3, $4) RETURNING ${COLUMNS}`,
    [message.to, message.subject, message.text, message.html ?? null],
  );
  const entry = inserted.rows[0]!;
  if (!settings.smtpUrl) return entry;
  try {
    await transportFor(settings.smtpUrl).sendMail({
      from: settings.from,
      to: message.to,
      subject: message.subject,
      text: message.text,
      ...(message.html ? { html: message.html } : {}),
    });
    const sent = await settings.pool.query<OutboxEntry>(
      `UPDATE mail_outbox SET sent_at = now() WHERE id = $1 RETURNING ${COLUMNS}`,
      [entry.id],
    );
    return sent.rows[0]!;
  } catch (error) {
    const reason = ((error as Error)?.message ?? String(error)).slice(0, MAX_ERROR);
    const failed = await settings.pool.query<OutboxEntry>(
      `UPDATE mail_outbox SET error = $2 WHERE id = $1 RETURNING ${COLUMNS}`,
      [entry.id, reason],
    );
    return failed.rows[0]!;
  }
}

/** The newest messages first. */
export async function listOutbox(
  pool: Pool,
  options: { limit?: number; to?: string } = {},
): Promise<OutboxEntry[]> {
  const limit = Math.min(Math.max(options.limit ?? 100, 1), 1000);
  const result = await pool.query<OutboxEntry>(
    `SELECT ${COLUMNS} FROM mail_outbox WHERE ($1::text IS NULL OR lower("to") = lower($1))
      ORDER BY created_at DESC, id LIMIT ${limit}`,
    [options.to ?? null],
  );
  return result.rows;
}

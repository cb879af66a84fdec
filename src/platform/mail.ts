import type nodemailerModule from 'nodemailer';
import type { Transporter } from 'nodemailer';
import type { Pool } from 'pg';
import { lazyRequire } from './lazy-require.ts';
import {
  insertOutboxEntry,
  markOutboxFailed,
  markOutboxSent,
  type OutboxEntry,
  outboxEntries,
} from './store/mail-outbox.ts';

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

export interface MailSettings {
  pool: Pool;
  /** smtp:// or smtps:// URL, with credentials in it when the server wants them. */
  smtpUrl?: string | undefined;
  from: string;
  /**
   * The environment whose register or jobs send the message (kept beside it: a sandbox reset puts the
   * sandbox's messages back as they were); absent for the gateway's own mail.
   */
  environment?: 'sandbox' | 'production' | undefined;
}

const MAX_ERROR = 500;

const nodemailer = lazyRequire<typeof nodemailerModule>('nodemailer');
const transports = new Map<string, Transporter>();

function transportFor(smtpUrl: string): Transporter {
  let transport = transports.get(smtpUrl);
  if (!transport) {
    transport = nodemailer().createTransport(smtpUrl);
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
  const entry = await insertOutboxEntry(settings.pool, {
    ...message,
    html: message.html ?? null,
    environment: settings.environment ?? null,
  });
  if (!settings.smtpUrl) return entry;
  try {
    await transportFor(settings.smtpUrl).sendMail({
      from: settings.from,
      to: message.to,
      subject: message.subject,
      text: message.text,
      ...(message.html ? { html: message.html } : {}),
    });
    return await markOutboxSent(settings.pool, entry.id);
  } catch (error) {
    const reason = ((error as Error)?.message ?? String(error)).slice(0, MAX_ERROR);
    return markOutboxFailed(settings.pool, entry.id, reason);
  }
}

/** The newest messages first. */
export async function listOutbox(
  pool: Pool,
  options: { limit?: number; to?: string } = {},
): Promise<OutboxEntry[]> {
  const limit = Math.min(Math.max(options.limit ?? 100, 1), 1000);
  return outboxEntries(pool, limit, options.to ?? null);
}

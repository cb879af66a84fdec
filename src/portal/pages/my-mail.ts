import { html, type SafeHtml } from '../../platform/http/html.ts';
import type { OutboxEntry } from '../../platform/store/mail-outbox.ts';
import { formatDate } from '../domain/values.ts';
import type { PortalDeps } from '../index.ts';

/**
 * "My mail": the mail the gateway sent to the signed-in user, read from the outbox when no SMTP server
 * is configured (then the outbox is the only place it is).
 */
export const MY_MAIL = '/portal/mail';

/** After "you get a mail": where to read it when no SMTP server is configured; nothing otherwise. */
export function mailHint(deps: PortalDeps): SafeHtml {
  return deps.mail.smtpUrl
    ? html``
    : html` <span class="mail-hint">No mail server is set up here, so read it under <a href="${MY_MAIL}">My mail</a>.</span>`;
}

/** With an SMTP server the mail is in the user's mailbox, which is what proves the address. */
export function mailSentPage(email: string): SafeHtml {
  return html`<h1>My mail</h1><p class="notice">Mail from the gateway is sent to <code>${email}</code>.</p>`;
}

export function myMailPage(email: string, mails: OutboxEntry[]): SafeHtml {
  return html`<h1>My mail</h1>
<p>No mail server is configured here (<code>SMTP_URL</code>), so the mail the gateway sends to
<code>${email}</code> is kept and shown here, newest first: only yours.</p>
${
  mails.length === 0
    ? html`<p class="notice">No mail to you yet.</p>`
    : html`<table class="stack"><caption class="muted">The last ${mails.length} message${mails.length === 1 ? '' : 's'} to you</caption>
<thead><tr><th scope="col">Sent</th><th scope="col">Message</th></tr></thead>
<tbody>${mails.map(
        (m) => html`<tr><td data-label="Sent">${formatDate(m.createdAt)}</td>
<td data-label="Message"><details><summary>${m.subject}</summary><pre class="mail">${m.text}</pre></details></td></tr>`,
      )}</tbody></table>`
}`;
}

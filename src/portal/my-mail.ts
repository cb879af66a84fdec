import type { FastifyInstance } from 'fastify';
import { html, type SafeHtml } from '../platform/http/html.ts';
import { listOutbox } from '../platform/mail.ts';
import type { PortalDeps } from './index.ts';
import { formatDate, sendPage } from './layout.ts';
import { requireUser } from './session.ts';

/**
 * "My mail": the mail the gateway sent to the signed-in user, read from the outbox when no SMTP server
 * is configured (then the outbox is the only place it is). Only messages addressed to the user's own
 * address are listed (compared case-insensitively, as addresses are unique that way). With an SMTP server
 * the mail goes to the user's mailbox and the page lists nothing: the mailbox is what proves the address.
 */
export const MY_MAIL = '/portal/mail';

/** After "you get a mail": where to read it when no SMTP server is configured; nothing otherwise. */
export function mailHint(deps: PortalDeps): SafeHtml {
  return deps.mail.smtpUrl
    ? html``
    : html` <span class="mail-hint">No mail server is set up here, so read it under <a href="${MY_MAIL}">My mail</a>.</span>`;
}

export function myMailRoutes(scope: FastifyInstance, deps: PortalDeps): void {
  scope.get('/mail', async (request, reply) => {
    const user = requireUser(request);
    if (deps.mail.smtpUrl) {
      return sendPage(
        request,
        reply,
        'My mail',
        html`<h1>My mail</h1><p class="notice">Mail from the gateway is sent to <code>${user.email}</code>.</p>`,
      );
    }
    const mails = await listOutbox(deps.runtime.gateway.pool, { to: user.email, limit: 100 });
    return sendPage(
      request,
      reply,
      'My mail',
      html`<h1>My mail</h1>
<p>No mail server is configured here (<code>SMTP_URL</code>), so the mail the gateway sends to
<code>${user.email}</code> is kept and shown here, newest first: only yours.</p>
${
  mails.length === 0
    ? html`<p class="notice">No mail to you yet.</p>`
    : html`<table class="stack"><caption class="muted">The last ${mails.length} message${mails.length === 1 ? '' : 's'} to you</caption>
<thead><tr><th scope="col">Sent</th><th scope="col">Message</th></tr></thead>
<tbody>${mails.map(
        (m) => html`<tr><td data-label="Sent">${formatDate(m.createdAt)}</td>
<td data-label="Message"><details><summary>${m.subject}</summary><pre class="mail">${m.text}</pre></details></td></tr>`,
      )}</tbody></table>`
}`,
    );
  });
}

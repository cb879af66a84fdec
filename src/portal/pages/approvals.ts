import type { FastifyRequest } from 'fastify';
import type { RegisterAuthority } from '../../identity/domain/register-profiles.ts';
import { html, type SafeHtml } from '../../platform/http/html.ts';
import type { OutboxEntry } from '../../platform/store/mail-outbox.ts';
import { formatDate } from '../domain/values.ts';
import type { SubscriptionRequest } from '../operations/subscriptions.ts';
import { csrfField } from './layout.ts';

/** Operators' pages: the approval queue (its other parts come from billing, sandbox and bulk data) and the outbox. */

/** Requested subscriptions, oldest first, each with its decision form; then the other queues. */
export function approvalsPage(
  request: FastifyRequest,
  pending: SubscriptionRequest[],
  decided: string,
  queues: {
    authorities: SafeHtml;
    access: SafeHtml;
    bulk: SafeHtml;
    credit: SafeHtml;
    registerAuthorities: SafeHtml;
  },
): SafeHtml {
  return html`<h1>Subscription requests</h1>
${decided === 'approved' || decided === 'rejected' ? html`<p class="ok" role="status">The request was ${decided} and the requester was told by mail.</p>` : ''}
${
  pending.length === 0
    ? html`<p class="notice">No requests are waiting.</p>`
    : html`<table class="stack"><caption class="muted">${pending.length} waiting, oldest first</caption>
<thead><tr><th scope="col">Requested</th><th scope="col">By</th><th scope="col">Product</th><th scope="col">Decision</th></tr></thead>
<tbody>${pending.map(
        (r) => html`<tr id="request-${r.id}"><td data-label="Requested">${formatDate(r.createdAt)}</td>
<td data-label="By">${r.userName}<br><code>${r.userEmail}</code></td>
<td data-label="Product">${r.productName}</td>
<td data-label="Decision"><form method="post" action="/portal/operator/approvals/${r.id}">${csrfField(request)}
<label for="reason-${r.id}">Note to the requester (optional)</label>
<input id="reason-${r.id}" name="reason" type="text" maxlength="500">
<button type="submit" name="decision" value="approve" aria-label="Approve ${r.userEmail} for ${r.productName}">Approve</button>
<button type="submit" name="decision" value="reject" class="danger" aria-label="Reject ${r.userEmail} for ${r.productName}">Reject</button>
</form></td></tr>`,
      )}</tbody></table>`
}
${queues.authorities}
${queues.credit}
${queues.registerAuthorities}
${queues.access}
${queues.bulk}`;
}

/**
 * A pending request's documents: each one's type and address, or, for a document uploaded to the
 * register (whose signed URL is made when the register answers, GET /authorities), its identifier.
 */
const documentsOf = (documents: unknown[]): SafeHtml[] =>
  documents.map((item) => {
    const document = item as {
      documentId?: string | null;
      documentType?: string | null;
      url?: { href?: string } | null;
    };
    const uploaded = /^[0-9a-f]{16}$/.test(document.documentId ?? '');
    const where = document.url?.href ?? (uploaded ? `uploaded ${document.documentId}` : 'no address');
    return html`<br>${document.documentType ?? 'document'}: <code>${where}</code>`;
  });

/** Requests for business authority over a register's object (a business number), oldest first. */
export function registerAuthorityQueue(
  request: FastifyRequest,
  pending: (RegisterAuthority & { environment: string; service: string })[],
): SafeHtml {
  return html`<h2>Business authority requests</h2>
${
  pending.length === 0
    ? html`<p class="notice">No requests for business authority are waiting.</p>`
    : html`<table class="stack"><caption class="muted">${pending.length} waiting, oldest first</caption>
<thead><tr><th scope="col">Requested</th><th scope="col">For</th><th scope="col">Over and evidence</th><th scope="col">Decision</th></tr></thead>
<tbody>${pending.map(
        (a) => html`<tr id="authority-${a.id}"><td data-label="Requested">${formatDate(a.updatedAt)}</td>
<td data-label="For">${a.organisationName ?? a.userName ?? ''}<br><code>${a.organisationIdentifier ?? a.userEmail ?? ''}</code></td>
<td data-label="Over and evidence"><strong>${a.environment} ${a.service} ${a.objectId}</strong> (${a.approvalType ?? ''}, ${a.authorityType})${documentsOf(a.documents)}${a.comment ? html`<br>${a.comment}` : ''}</td>
<td data-label="Decision"><form method="post" action="/portal/operator/approvals/authority-requests/${a.id}">${csrfField(request)}
<label for="authority-reason-${a.id}">Reason (optional)</label>
<input id="authority-reason-${a.id}" name="reason" type="text" maxlength="500">
<button type="submit" name="decision" value="approve" aria-label="Accept authority over ${a.objectId}">Accept</button>
<button type="submit" name="decision" value="decline" class="danger" aria-label="Reject authority over ${a.objectId}">Reject</button>
</form></td></tr>`,
      )}</tbody></table>`
}`;
}

export function outboxPage(mails: OutboxEntry[], smtp: boolean): SafeHtml {
  return html`<h1>Mail outbox</h1>
<p>Every message the gateway sent, newest first. ${
    smtp
      ? 'Messages also go to the configured SMTP server; the state column says what it answered.'
      : html`No SMTP server is configured (<code>SMTP_URL</code>), so messages stay here.`
  }</p>
${
  mails.length === 0
    ? html`<p class="notice">No mail yet.</p>`
    : html`<table class="stack"><caption class="muted">The last ${mails.length} messages</caption>
<thead><tr><th scope="col">Created</th><th scope="col">To</th><th scope="col">Message</th><th scope="col">State</th></tr></thead>
<tbody>${mails.map(
        (
          m,
        ) => html`<tr><td data-label="Created">${formatDate(m.createdAt)}</td><td data-label="To"><code>${m.to}</code></td>
<td data-label="Message"><details><summary>${m.subject}</summary><pre>${m.text}</pre></details></td>
<td data-label="State">${m.sentAt ? html`sent ${formatDate(m.sentAt)}` : m.error ? html`<span class="error">failed: ${m.error}</span>` : 'kept in the outbox'}</td></tr>`,
      )}</tbody></table>`
}`;
}

import type { FastifyInstance } from 'fastify';
import { SubscriptionError } from '../gateway/errors.ts';
import { PLATFORM_ERRORS, PROBLEM_ERRORS } from '../platform/http/error-codes.ts';
import { HttpError } from '../platform/http/errors.ts';
import { html } from '../platform/http/html.ts';
import { listOutbox, sendMail } from '../platform/mail.ts';
import { authorityQueue } from './billing.ts';
import { bulkAccessQueue } from './bulk-data.ts';
import type { PortalDeps } from './index.ts';
import { csrfField, field, formatDate, sendPage, UUID } from './layout.ts';
import { accessQueue } from './sandbox.ts';
import { requireOperator } from './session.ts';
import { pendingRequest, pendingRequests } from './store.ts';

/** Operators only: the approval queue (the requester is told by mail) and the mail outbox. */
export function approvalRoutes(scope: FastifyInstance, deps: PortalDeps): void {
  const pool = deps.runtime.gateway.pool;

  scope.get<{ Querystring: { decided?: string } }>('/operator/approvals', async (request, reply) => {
    requireOperator(request);
    const pending = await pendingRequests(pool);
    const decided = String(request.query?.decided ?? '');
    return sendPage(
      request,
      reply,
      'Approvals',
      html`<h1>Subscription requests</h1>
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
${await authorityQueue(request, deps)}
${await accessQueue(request, deps)}
${await bulkAccessQueue(request, deps)}`,
    );
  });

  scope.post<{ Params: { id: string } }>('/operator/approvals/:id', async (request, reply) => {
    requireOperator(request);
    const id = request.params.id;
    const pending = UUID.test(id) ? await pendingRequest(pool, id) : undefined;
    if (!pending) throw new HttpError(PLATFORM_ERRORS.notFound, 'No request with that id is waiting.');
    const decision = field(request.body, 'decision', 20);
    if (decision !== 'approve' && decision !== 'reject') {
      throw new HttpError(PLATFORM_ERRORS.invalidParameter, 'decision: must be approve or reject');
    }
    const reason = field(request.body, 'reason', 500).trim();
    try {
      await deps.runtime.subscriptions.changeState(id, decision === 'approve' ? 'active' : 'cancelled');
    } catch (error) {
      if (error instanceof SubscriptionError) throw new HttpError(PROBLEM_ERRORS.conflict, error.message);
      throw error;
    }
    const approved = decision === 'approve';
    await sendMail(deps.mail, {
      to: pending.userEmail,
      subject: `Your subscription to ${pending.productName} was ${approved ? 'approved' : 'declined'}`,
      text: [
        `Hello ${pending.userName},`,
        '',
        approved
          ? `Your subscription to ${pending.productName} is active. Get your keys in the developer portal: ${deps.runtime.publicUrl.base}/portal/subscriptions`
          : `Your request for a subscription to ${pending.productName} was declined.`,
        ...(reason ? ['', `Note from the operator: ${reason}`] : []),
        '',
        '— Register Services Gateway',
      ].join('\n'),
    });
    return reply.redirect(`/portal/operator/approvals?decided=${approved ? 'approved' : 'rejected'}`, 303);
  });

  scope.get('/operator/outbox', async (request, reply) => {
    requireOperator(request);
    const mails = await listOutbox(pool, { limit: 200 });
    return sendPage(
      request,
      reply,
      'Outbox',
      html`<h1>Mail outbox</h1>
<p>Every message the gateway sent, newest first. ${
        deps.mail.smtpUrl
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
}`,
    );
  });
}

import type { FastifyInstance } from 'fastify';
import { decideAuthority } from '../../identity/operations/authorities.ts';
import { pendingRegisterAuthorities } from '../../identity/store/register-authorities.ts';
import { listOutbox } from '../../platform/mail.ts';
import { checkedDecision } from '../domain/values.ts';
import type { PortalDeps } from '../index.ts';
import { waitingAuthorities } from '../operations/billing.ts';
import { bulkAccessRequests } from '../operations/bulk-data.ts';
import { waitingProductionAccess } from '../operations/sandbox.ts';
import { decideSubscription, pendingRequests } from '../operations/subscriptions.ts';
import { approvalsPage, outboxPage, registerAuthorityQueue } from '../pages/approvals.ts';
import { authorityQueue, directCreditForm } from '../pages/billing.ts';
import { bulkAccessQueue } from '../pages/bulk-data.ts';
import { sendPage } from '../pages/layout.ts';
import { accessQueue } from '../pages/sandbox.ts';
import { requireOperator } from '../session.ts';
import { field, queryValue, textField } from './forms.ts';

/**
 * Operators only: the approval queue — subscriptions, direct debit authorities, requests for business
 * authority, production access and bulk data access (each requester is told by mail, but for business
 * authority, which the requester finds in the register) — and the mail outbox.
 */
export function approvalRoutes(scope: FastifyInstance, deps: PortalDeps): void {
  const pool = deps.runtime.gateway.pool;

  scope.get('/operator/approvals', async (request, reply) => {
    requireOperator(request);
    const queues = {
      authorities: authorityQueue(
        request,
        await waitingAuthorities(deps),
        queryValue(request.query, 'authority'),
      ),
      access: accessQueue(request, await waitingProductionAccess(pool)),
      bulk: bulkAccessQueue(request, await bulkAccessRequests(pool)),
      credit: directCreditForm(request, queryValue(request.query, 'credit')),
      registerAuthorities: registerAuthorityQueue(request, await pendingRegisterAuthorities(pool, 200)),
    };
    const page = approvalsPage(
      request,
      await pendingRequests(pool),
      queryValue(request.query, 'decided'),
      queues,
    );
    return sendPage(request, reply, 'Approvals', page);
  });

  scope.post<{ Params: { id: string } }>('/operator/approvals/:id', async (request, reply) => {
    requireOperator(request);
    const approved = await decideSubscription(
      deps,
      request.params.id,
      field(request.body, 'decision', 20),
      field(request.body, 'reason', 500).trim(),
    );
    return reply.redirect(`/portal/operator/approvals?decided=${approved ? 'approved' : 'rejected'}`, 303);
  });

  // A request for business authority (a register's, e.g. over a business number): accepted or rejected.
  scope.post<{ Params: { id: string } }>(
    '/operator/approvals/authority-requests/:id',
    async (request, reply) => {
      const operator = requireOperator(request);
      const decision = checkedDecision(textField(request.body, 'decision', 20));
      await decideAuthority(pool, request.params.id, decision === 'approve' ? 'ACCEPTED' : 'REJECTED', {
        by: operator.id,
        reason: textField(request.body, 'reason', 500, false),
      });
      return reply.redirect('/portal/operator/approvals', 303);
    },
  );

  scope.get('/operator/outbox', async (request, reply) => {
    requireOperator(request);
    const mails = await listOutbox(pool, { limit: 200 });
    return sendPage(request, reply, 'Outbox', outboxPage(mails, Boolean(deps.mail.smtpUrl)));
  });
}

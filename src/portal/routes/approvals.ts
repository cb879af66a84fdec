import type { FastifyInstance } from 'fastify';
import { listOutbox } from '../../platform/mail.ts';
import type { PortalDeps } from '../index.ts';
import { waitingAuthorities } from '../operations/billing.ts';
import { bulkAccessRequests } from '../operations/bulk-data.ts';
import { waitingProductionAccess } from '../operations/sandbox.ts';
import { decideSubscription, pendingRequests } from '../operations/subscriptions.ts';
import { approvalsPage, outboxPage } from '../pages/approvals.ts';
import { authorityQueue, directCreditForm } from '../pages/billing.ts';
import { bulkAccessQueue } from '../pages/bulk-data.ts';
import { sendPage } from '../pages/layout.ts';
import { accessQueue } from '../pages/sandbox.ts';
import { requireOperator } from '../session.ts';
import { field, queryValue } from './forms.ts';

/**
 * Operators only: the approval queue — subscriptions, direct debit authorities, production access and
 * bulk data access (each requester is told by mail) — and the mail outbox.
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

  scope.get('/operator/outbox', async (request, reply) => {
    requireOperator(request);
    const mails = await listOutbox(pool, { limit: 200 });
    return sendPage(request, reply, 'Outbox', outboxPage(mails, Boolean(deps.mail.smtpUrl)));
  });
}

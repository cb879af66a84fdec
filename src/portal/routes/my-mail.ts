import type { FastifyInstance } from 'fastify';
import { listOutbox } from '../../platform/mail.ts';
import type { PortalDeps } from '../index.ts';
import { sendPage } from '../pages/layout.ts';
import { mailSentPage, myMailPage } from '../pages/my-mail.ts';
import { requireUser } from '../session.ts';

/**
 * "My mail": without `SMTP_URL`, the outbox's messages to the user's own address (compared
 * case-insensitively, as addresses are unique that way), nobody else's; with an SMTP server it lists
 * nothing (the mailbox proves the address).
 */
export function myMailRoutes(scope: FastifyInstance, deps: PortalDeps): void {
  scope.get('/mail', async (request, reply) => {
    const user = requireUser(request);
    if (deps.mail.smtpUrl) return sendPage(request, reply, 'My mail', mailSentPage(user.email));
    const mails = await listOutbox(deps.runtime.gateway.pool, { to: user.email, limit: 100 });
    return sendPage(request, reply, 'My mail', myMailPage(user.email, mails));
  });
}

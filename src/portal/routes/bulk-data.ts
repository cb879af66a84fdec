import { createReadStream } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { checkedDecision, environmentOf, isEnvironment } from '../domain/values.ts';
import { notFound } from '../errors.ts';
import type { PortalDeps } from '../index.ts';
import {
  askForBulkAccess,
  bulkDataOf,
  bulkDownload,
  decideBulkAccess,
  exportNow,
  revokeBulkAccess,
} from '../operations/bulk-data.ts';
import { checkLink } from '../operations/downloads.ts';
import { bulkDataMessage, bulkDataPage } from '../pages/bulk-data.ts';
import { linkRefusal, refusalPage, sendPage } from '../pages/layout.ts';
import { requireOperator, requireUser } from '../session.ts';
import { textField } from './forms.ts';

/**
 * Bulk data by approval: the user's page (ask, state, files with expiring download links), the download
 * itself (the signed link is the permission, checked with the user's access at each download), and the
 * operators' decisions, revocations and "run the export now".
 */
const environmentIn = (body: unknown) =>
  environmentOf((body as Record<string, unknown> | undefined)?.environment);

export function bulkDataRoutes(scope: FastifyInstance, deps: PortalDeps): void {
  scope.get('/bulk-data', async (request, reply) => {
    const data = await bulkDataOf(deps, requireUser(request).id);
    const message = bulkDataMessage((request.query ?? {}) as Record<string, unknown>, data.access);
    return sendPage(request, reply, 'Bulk data', bulkDataPage(request, deps, data, message));
  });

  scope.post('/bulk-data/access', async (request, reply) => {
    const user = requireUser(request);
    const environment = environmentIn(request.body);
    const added = await askForBulkAccess(deps, user, environment, textField(request.body, 'purpose', 2000));
    // Post, then redirect: reloading the page asks nothing twice.
    return reply.redirect(`/portal/bulk-data?${added ? 'asked' : 'already'}=${environment}`, 303);
  });

  scope.get<{ Params: { environment: string; name: string } }>(
    '/bulk-data/:environment/files/:name',
    async (request, reply) => {
      const { environment, name } = request.params;
      if (!isEnvironment(environment)) throw notFound('There is no such environment.');
      const path = `/portal/bulk-data/${environment}/files/${name}`;
      const link = checkLink(deps, path, request.query as Record<string, unknown>);
      if ('refused' in link)
        return refusalPage(request, reply, linkRefusal(link.refused, '/portal/bulk-data'));
      const found = await bulkDownload(deps, environment, name, link.caller);
      if (found === 'no-access') {
        const message = `The link was made for a user without approved ${environment} bulk data access.`;
        return refusalPage(request, reply, {
          status: 403,
          title: 'No bulk data access',
          message,
          back: '/portal/bulk-data',
        });
      }
      if (found === 'gone') {
        const message = 'The month was deleted (only the last months are kept).';
        return refusalPage(request, reply, {
          status: 410,
          title: 'This file is gone',
          message,
          back: '/portal/bulk-data',
        });
      }
      return reply
        .type('application/gzip')
        .header('Content-Disposition', `attachment; filename="${found.file.file}"`)
        .header('Content-Length', String(found.file.bytes))
        .send(createReadStream(found.path));
    },
  );

  scope.post<{ Params: { id: string } }>('/operator/bulk-data/access/:id', async (request, reply) => {
    const operator = requireOperator(request);
    const decision = checkedDecision(textField(request.body, 'decision', 20));
    const reason = textField(request.body, 'reason', 500, decision === 'decline');
    await decideBulkAccess(deps, operator, request.params.id, { decision, reason });
    return reply.redirect('/portal/operator/approvals', 303);
  });

  scope.post<{ Params: { id: string } }>('/operator/bulk-data/access/:id/revoke', async (request, reply) => {
    const operator = requireOperator(request);
    await revokeBulkAccess(deps, operator, request.params.id, textField(request.body, 'reason', 500));
    return reply.redirect('/portal/operator/approvals', 303);
  });

  scope.post('/operator/bulk-data/export', async (request, reply) => {
    requireOperator(request);
    const environment = environmentIn(request.body);
    const done = await exportNow(deps, environment);
    return reply.redirect(
      `/portal/bulk-data?${done ? 'exported' : 'busy'}=${environment}#bulk-${environment}`,
      303,
    );
  });
}

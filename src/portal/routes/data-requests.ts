import { createReadStream } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { LARGE_UPLOAD } from '../../platform/http/body-deadline.ts';
import { html } from '../../platform/http/html.ts';
import { multipartUploads, uploadedFile } from '../../platform/http/multipart.ts';
import { ANSWER_LIMIT, FORMATS, isFormat } from '../domain/data-requests.ts';
import { invalidField } from '../errors.ts';
import type { PortalDeps } from '../index.ts';
import {
  answerDataRequest,
  answerFileFor,
  dataRequestFolder,
  dataRequestsOf,
  declineDataRequest,
  requestQueue,
  sendDataRequest,
} from '../operations/data-requests.ts';
import { checkLink, signedLink } from '../operations/downloads.ts';
import { dataRequestsPage, operatorDataRequestsPage } from '../pages/data-requests.ts';
import { linkRefusal, refusalPage, sendPage } from '../pages/layout.ts';
import { portalContext, requireOperator, requireUser } from '../session.ts';
import { queryValue, textField } from './forms.ts';

/**
 * The offers register's data-request form (spec part A): the user's form and requests, the answer's
 * download (an expiring signed link that works only for its user, signed in), and the operators' answer
 * (a file, multipart, streamed to the data folder, at most ANSWER_LIMIT bytes) or decline.
 */
const filePath = (id: string) => `/portal/data-requests/${id}/file`;

export function dataRequestRoutes(scope: FastifyInstance, deps: PortalDeps): void {
  const pool = deps.runtime.gateway.pool;

  scope.get('/data-requests', async (request, reply) => {
    const user = requireUser(request);
    const mine = await dataRequestsOf(pool, user.id);
    const links = new Map(
      mine
        .filter((r) => r.state === 'answered')
        .map((r) => [r.id, signedLink(deps, filePath(r.id), user.id)]),
    );
    // Shown after sending, while the newest request is still open (a reload later shows its state).
    const sent = queryValue(request.query, 'sent') === '1' && mine[0]?.state === 'open';
    const message = sent
      ? html`<p class="notice" role="status">Your request is recorded; an operator will answer it.</p>`
      : undefined;
    return sendPage(
      request,
      reply,
      'Data requests',
      dataRequestsPage(request, deps, user, mine, links, message),
    );
  });

  scope.post('/data-requests', async (request, reply) => {
    const user = requireUser(request);
    const data = textField(request.body, 'data', 4000);
    const purpose = textField(request.body, 'purpose', 2000);
    const format = textField(request.body, 'format', 10);
    if (!isFormat(format)) throw invalidField('format', `must be one of ${Object.keys(FORMATS).join(', ')}`);
    const contact = textField(request.body, 'contact', 200);
    await sendDataRequest(deps, user, { data, purpose, format, contact });
    // Post, then redirect: reloading the page sends nothing twice.
    return reply.redirect('/portal/data-requests?sent=1', 303);
  });

  scope.get<{ Params: { id: string } }>('/data-requests/:id/file', async (request, reply) => {
    const id = request.params.id;
    const link = checkLink(deps, filePath(id), request.query as Record<string, unknown>);
    if ('refused' in link)
      return refusalPage(request, reply, linkRefusal(link.refused, '/portal/data-requests'));
    const user = portalContext(request).user;
    if (!user) return reply.redirect(`/portal/signin?next=${encodeURIComponent(request.url)}`, 303);
    const back = '/portal/data-requests';
    if (user.id !== link.caller) {
      const message = 'This link was made for another user.';
      return refusalPage(request, reply, { status: 403, title: 'Not your download', message, back });
    }
    const found = await answerFileFor(deps, user, id);
    if (found === 'gone') {
      const message = 'The answer’s file is no longer kept.';
      return refusalPage(request, reply, { status: 410, title: 'This file is gone', message, back });
    }
    return reply
      .type(found.row.contentType ?? 'application/octet-stream')
      .header('Content-Disposition', `attachment; filename="${found.row.fileName.replaceAll('"', '')}"`)
      .header('Content-Length', String(found.size))
      .send(createReadStream(found.location));
  });

  scope.get('/operator/data-requests', async (request, reply) => {
    requireOperator(request);
    const page = operatorDataRequestsPage(
      request,
      await requestQueue(pool),
      queryValue(request.query, 'done'),
    );
    return sendPage(request, reply, 'Data requests', page);
  });

  scope.register(async (upload) => answerRoute(upload, deps));

  scope.post<{ Params: { id: string } }>('/operator/data-requests/:id/decline', async (request, reply) => {
    const operator = requireOperator(request);
    await declineDataRequest(deps, operator, request.params.id, textField(request.body, 'reason', 500));
    return reply.redirect('/portal/operator/data-requests?done=declined', 303);
  });
}

/**
 * The answer: a multipart body read by @fastify/multipart in this scope only (platform/http/multipart.ts), the
 * file streamed to a temporary file in the data folder. Only an operator's body is read at all (checked
 * before parsing); the CSRF token is one of its fields, checked by the portal's `preHandler` as any
 * form's.
 */
async function answerRoute(upload: FastifyInstance, deps: PortalDeps): Promise<void> {
  upload.addHook('preParsing', async (request) => {
    await deps.sessions.load(request);
    requireOperator(request);
  });
  await multipartUploads(upload, { folder: dataRequestFolder(deps), limit: ANSWER_LIMIT, fileField: 'file' });

  upload.post<{ Params: { id: string } }>(
    '/operator/data-requests/:id/answer',
    { bodyLimit: ANSWER_LIMIT, config: { upload: true, ...LARGE_UPLOAD } as object },
    async (request, reply) => {
      const operator = requireOperator(request);
      const file = uploadedFile(request.body, 'file');
      if (!file) throw invalidField('file', 'choose a file to send');
      if (file.bytes === 0) throw invalidField('file', 'the file is empty');
      const note = textField(request.body, 'note', 500, false);
      await answerDataRequest(deps, operator, request.params.id, { file, note });
      return reply.redirect('/portal/operator/data-requests?done=answered', 303);
    },
  );
}

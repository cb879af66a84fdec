import { createReadStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { listUsers } from '../identity/store/users.ts';
import { LARGE_UPLOAD } from '../platform/http/body-deadline.ts';
import { PLATFORM_ERRORS, PROBLEM_ERRORS } from '../platform/http/error-codes.ts';
import { bodyTooLarge, HttpError } from '../platform/http/errors.ts';
import { html } from '../platform/http/html.ts';
import { sendMail } from '../platform/mail.ts';
import {
  checkLink,
  DOWNLOAD_LINK_SECONDS,
  formatBytes,
  refusal,
  signedLink,
  textField,
} from './bulk-data.ts';
import type { PortalDeps } from './index.ts';
import { csrfField, formatDate, sendPage, UUID } from './layout.ts';
import { readMultipart, uploadedFile } from './multipart.ts';
import { mailHint } from './my-mail.ts';
import {
  addDataRequest,
  answerDataRequest,
  type DataRequest,
  type DataRequestFormat,
  dataRequest,
  dataRequestQueue,
  dataRequestsOf,
  declineDataRequest,
} from './requests-store.ts';
import { portalContext, requireOperator, requireUser } from './session.ts';

/**
 * The offers register's data-request form (spec part A: one-off bulk data requests "go through a
 * separate data-request form"). A signed-in user says what data, why, in which format and whom to
 * contact; operators see the open requests and answer one with a file (multipart, streamed to the data
 * folder, at most ANSWER_LIMIT bytes) or decline it with a reason; the requester is mailed and downloads
 * the file by an expiring signed link that only they can use (signed in as the user it was made for).
 */
export const ANSWER_LIMIT = 200 * 1024 * 1024;

const FORMATS: Record<DataRequestFormat, string> = {
  csv: 'CSV',
  json: 'JSON',
  xlsx: 'Excel workbook',
  other: 'Other (say which in the description)',
};

/** Where answers are kept: `RSG_DATA_REQUESTS_DIR`, else `<data folder>/data-requests`. */
export const dataRequestFolder = (deps: PortalDeps): string =>
  path.resolve(process.env.RSG_DATA_REQUESTS_DIR ?? path.join(deps.runtime.config.dataDir, 'data-requests'));

const stateBadge = (state: DataRequest['state']) =>
  html`<span class="badge state-${state === 'answered' ? 'approved' : state === 'declined' ? 'declined' : 'requested'}">${state}</span>`;

export function dataRequestRoutes(scope: FastifyInstance, deps: PortalDeps): void {
  const pool = deps.runtime.gateway.pool;
  const folder = dataRequestFolder(deps);
  const filePath = (id: string) => `/portal/data-requests/${id}/file`;

  const page = async (request: FastifyRequest, sent = false) => {
    const user = requireUser(request);
    const mine = await dataRequestsOf(pool, user.id);
    // Shown after sending, while the newest request is still open (a reload later shows its state).
    const message =
      sent && mine[0]?.state === 'open'
        ? html`<p class="notice" role="status">Your request is recorded; an operator will answer it.</p>`
        : undefined;
    return html`<h1>Data requests</h1>
${message ?? ''}
<p>One-off bulk data from the offers register that the API does not give is asked for here. An operator
answers with a file or declines with a reason; you get a mail either way.${mailHint(deps)}</p>
<section class="card" aria-labelledby="new-request"><h2 id="new-request">Ask for data</h2>
<form method="post" action="/portal/data-requests">${csrfField(request)}
<label for="data">What data</label><p class="hint" id="data-hint">Which records, fields and period, e.g. "every offer's name, issuer and status, 2020 to now".</p>
<textarea id="data" name="data" required maxlength="4000" rows="4" aria-describedby="data-hint"></textarea>
<label for="purpose">Purpose</label><textarea id="purpose" name="purpose" required maxlength="2000" rows="3"></textarea>
<fieldset><legend>Format</legend>${Object.entries(FORMATS).map(
      ([value, label], i) =>
        html`<label><input type="radio" name="format" value="${value}"${i === 0 ? html` checked` : ''}> ${label}</label>`,
    )}</fieldset>
<label for="contact">Contact</label><p class="hint" id="contact-hint">Who to ask about the request: an email address or phone number.</p>
<input id="contact" name="contact" required maxlength="200" value="${user.email}" aria-describedby="contact-hint">
<button type="submit">Send the request</button></form></section>
<section class="card" aria-labelledby="my-requests"><h2 id="my-requests">Your requests</h2>
${
  mine.length === 0
    ? html`<p class="muted">None yet.</p>`
    : html`<table class="stack"><caption class="visually-hidden">Your data requests</caption>
<thead><tr><th scope="col">Asked</th><th scope="col">Data</th><th scope="col">Status</th><th scope="col">Answer</th></tr></thead>
<tbody>${mine.map(
        (
          r,
        ) => html`<tr id="request-${r.id}"><td data-label="Asked">${formatDate(r.createdAt)}</td><td data-label="Data">${r.data}<br><span class="muted">${FORMATS[r.format]}</span></td>
<td data-label="Status">${stateBadge(r.state)}</td>
<td data-label="Answer">${
          r.state === 'answered'
            ? html`<a href="${signedLink(deps, filePath(r.id), user.id)}" download>Download ${r.fileName}</a> (${formatBytes(r.fileBytes ?? 0)})${r.reason ? html`<br>${r.reason}` : ''}`
            : r.state === 'declined'
              ? html`Reason: ${r.reason}`
              : html`<span class="muted">waiting for an operator</span>`
        }</td></tr>`,
      )}</tbody></table>
<p class="hint">Download links live ${DOWNLOAD_LINK_SECONDS / 60} minutes and only work for you, signed in.</p>`
}</section>`;
  };

  scope.get<{ Querystring: { sent?: string } }>('/data-requests', async (request, reply) =>
    sendPage(request, reply, 'Data requests', await page(request, request.query?.sent === '1')),
  );

  scope.post('/data-requests', async (request, reply) => {
    const user = requireUser(request);
    const data = textField(request.body, 'data', 4000);
    const purpose = textField(request.body, 'purpose', 2000);
    const format = textField(request.body, 'format', 10);
    if (!(format in FORMATS)) {
      throw new HttpError(
        PLATFORM_ERRORS.invalidParameter,
        `format: must be one of ${Object.keys(FORMATS).join(', ')}`,
      );
    }
    const contact = textField(request.body, 'contact', 200);
    await addDataRequest(pool, {
      userId: user.id,
      data,
      purpose,
      format: format as DataRequestFormat,
      contact,
    });
    for (const operator of (await listUsers(pool)).filter((u) => u.isOperator)) {
      await sendMail(deps.mail, {
        to: operator.email,
        subject: 'Offers register data request',
        text: `${user.name} <${user.email}> asks for data from the offers register.\n\nData: ${data}\nPurpose: ${purpose}\nFormat: ${FORMATS[format as DataRequestFormat]}\nContact: ${contact}\n\nAnswer in the developer portal: /portal/operator/data-requests\n`,
      });
    }
    // Post, then redirect: reloading the page sends nothing twice.
    return reply.redirect('/portal/data-requests?sent=1', 303);
  });

  scope.get<{ Params: { id: string } }>('/data-requests/:id/file', async (request, reply) => {
    const id = request.params.id;
    const caller = checkLink(deps, request, reply, filePath(id));
    if (typeof caller !== 'string') return caller;
    const user = portalContext(request).user;
    if (!user) {
      return reply.redirect(`/portal/signin?next=${encodeURIComponent(request.url)}`, 303);
    }
    if (user.id !== caller) {
      return refusal(
        request,
        reply,
        403,
        'Not your download',
        'This link was made for another user.',
        '/portal/data-requests',
      );
    }
    const row = UUID.test(id) ? await dataRequest(pool, id) : undefined;
    if (!row || row.userId !== user.id || row.state !== 'answered' || !row.fileName) {
      throw new HttpError(PLATFORM_ERRORS.notFound, 'There is no such answer.');
    }
    const location = path.join(folder, id);
    const size = await stat(location).then(
      (found) => found.size,
      () => undefined,
    );
    if (size === undefined) {
      return refusal(
        request,
        reply,
        410,
        'This file is gone',
        'The answer’s file is no longer kept.',
        '/portal/data-requests',
      );
    }
    return reply
      .type(row.contentType ?? 'application/octet-stream')
      .header('Content-Disposition', `attachment; filename="${row.fileName.replaceAll('"', '')}"`)
      .header('Content-Length', String(size))
      .send(createReadStream(location));
  });

  scope.get('/operator/data-requests', async (request, reply) => {
    requireOperator(request);
    const { open, decided } = await dataRequestQueue(pool);
    const done = String((request.query as Record<string, unknown>)?.done ?? '');
    return sendPage(
      request,
      reply,
      'Data requests',
      html`<h1>Data requests</h1>
${done === 'answered' || done === 'declined' ? html`<p class="ok" role="status">The request was ${done} and the requester was told by mail.</p>` : ''}
<h2>Open</h2>
${
  open.length === 0
    ? html`<p class="notice">No data requests are open.</p>`
    : open.map(
        (
          r,
        ) => html`<section class="card" id="request-${r.id}" aria-labelledby="heading-${r.id}"><h3 id="heading-${r.id}">${r.userName} <code>${r.userEmail}</code>, ${formatDate(r.createdAt)}</h3>
<dl><dt>Data</dt><dd>${r.data}</dd><dt>Purpose</dt><dd>${r.purpose}</dd><dt>Format</dt><dd>${FORMATS[r.format]}</dd><dt>Contact</dt><dd>${r.contact}</dd></dl>
<form method="post" action="/portal/operator/data-requests/${r.id}/answer" enctype="multipart/form-data">${csrfField(request)}
<label for="file-${r.id}">The answer's file (at most ${ANSWER_LIMIT / 1024 / 1024} MB)</label>
<input id="file-${r.id}" name="file" type="file" required>
<label for="note-${r.id}">Note to the requester (optional)</label><input id="note-${r.id}" name="note" maxlength="500">
<button type="submit">Answer with this file</button></form>
<form method="post" action="/portal/operator/data-requests/${r.id}/decline">${csrfField(request)}
<label for="reason-${r.id}">Reason to decline</label><input id="reason-${r.id}" name="reason" required maxlength="500">
<button type="submit" class="danger">Decline</button></form></section>`,
      )
}
<h2>Recently decided</h2>
${
  decided.length === 0
    ? html`<p class="muted">None yet.</p>`
    : html`<table class="stack"><caption class="visually-hidden">Decided data requests</caption>
<thead><tr><th scope="col">Decided</th><th scope="col">By</th><th scope="col">Data</th><th scope="col">Status</th></tr></thead>
<tbody>${decided.map(
        (
          r,
        ) => html`<tr><td data-label="Decided">${formatDate(r.decidedAt)}</td><td data-label="By"><code>${r.userEmail}</code></td>
<td data-label="Data">${r.data}</td><td data-label="Status">${stateBadge(r.state)}${r.fileName ? html` ${r.fileName} (${formatBytes(r.fileBytes ?? 0)})` : ''}</td></tr>`,
      )}</tbody></table>`
}`,
    );
  });

  // The answer: a multipart body streamed to a temporary file in the data folder. Only an operator's
  // body is read at all (checked before parsing); the CSRF token is one of its fields.
  scope.register(async (upload) => {
    upload.addContentTypeParser(
      'multipart/form-data',
      async (request: FastifyRequest, payload: NodeJS.ReadableStream) => {
        const declared = Number(request.headers['content-length'] ?? 0);
        if (declared > ANSWER_LIMIT) throw bodyTooLarge(ANSWER_LIMIT);
        return readMultipart(payload as never, request.headers['content-type'], {
          folder,
          limit: ANSWER_LIMIT,
          fileField: 'file',
        });
      },
    );
    upload.addHook('preParsing', async (request) => {
      await deps.sessions.load(request);
      requireOperator(request);
    });
    // A refused or failed answer leaves no temporary file behind (before the answer is sent, so the
    // file is gone when the client reads it; after a success it was renamed and this does nothing).
    upload.addHook('onSend', async (request) => {
      const file = uploadedFile(request.body, 'file');
      if (file) await rm(file.temporary, { force: true });
    });

    upload.post<{ Params: { id: string } }>(
      '/operator/data-requests/:id/answer',
      { bodyLimit: ANSWER_LIMIT, config: { upload: true, ...LARGE_UPLOAD } as object },
      async (request, reply) => {
        const operator = requireOperator(request);
        const id = request.params.id;
        const file = uploadedFile(request.body, 'file');
        if (!file) throw new HttpError(PLATFORM_ERRORS.invalidParameter, 'file: choose a file to send');
        if (file.bytes === 0)
          throw new HttpError(PLATFORM_ERRORS.invalidParameter, 'file: the file is empty');
        const note = textField(request.body, 'note', 500, false);
        const row = UUID.test(id) ? await dataRequest(pool, id) : undefined;
        if (!row) throw new HttpError(PLATFORM_ERRORS.notFound, 'No data request with that id.');
        if (row.state !== 'open')
          throw new HttpError(PROBLEM_ERRORS.conflict, `The request is ${row.state} already.`);
        await mkdir(folder, { recursive: true });
        const target = path.join(folder, id);
        await rename(file.temporary, target);
        const answered = await answerDataRequest(pool, id, {
          fileName: file.fileName,
          contentType: file.contentType,
          bytes: file.bytes,
          sha256: file.sha256,
          note,
          operatorId: operator.id,
        });
        if (!answered) {
          // Decided meanwhile by another operator: their answer stands.
          await rm(target, { force: true });
          throw new HttpError(PROBLEM_ERRORS.conflict, 'The request was decided meanwhile.');
        }
        await sendMail(deps.mail, {
          to: row.userEmail,
          subject: 'Your offers register data request was answered',
          text: `Hello ${row.userName},\n\nYour data request was answered with ${file.fileName} (${formatBytes(file.bytes)}, SHA-256 ${file.sha256}). Download it, signed in, from the developer portal: /portal/data-requests\n${note ? `\nNote from the operator: ${note}\n` : ''}\n— Register Services Gateway\n`,
        });
        return reply.redirect('/portal/operator/data-requests?done=answered', 303);
      },
    );
  });

  scope.post<{ Params: { id: string } }>('/operator/data-requests/:id/decline', async (request, reply) => {
    const operator = requireOperator(request);
    const id = request.params.id;
    const reason = textField(request.body, 'reason', 500);
    const row = UUID.test(id) ? await dataRequest(pool, id) : undefined;
    if (!row) throw new HttpError(PLATFORM_ERRORS.notFound, 'No data request with that id.');
    if (!(await declineDataRequest(pool, id, { reason, operatorId: operator.id }))) {
      throw new HttpError(PROBLEM_ERRORS.conflict, `The request is ${row.state} already.`);
    }
    await sendMail(deps.mail, {
      to: row.userEmail,
      subject: 'Your offers register data request was declined',
      text: `Hello ${row.userName},\n\nYour data request was declined.\n\nReason: ${reason}\n\n— Register Services Gateway\n`,
    });
    return reply.redirect('/portal/operator/data-requests?done=declined', 303);
  });
}

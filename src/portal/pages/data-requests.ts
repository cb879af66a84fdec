import type { FastifyRequest } from 'fastify';
import { html, type SafeHtml } from '../../platform/http/html.ts';
import { ANSWER_LIMIT, FORMATS } from '../domain/data-requests.ts';
import { DOWNLOAD_LINK_SECONDS } from '../domain/downloads.ts';
import { formatBytes, formatDate } from '../domain/values.ts';
import type { PortalDeps } from '../index.ts';
import type { DataRequest } from '../operations/data-requests.ts';
import type { PortalUser } from '../session.ts';
import type { DataRequestRow } from '../store/data-requests.ts';
import { csrfField } from './layout.ts';
import { mailHint } from './my-mail.ts';

/**
 * The offers register's data-request form and the user's requests (with the answer's download link),
 * and the operators' page: open requests with their answer (a file upload) and decline forms, and the
 * last decided ones.
 */
const stateBadge = (state: DataRequestRow['state']) =>
  html`<span class="badge state-${state === 'answered' ? 'approved' : state === 'declined' ? 'declined' : 'requested'}">${state}</span>`;

/** The form, and the user's requests; `links`: each answered request's download link. */
export function dataRequestsPage(
  request: FastifyRequest,
  deps: PortalDeps,
  user: PortalUser,
  mine: DataRequestRow[],
  links: Map<string, string>,
  message: SafeHtml | undefined,
): SafeHtml {
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
            ? html`<a href="${links.get(r.id) ?? ''}" download>Download ${r.fileName}</a> (${formatBytes(r.fileBytes ?? 0)})${r.reason ? html`<br>${r.reason}` : ''}`
            : r.state === 'declined'
              ? html`Reason: ${r.reason}`
              : html`<span class="muted">waiting for an operator</span>`
        }</td></tr>`,
      )}</tbody></table>
<p class="hint">Download links live ${DOWNLOAD_LINK_SECONDS / 60} minutes and only work for you, signed in.</p>`
}</section>`;
}

export function operatorDataRequestsPage(
  request: FastifyRequest,
  queue: { open: DataRequest[]; decided: DataRequest[] },
  done: string,
): SafeHtml {
  const { open, decided } = queue;
  return html`<h1>Data requests</h1>
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
}`;
}

import type { FastifyRequest } from 'fastify';
import { html, type SafeHtml } from '../../platform/http/html.ts';
import { ENVIRONMENTS, type Environment, type ServiceDefinition } from '../../services/contract.ts';
import { DOWNLOAD_LINK_SECONDS } from '../domain/downloads.ts';
import { formatBytes, formatDate, isEnvironment } from '../domain/values.ts';
import type { PortalDeps } from '../index.ts';
import type { BulkAccess, FileLink } from '../operations/bulk-data.ts';
import { portalContext } from '../session.ts';
import type { BulkAccessRow } from '../store/bulk-access.ts';
import { csrfField } from './layout.ts';
import { mailHint } from './my-mail.ts';

/**
 * Bulk data: per environment the user's access (ask, waiting, declined or revoked with the reason,
 * approved with each month's files and their links), the CSV columns of each data set, the operators'
 * export button; the operators' queue of requests and grants (on the approvals page).
 */
function filesTable(request: FastifyRequest, environment: Environment, links: FileLink[]): SafeHtml {
  if (links.length === 0) {
    return html`<p class="muted">No files yet: the first are written at the next month start of the ${environment}
clock${portalContext(request).user?.isOperator ? ', or when an operator runs the export below' : ''}.</p>`;
  }
  return html`<table class="stack"><caption class="visually-hidden">${environment} bulk data files</caption>
<thead><tr><th scope="col">Month</th><th scope="col">Data</th><th scope="col">File</th><th scope="col">Rows</th><th scope="col">Size</th><th scope="col">SHA-256</th></tr></thead>
<tbody>${links.map(
    ({
      month,
      title,
      file,
      href,
    }) => html`<tr><td data-label="Month" class="nowrap">${month}</td><td data-label="Data">${title}</td>
<td data-label="File"><a href="${href}" download>${file.format.toUpperCase()}<span class="visually-hidden"> file of ${month}</span></a></td>
<td data-label="Rows">${file.rows.toLocaleString('en-NZ')}</td><td data-label="Size" class="nowrap">${formatBytes(file.bytes)}</td>
<td data-label="SHA-256"><code>${file.sha256}</code></td></tr>`,
  )}</tbody></table>
<p class="hint">Links live ${DOWNLOAD_LINK_SECONDS / 60} minutes and work without signing in (e.g. with curl); open this page again for fresh ones.</p>`;
}

function exportForm(request: FastifyRequest, environment: Environment): SafeHtml {
  return html`<form method="post" action="/portal/operator/bulk-data/export">${csrfField(request)}
<input type="hidden" name="environment" value="${environment}">
<button type="submit" class="secondary">Run the ${environment} export now</button>
<p class="hint">Operators: writes this month's files now (e.g. on first start); the page waits until they are written.</p></form>`;
}

function environmentSection(
  request: FastifyRequest,
  deps: PortalDeps,
  environment: Environment,
  mine: BulkAccessRow | undefined,
  files: Map<Environment, FileLink[]>,
): SafeHtml {
  const operator = portalContext(request).user?.isOperator === true;
  let body: SafeHtml;
  if (mine?.state === 'approved') {
    body = html`<p><span class="badge state-approved">approved</span> ${formatDate(mine.decidedAt)}</p>${filesTable(request, environment, files.get(environment) ?? [])}`;
  } else if (mine?.state === 'requested') {
    body = html`<p><span class="badge state-requested">waiting</span> You asked on ${formatDate(mine.createdAt)}; an operator decides and you get a mail.${mailHint(deps)}</p>`;
  } else {
    body = html`${
      mine?.state === 'declined' || mine?.state === 'revoked'
        ? html`<p><span class="badge state-declined">${mine.state}</span> ${mine.state === 'revoked' ? html`Your access was revoked on ${formatDate(mine.decidedAt)}; its download links no longer work. ` : ''}${mine.reason ? html`Reason: ${mine.reason}${/[.!?]$/.test(mine.reason) ? '' : '.'} ` : ''}You may ask again.</p>`
        : ''
    }<form method="post" action="/portal/bulk-data/access">${csrfField(request)}
<input type="hidden" name="environment" value="${environment}">
<label for="purpose-${environment}">What you will use the ${environment} data for</label>
<textarea id="purpose-${environment}" name="purpose" required maxlength="2000" rows="3"></textarea>
<button type="submit">Ask for ${environment} bulk data access</button></form>`;
  }
  return html`<section class="card" aria-labelledby="bulk-${environment}"><h2 id="bulk-${environment}">${environment === 'sandbox' ? 'Sandbox' : 'Production'}</h2>${body}${
    operator ? exportForm(request, environment) : ''
  }</section>`;
}

/** The CSV columns of each data set, with what each holds. */
function columnsSection(service: ServiceDefinition): SafeHtml {
  return html`<section class="card" aria-labelledby="columns-${service.id}"><h2 id="columns-${service.id}">${service.bulkData!.title}</h2>
<p>JSON: an array with one record a line, each ${service.bulkData!.jsonRecord}. CSV (RFC 4180, a header line, UTF-8):</p>
<table class="stack"><caption class="visually-hidden">CSV columns</caption><thead><tr><th scope="col">Column</th><th scope="col">What it holds</th></tr></thead>
<tbody>${service.bulkData!.columns.map(
    (column) =>
      html`<tr><td data-label="Column"><code>${column.name}</code></td><td data-label="What it holds">${column.description}</td></tr>`,
  )}</tbody></table></section>`;
}

export function bulkDataPage(
  request: FastifyRequest,
  deps: PortalDeps,
  data: { access: Map<Environment, BulkAccessRow>; files: Map<Environment, FileLink[]> },
  message?: SafeHtml,
): SafeHtml {
  const sections = ENVIRONMENTS.map((environment) =>
    environmentSection(request, deps, environment, data.access.get(environment), data.files),
  );
  const services = deps.runtime.services.filter((service) => service.bulkData);
  return html`<h1>Bulk data</h1>
${message ?? ''}
<p>The registers' public data as files, outside the API, by separate approval: one JSON and one CSV file (gzip) per
month, written at each month start of the environment's clock (New Zealand time). Files of the last months are kept.</p>
${sections}
${services.map(columnsSection)}`;
}

/**
 * What the page says after a request or an export (`?asked=`, `?already=`, `?exported=`, `?busy=` name
 * the environment). A message about a request shows only while it still says what is true (a reload
 * after the decision shows the state instead).
 */
export function bulkDataMessage(
  query: Record<string, unknown>,
  access: Map<Environment, BulkAccessRow>,
): SafeHtml | undefined {
  const said = (environment: unknown, text: string) =>
    isEnvironment(environment)
      ? html`<p class="notice" role="status">${text.replace('ENV', environment)}</p>`
      : undefined;
  const stateIs = (environment: unknown, states: string[]) =>
    isEnvironment(environment) && states.includes(access.get(environment)?.state ?? 'none')
      ? environment
      : undefined;
  return (
    said(
      stateIs(query.asked, ['requested']),
      'Your ENV request is waiting for an operator; you get a mail when it is decided.',
    ) ??
    said(
      stateIs(query.already, ['requested', 'approved']),
      'You already have ENV access or a request waiting there.',
    ) ??
    said(query.exported, 'The ENV export ran; its files are listed below.') ??
    said(query.busy, 'Another process is writing the ENV export now; its files appear here when it is done.')
  );
}

/** The operators' part of the approval page: bulk data access requests, oldest first, and approved grants. */
export function bulkAccessQueue(
  request: FastifyRequest,
  { waiting, approved }: { waiting: BulkAccess[]; approved: BulkAccess[] },
): SafeHtml {
  return html`<h2>Bulk data access requests</h2>
${
  waiting.length === 0
    ? html`<p class="notice">No bulk data access requests are waiting.</p>`
    : html`<table class="stack"><caption class="muted">${waiting.length} waiting, oldest first</caption>
<thead><tr><th scope="col">Requested</th><th scope="col">By</th><th scope="col">Environment and purpose</th><th scope="col">Decision</th></tr></thead>
<tbody>${waiting.map(
        (
          r,
        ) => html`<tr><td data-label="Requested">${formatDate(r.createdAt)}</td><td data-label="By">${r.userName}<br><code>${r.userEmail}</code></td>
<td data-label="Environment and purpose"><strong>${r.environment}</strong><br>${r.purpose}</td>
<td data-label="Decision"><form method="post" action="/portal/operator/bulk-data/access/${r.id}">${csrfField(request)}
<label for="bulk-reason-${r.id}">Reason (needed to decline)</label>
<input id="bulk-reason-${r.id}" name="reason" type="text" maxlength="500">
<button type="submit" name="decision" value="approve" aria-label="Approve ${r.environment} bulk data for ${r.userEmail}">Approve</button>
<button type="submit" name="decision" value="decline" class="danger" aria-label="Decline ${r.environment} bulk data for ${r.userEmail}">Decline</button></form></td></tr>`,
      )}</tbody></table>`
}
<h2>Approved bulk data access</h2>
${
  approved.length === 0
    ? html`<p class="notice">No one has bulk data access.</p>`
    : html`<table class="stack"><caption class="muted">${approved.length} approved, most recent first</caption>
<thead><tr><th scope="col">Approved</th><th scope="col">User</th><th scope="col">Environment and purpose</th><th scope="col">Revoke</th></tr></thead>
<tbody>${approved.map(
        (
          r,
        ) => html`<tr><td data-label="Approved">${formatDate(r.decidedAt)}</td><td data-label="User">${r.userName}<br><code>${r.userEmail}</code></td>
<td data-label="Environment and purpose"><strong>${r.environment}</strong><br>${r.purpose}</td>
<td data-label="Revoke"><form method="post" action="/portal/operator/bulk-data/access/${r.id}/revoke">${csrfField(request)}
<label for="bulk-revoke-${r.id}">Reason (required; the user is mailed)</label>
<input id="bulk-revoke-${r.id}" name="reason" type="text" maxlength="500" required>
<button type="submit" class="danger" aria-label="Revoke ${r.environment} bulk data for ${r.userEmail}">Revoke</button></form></td></tr>`,
      )}</tbody></table>`
}`;
}

import { createReadStream } from 'node:fs';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { readSettings } from '../config.ts';
import { listUsers } from '../identity/store/users.ts';
import { bulkDataFolder, bulkFile, listBulkExports } from '../platform/bulk-files.ts';
import { PLATFORM_ERRORS } from '../platform/http/error-codes.ts';
import { HttpError } from '../platform/http/errors.ts';
import { html, type SafeHtml } from '../platform/http/html.ts';
import { sendMail } from '../platform/mail.ts';
import { checkSignature, derivedSigningKey, signedQuery } from '../platform/signed-url.ts';
import { ENVIRONMENTS, type Environment, type ServiceDefinition } from '../services/contract.ts';
import type { PortalDeps } from './index.ts';
import { csrfField, formatDate, sendPage, UUID } from './layout.ts';
import { mailHint } from './my-mail.ts';
import {
  approvedBulkAccess,
  bulkAccessOf,
  decideBulkAccess,
  hasBulkAccess,
  requestBulkAccess,
  revokeBulkAccess,
  waitingBulkAccess,
} from './requests-store.ts';
import { portalContext, requireOperator, requireUser } from './session.ts';

/**
 * Bulk data by approval (spec part E: "bulk data files, JSON or CSV, updated monthly, available outside
 * the API by separate approval"). A signed-in user asks for access per environment; an operator approves
 * or declines with a reason (the approvals page), and the user is mailed. The sandbox is by approval too
 * (the spec says "by separate approval"; an operator approves in one click). Approved users see each
 * month's files, written by the service that owns the data (its `bulkData`, at each month start of the
 * environment's clock) and download them by an expiring signed link. Operators may run the export now.
 */
export const DOWNLOAD_LINK_SECONDS = 15 * 60;

/** The key of the portal's download links: derived from the server's secret, never stored. */
export const downloadKey = (deps: PortalDeps): Buffer =>
  derivedSigningKey(deps.runtime.keyedUniform, 'portal|download');

/** A link to `path` for `caller` (a user id), valid DOWNLOAD_LINK_SECONDS of real time. */
export const signedLink = (deps: PortalDeps, path: string, caller: string): string =>
  `${path}?${signedQuery(downloadKey(deps), path, caller, Date.now(), DOWNLOAD_LINK_SECONDS)}`;

/** Checks a download link: the 403 or 410 page when it is refused, else the user it was made for. */
export function checkLink(
  deps: PortalDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  path: string,
): string | FastifyReply {
  const query = request.query as Record<string, unknown>;
  const check = checkSignature(downloadKey(deps), path, query, Date.now());
  if (check === 'valid') return String(query.caller);
  return refusal(
    request,
    reply,
    check === 'expired' ? 410 : 403,
    check === 'expired' ? 'This download link has expired' : 'This download link is not valid',
    check === 'expired'
      ? `Download links live ${DOWNLOAD_LINK_SECONDS / 60} minutes. Open the page again for a new one.`
      : 'The link was changed or was not made by this portal. Open the page again for a new one.',
  );
}

export function refusal(
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  title: string,
  message: string,
  back = '/portal/bulk-data',
): FastifyReply {
  return sendPage(
    request,
    reply,
    title,
    html`<section class="card"><h1>${title}</h1><p role="alert">${message}</p><p><a href="${back}">Back</a></p></section>`,
    status,
  );
}

/** A text field, trimmed: 400 naming it when missing (if required) or longer than `max`. */
export function textField(body: unknown, name: string, max: number, required = true): string {
  const value = (body as Record<string, unknown> | undefined)?.[name];
  const text = typeof value === 'string' ? value.trim() : '';
  if (required && !text) throw new HttpError(PLATFORM_ERRORS.invalidParameter, `${name}: required`);
  if (text.length > max) {
    throw new HttpError(PLATFORM_ERRORS.invalidParameter, `${name}: at most ${max} characters`);
  }
  return text;
}

const environmentOf = (value: unknown): Environment => {
  if (typeof value === 'string' && (ENVIRONMENTS as readonly string[]).includes(value))
    return value as Environment;
  throw new HttpError(PLATFORM_ERRORS.invalidParameter, 'environment: must be sandbox or production');
};

export const formatBytes = (bytes: number): string =>
  bytes < 1024
    ? `${bytes} B`
    : bytes < 1024 * 1024
      ? `${(bytes / 1024).toFixed(1)} KiB`
      : `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

const bulkServices = (deps: PortalDeps): ServiceDefinition[] =>
  deps.runtime.services.filter((s) => s.bulkData);

export function bulkDataRoutes(scope: FastifyInstance, deps: PortalDeps): void {
  const pool = deps.runtime.gateway.pool;

  const filesOf = async (request: FastifyRequest, environment: Environment, userId: string) => {
    const datasets = new Map(bulkServices(deps).map((s) => [s.bulkData!.dataset, s.bulkData!]));
    const exports = (await listBulkExports(bulkDataFolder(environment))).filter((m) =>
      datasets.has(m.dataset),
    );
    if (exports.length === 0) {
      return html`<p class="muted">No files yet: the first are written at the next month start of the ${environment}
clock${portalContext(request).user?.isOperator ? ', or when an operator runs the export below' : ''}.</p>`;
    }
    return html`<table class="stack"><caption class="visually-hidden">${environment} bulk data files</caption>
<thead><tr><th scope="col">Month</th><th scope="col">Data</th><th scope="col">File</th><th scope="col">Rows</th><th scope="col">Size</th><th scope="col">SHA-256</th></tr></thead>
<tbody>${exports.flatMap((manifest) =>
      manifest.files.map(
        (
          file,
        ) => html`<tr><td data-label="Month" class="nowrap">${manifest.month}</td><td data-label="Data">${datasets.get(manifest.dataset)!.title}</td>
<td data-label="File"><a href="${signedLink(deps, `/portal/bulk-data/${environment}/files/${file.file}`, userId)}" download>${file.format.toUpperCase()}<span class="visually-hidden"> file of ${manifest.month}</span></a></td>
<td data-label="Rows">${file.rows.toLocaleString('en-NZ')}</td><td data-label="Size" class="nowrap">${formatBytes(file.bytes)}</td>
<td data-label="SHA-256"><code>${file.sha256}</code></td></tr>`,
      ),
    )}</tbody></table>
<p class="hint">Links live ${DOWNLOAD_LINK_SECONDS / 60} minutes and work without signing in (e.g. with curl); open this page again for fresh ones.</p>`;
  };

  const page = async (request: FastifyRequest, message?: SafeHtml) => {
    const user = requireUser(request);
    const access = await bulkAccessOf(pool, user.id);
    const sections: SafeHtml[] = [];
    for (const environment of ENVIRONMENTS) {
      const mine = access.get(environment);
      let body: SafeHtml;
      if (mine?.state === 'approved') {
        body = html`<p><span class="badge state-approved">approved</span> ${formatDate(mine.decidedAt)}</p>${await filesOf(request, environment, user.id)}`;
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
      sections.push(
        html`<section class="card" aria-labelledby="bulk-${environment}"><h2 id="bulk-${environment}">${environment === 'sandbox' ? 'Sandbox' : 'Production'}</h2>${body}${
          user.isOperator ? exportForm(request, environment) : ''
        }</section>`,
      );
    }
    return html`<h1>Bulk data</h1>
${message ?? ''}
<p>The registers' public data as files, outside the API, by separate approval: one JSON and one CSV file (gzip) per
month, written at each month start of the environment's clock (New Zealand time). Files of the last months are kept.</p>
${sections}
${bulkServices(deps).map(
  (
    service,
  ) => html`<section class="card" aria-labelledby="columns-${service.id}"><h2 id="columns-${service.id}">${service.bulkData!.title}</h2>
<p>JSON: an array with one record a line, each ${service.bulkData!.jsonRecord}. CSV (RFC 4180, a header line, UTF-8):</p>
<table class="stack"><caption class="visually-hidden">CSV columns</caption><thead><tr><th scope="col">Column</th><th scope="col">What it holds</th></tr></thead>
<tbody>${service.bulkData!.columns.map(
    (column) =>
      html`<tr><td data-label="Column"><code>${column.name}</code></td><td data-label="What it holds">${column.description}</td></tr>`,
  )}</tbody></table></section>`,
)}`;
  };

  const exportForm = (request: FastifyRequest, environment: Environment) =>
    html`<form method="post" action="/portal/operator/bulk-data/export">${csrfField(request)}
<input type="hidden" name="environment" value="${environment}">
<button type="submit" class="secondary">Run the ${environment} export now</button>
<p class="hint">Operators: writes this month's files now (e.g. on first start); the page waits until they are written.</p></form>`;

  scope.get<{ Querystring: Record<string, string | undefined> }>('/bulk-data', async (request, reply) => {
    const query = request.query ?? {};
    const said = (environment: string | undefined, text: string) =>
      environment && (ENVIRONMENTS as readonly string[]).includes(environment)
        ? html`<p class="notice" role="status">${text.replace('ENV', environment)}</p>`
        : undefined;
    // A message about a request shows only while it still says what is true (a reload after the
    // decision shows the state instead).
    const access = await bulkAccessOf(pool, requireUser(request).id);
    const stateIs = (environment: string | undefined, states: string[]) =>
      states.includes(access.get(environment as Environment)?.state ?? 'none') ? environment : undefined;
    const message =
      said(
        stateIs(query.asked, ['requested']),
        'Your ENV request is waiting for an operator; you get a mail when it is decided.',
      ) ??
      said(
        stateIs(query.already, ['requested', 'approved']),
        'You already have ENV access or a request waiting there.',
      ) ??
      said(query.exported, 'The ENV export ran; its files are listed below.') ??
      said(
        query.busy,
        'Another process is writing the ENV export now; its files appear here when it is done.',
      );
    return sendPage(request, reply, 'Bulk data', await page(request, message));
  });

  scope.post('/bulk-data/access', async (request, reply) => {
    const user = requireUser(request);
    const environment = environmentOf((request.body as Record<string, unknown>)?.environment);
    const purpose = textField(request.body, 'purpose', 2000);
    const added = await requestBulkAccess(pool, { userId: user.id, environment, purpose });
    if (added) {
      for (const operator of (await listUsers(pool)).filter((u) => u.isOperator)) {
        await sendMail(deps.mail, {
          to: operator.email,
          subject: `Bulk data access request (${environment})`,
          text: `${user.name} <${user.email}> asks for ${environment} bulk data access.\n\nPurpose: ${purpose}\n\nDecide in the developer portal: /portal/operator/approvals\n`,
        });
      }
    }
    // Post, then redirect: reloading the page asks nothing twice.
    return reply.redirect(`/portal/bulk-data?${added ? 'asked' : 'already'}=${environment}`, 303);
  });

  scope.get<{ Params: { environment: string; name: string } }>(
    '/bulk-data/:environment/files/:name',
    async (request, reply) => {
      const { environment, name } = request.params;
      if (!(ENVIRONMENTS as readonly string[]).includes(environment)) {
        throw new HttpError(PLATFORM_ERRORS.notFound, 'There is no such environment.');
      }
      const caller = checkLink(deps, request, reply, `/portal/bulk-data/${environment}/files/${name}`);
      if (typeof caller !== 'string') return caller;
      if (!UUID.test(caller) || !(await hasBulkAccess(pool, caller, environment as Environment))) {
        return refusal(
          request,
          reply,
          403,
          'No bulk data access',
          `The link was made for a user without approved ${environment} bulk data access.`,
        );
      }
      const found = await bulkFile(bulkDataFolder(environment), name);
      if (!found) {
        return refusal(
          request,
          reply,
          410,
          'This file is gone',
          'The month was deleted (only the last months are kept).',
        );
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
    const id = request.params.id;
    const decision = textField(request.body, 'decision', 20);
    if (decision !== 'approve' && decision !== 'decline') {
      throw new HttpError(PLATFORM_ERRORS.invalidParameter, 'decision: must be approve or decline');
    }
    const reason = textField(request.body, 'reason', 500, decision === 'decline');
    const decided = UUID.test(id)
      ? await decideBulkAccess(pool, id, {
          state: decision === 'approve' ? 'approved' : 'declined',
          reason,
          operatorId: operator.id,
        })
      : undefined;
    if (!decided)
      throw new HttpError(PLATFORM_ERRORS.notFound, 'No bulk data request with that id is waiting.');
    await sendMail(deps.mail, {
      to: decided.userEmail,
      subject: `Your ${decided.environment} bulk data access was ${decided.state}`,
      text: [
        `Hello ${decided.userName},`,
        '',
        decided.state === 'approved'
          ? `Your ${decided.environment} bulk data access is approved. The files are on the developer portal: /portal/bulk-data`
          : `Your request for ${decided.environment} bulk data access was declined.`,
        ...(reason
          ? ['', `${decided.state === 'approved' ? 'Note' : 'Reason'} from the operator: ${reason}`]
          : []),
        '',
        '— Register Services Gateway',
      ].join('\n'),
    });
    return reply.redirect('/portal/operator/approvals', 303);
  });

  scope.post<{ Params: { id: string } }>('/operator/bulk-data/access/:id/revoke', async (request, reply) => {
    const operator = requireOperator(request);
    const id = request.params.id;
    const reason = textField(request.body, 'reason', 500);
    const revoked = UUID.test(id)
      ? await revokeBulkAccess(pool, id, { reason, operatorId: operator.id })
      : undefined;
    if (!revoked) throw new HttpError(PLATFORM_ERRORS.notFound, 'No approved bulk data access with that id.');
    await sendMail(deps.mail, {
      to: revoked.userEmail,
      subject: `Your ${revoked.environment} bulk data access was revoked`,
      text: [
        `Hello ${revoked.userName},`,
        '',
        `Your ${revoked.environment} bulk data access was revoked: the download links stop working at once.`,
        '',
        `Reason from the operator: ${reason}`,
        '',
        'You may ask again on the developer portal: /portal/bulk-data',
        '',
        '— Register Services Gateway',
      ].join('\n'),
    });
    return reply.redirect('/portal/operator/approvals', 303);
  });

  scope.post('/operator/bulk-data/export', async (request, reply) => {
    requireOperator(request);
    const environment = environmentOf((request.body as Record<string, unknown>)?.environment);
    let busy = false;
    for (const service of bulkServices(deps)) {
      const manifest = await service.bulkData!.exportNow({
        environment,
        database: deps.runtime.environments[environment],
        clock: deps.runtime.clocks.for(environment),
        settings: readSettings(deps.runtime.config.variables, service.settings),
      });
      if (!manifest) busy = true;
    }
    return reply.redirect(
      `/portal/bulk-data?${busy ? 'busy' : 'exported'}=${environment}#bulk-${environment}`,
      303,
    );
  });
}

/** The operators' part of the approval page: bulk data access requests, oldest first. */
export async function bulkAccessQueue(request: FastifyRequest, deps: PortalDeps): Promise<SafeHtml> {
  const waiting = await waitingBulkAccess(deps.runtime.gateway.pool);
  const approved = await approvedBulkAccess(deps.runtime.gateway.pool);
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

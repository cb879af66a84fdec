import type { FastifyRequest } from 'fastify';
import { html, type SafeHtml } from '../../platform/http/html.ts';
import { CLAIMABLE } from '../domain/sandbox.ts';
import { formatDate } from '../domain/values.ts';
import type { PortalDeps } from '../index.ts';
import type { SandboxAccess } from '../operations/sandbox.ts';
import type { AccessRequestRow } from '../store/access-requests.ts';
import { csrfField } from './layout.ts';
import { mailHint } from './my-mail.ts';

/**
 * Sandbox access: the test businesses the user may claim authority over, the user's sandbox
 * organisations (make one), the dummy direct debit authority (on the billing page), and production
 * access asked of the operators; the operators' queue of those requests (on the approvals page).
 */
export function sandboxPage(
  request: FastifyRequest,
  deps: PortalDeps,
  access: SandboxAccess,
  message?: SafeHtml,
): SafeHtml {
  const { held, organisations } = access;
  return html`<h1>Sandbox access</h1>
${message ?? ''}
<section class="card" aria-labelledby="businesses"><h2 id="businesses">Test businesses you may act for</h2>
<p>Three-legged operations (updates to an entity) need business authority over the entity. In the sandbox you may
claim it yourself over these fixed test businesses:</p>
<table class="stack"><caption class="visually-hidden">Claimable test businesses</caption>
<thead><tr><th scope="col">Business number</th><th scope="col">What it is</th><th scope="col">Your authority</th></tr></thead>
<tbody>${CLAIMABLE.map(
    (
      fixture,
    ) => html`<tr><td data-label="Business number"><code>${fixture.nzbn}</code></td><td data-label="What it is">${fixture.title}</td>
<td data-label="Your authority">${held.has(fixture.nzbn) ? html`<span class="badge state-active">held</span>` : html`<span class="badge">not yet</span>`}</td></tr>`,
  )}</tbody></table>
${
  held.size === CLAIMABLE.length
    ? html`<p>You hold authority over every one of them.</p>`
    : html`<form method="post" action="/portal/sandbox/authorities">${csrfField(request)}<button type="submit">Claim authority over the test businesses</button></form>`
}</section>
<section class="card" aria-labelledby="organisations"><h2 id="organisations">Your sandbox organisations</h2>
<p>An organisation is what the offers register's <code>x-organisation</code> header and the secured interests
register's customer organisation name. Create one and you are its owner.</p>
${
  organisations.length
    ? html`<ul>${organisations.map((o) => html`<li><code>${o.identifier}</code> — ${o.name} (${o.role})</li>`)}</ul>`
    : html`<p class="muted">You belong to no sandbox organisation yet.</p>`
}
<form method="post" action="/portal/sandbox/organisations">${csrfField(request)}
<label for="identifier">Identifier</label><p class="hint" id="identifier-hint">1 to 64 letters, digits, dots, dashes or underscores; unique in the sandbox; not starting with <code>sandbox-</code> (kept for organisations the sandbox makes).</p>
<input id="identifier" name="identifier" required maxlength="64" pattern="[A-Za-z0-9_.\\-]{1,64}" aria-describedby="identifier-hint">
<label for="name">Name</label><input id="name" name="name" maxlength="200">
<button type="submit">Create the organisation and join it</button></form></section>
<section class="card" aria-labelledby="debit"><h2 id="debit">Direct debit authority</h2>
<p>Fee-bearing calls need an approved direct debit authority for the organisation that pays. The sandbox's is a
dummy one, approved at once: request it for your organisation on the <a href="/portal/billing">billing page</a>.</p></section>
${productionSection(request, deps, access.requests)}`;
}

function productionSection(request: FastifyRequest, deps: PortalDeps, mine: AccessRequestRow[]): SafeHtml {
  return html`<section class="card" aria-labelledby="production"><h2 id="production">Production: ask an operator</h2>
<p>In production the same things go to the operators' approval queue; you get a mail when one is decided.${mailHint(deps)}</p>
${
  mine.length
    ? html`<table class="stack"><caption class="visually-hidden">Your production requests</caption>
<thead><tr><th scope="col">Asked</th><th scope="col">For</th><th scope="col">State</th></tr></thead>
<tbody>${mine.map(
        (r) => html`<tr><td data-label="Asked">${formatDate(r.createdAt)}</td>
<td data-label="For">${r.kind === 'organisation' ? html`organisation <code>${r.subject}</code>` : html`authority over <code>${r.subject}</code>`}</td>
<td data-label="State"><span class="badge state-${r.state}">${r.state}</span></td></tr>`,
      )}</tbody></table>`
    : ''
}
<form method="post" action="/portal/access-requests">${csrfField(request)}
<fieldset><legend>What you ask for</legend>
<label><input type="radio" name="kind" value="organisation" checked> A production organisation (you become its owner)</label>
<label><input type="radio" name="kind" value="authority"> Business authority over a business number you act for</label></fieldset>
<label for="subject">Organisation identifier or business number</label>
<input id="subject" name="subject" required maxlength="64">
<label for="request-name">Organisation name, or who you are to the business</label>
<input id="request-name" name="name" maxlength="200">
<button type="submit">Send to the operators</button></form></section>`;
}

/** The operators' part of the approval page: production access requests, oldest first. */
export function accessQueue(
  request: FastifyRequest,
  waiting: (AccessRequestRow & { userEmail: string })[],
): SafeHtml {
  return html`<h2>Production access requests</h2>
${
  waiting.length === 0
    ? html`<p class="notice">No production access requests are waiting.</p>`
    : html`<table class="stack"><caption class="muted">${waiting.length} waiting, oldest first</caption>
<thead><tr><th scope="col">Requested</th><th scope="col">By</th><th scope="col">For</th><th scope="col">Decision</th></tr></thead>
<tbody>${waiting.map(
        (
          r,
        ) => html`<tr><td data-label="Requested">${formatDate(r.createdAt)}</td><td data-label="By"><code>${r.userEmail}</code></td>
<td data-label="For">${r.kind === 'organisation' ? html`organisation <code>${r.subject}</code>` : html`authority over <code>${r.subject}</code>`}${r.name ? html`<br>${r.name}` : ''}</td>
<td data-label="Decision"><form method="post" action="/portal/operator/access/${r.id}">${csrfField(request)}
<button type="submit" name="decision" value="approve" aria-label="Approve ${r.kind} ${r.subject} for ${r.userEmail}">Approve</button>
<button type="submit" name="decision" value="decline" class="danger" aria-label="Decline ${r.kind} ${r.subject} for ${r.userEmail}">Decline</button></form></td></tr>`,
      )}</tbody></table>`
}`;
}

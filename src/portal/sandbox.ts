import type { FastifyInstance, FastifyRequest } from 'fastify';
import { userIdentifierProblem } from '../identity/domain/organisations.ts';
import { IDENTITY_ERRORS, OrganisationError } from '../identity/errors.ts';
import { grantAuthority } from '../identity/operations/authorities.ts';
import { addOrganisation, personalSandboxOrganisation } from '../identity/operations/organisations.ts';
import { listAuthorities } from '../identity/store/authorities.ts';
import { addMember, organisationsOf } from '../identity/store/memberships.ts';
import { listUsers } from '../identity/store/users.ts';
import { PLATFORM_ERRORS, PROBLEM_ERRORS } from '../platform/http/error-codes.ts';
import { HttpError } from '../platform/http/errors.ts';
import { html, type SafeHtml } from '../platform/http/html.ts';
import { sendMail } from '../platform/mail.ts';
import type { PortalDeps } from './index.ts';
import { csrfField, field, formatDate, sendPage, UUID } from './layout.ts';
import { mailHint } from './my-mail.ts';
import { requireOperator, requireUser, safeNext } from './session.ts';
import { accessRequestsOf, decideAccessRequest, requestAccess, waitingAccessRequests } from './store.ts';

/**
 * Self-service sandbox access, without an operator: claim business authority over the documented
 * sandbox test businesses (the business number register's fixed test cases meant for updates), create a
 * sandbox organisation and join it as its owner, and (on the billing page) request the sandbox's dummy
 * direct debit authority. Everything here is the sandbox's only: production organisations and authority
 * stay with the operators.
 */
export interface Claimable {
  nzbn: string;
  title: string;
}
/**
 * The business number register's fixed test cases meant for updates (its README lists them; only the
 * composition root imports a service's files, so they are named here, and a test checks that they are
 * the register's own).
 */
export const CLAIMABLE: readonly Claimable[] = [
  {
    nzbn: '9429000003025',
    title: 'SANDBOX TEST AUTHORITY HOLDER LIMITED: a limited company meant for updates through the API',
  },
];

const IDENTIFIER = /^[\w.-]{1,64}$/;

const object = (nzbn: string) => ({
  environment: 'sandbox' as const,
  service: 'nzbn',
  kind: 'entity',
  id: nzbn,
});

export function sandboxRoutes(scope: FastifyInstance, deps: PortalDeps): void {
  const pool = deps.runtime.gateway.pool;

  const page = async (request: Parameters<typeof requireUser>[0], message?: SafeHtml) => {
    const user = requireUser(request);
    const held = new Set<string>();
    for (const fixture of CLAIMABLE) {
      const authorities = await listAuthorities(pool, object(fixture.nzbn));
      if (authorities.some((authority) => authority.userId === user.id)) held.add(fixture.nzbn);
    }
    const organisations = (await organisationsOf(pool, user.id)).filter((o) => o.environment === 'sandbox');
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
${await productionSection(request)}`;
  };

  const productionSection = async (request: FastifyRequest) => {
    const user = requireUser(request);
    const mine = await accessRequestsOf(pool, user.id);
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
  };

  scope.post('/access-requests', async (request, reply) => {
    const user = requireUser(request);
    const kind = field(request.body, 'kind', 20);
    const subject = field(request.body, 'subject', 200).trim();
    const name = field(request.body, 'name', 200).trim();
    if (kind !== 'organisation' && kind !== 'authority') {
      throw new HttpError(PLATFORM_ERRORS.invalidParameter, 'kind: must be organisation or authority');
    }
    if (kind === 'organisation' && !IDENTIFIER.test(subject)) {
      throw new HttpError(
        PLATFORM_ERRORS.invalidParameter,
        'subject: an organisation identifier is 1 to 64 letters, digits, dots, dashes or underscores',
      );
    }
    if (kind === 'authority' && !/^\d{13}$/.test(subject)) {
      throw new HttpError(PLATFORM_ERRORS.invalidParameter, 'subject: a business number is 13 digits');
    }
    const added = await requestAccess(pool, { userId: user.id, kind, subject, name });
    if (added) {
      for (const operator of (await listUsers(pool)).filter((u) => u.isOperator)) {
        await sendMail(deps.mail, {
          to: operator.email,
          subject: `Production access request: ${kind} ${subject}`,
          text: `${user.name} <${user.email}> asks for ${kind === 'organisation' ? `the production organisation ${subject}` : `business authority over ${subject} in production`}.\n\nDecide in the developer portal: /portal/operator/approvals\n`,
        });
      }
    }
    return sendPage(
      request,
      reply,
      'Sandbox access',
      await page(
        request,
        html`<p class="notice" role="status">${added ? 'Your request is waiting for an operator.' : 'The same request is already waiting for an operator.'}</p>`,
      ),
      added ? 201 : 200,
    );
  });

  scope.get('/sandbox', async (request, reply) =>
    sendPage(request, reply, 'Sandbox access', await page(request)),
  );

  scope.post('/sandbox/authorities', async (request, reply) => {
    const user = requireUser(request);
    for (const fixture of CLAIMABLE) {
      // Dated by the sandbox's clock, as the register's own grants are.
      await grantAuthority(
        pool,
        object(fixture.nzbn),
        { userId: user.id },
        { grantedBy: user.id, at: deps.runtime.clocks.for('sandbox').now() },
      );
    }
    return sendPage(
      request,
      reply,
      'Sandbox access',
      await page(
        request,
        html`<p class="notice" role="status">You now hold business authority over ${CLAIMABLE.length} test business${CLAIMABLE.length === 1 ? '' : 'es'} in the sandbox.</p>`,
      ),
    );
  });

  // One click, from wherever a call needs x-organisation: the user's personal sandbox organisation (a
  // random identifier, the user its only owner; the one the sandbox's fees go to), then back.
  scope.post('/sandbox/personal-organisation', async (request, reply) => {
    const user = requireUser(request);
    await personalSandboxOrganisation(pool, user.id);
    return reply.redirect(safeNext(field(request.body, 'next', 1000), '/portal/sandbox'), 303);
  });

  scope.post('/sandbox/organisations', async (request, reply) => {
    const user = requireUser(request);
    const identifier = field(request.body, 'identifier', 200).trim();
    const name = field(request.body, 'name', 200).trim();
    if (!identifier) throw new HttpError(PLATFORM_ERRORS.invalidParameter, 'identifier: required');
    const reserved = userIdentifierProblem(identifier);
    if (reserved) throw new HttpError(PLATFORM_ERRORS.invalidParameter, `identifier: ${reserved}`);
    let created: Awaited<ReturnType<typeof addOrganisation>>;
    try {
      created = await addOrganisation(pool, { environment: 'sandbox', identifier, name: name || identifier });
    } catch (error) {
      if (error instanceof OrganisationError) {
        const exists = error.code === IDENTITY_ERRORS.organisationExists;
        throw new HttpError(
          exists ? PROBLEM_ERRORS.conflict : PLATFORM_ERRORS.invalidParameter,
          exists ? `identifier: ${error.message}` : `identifier: ${error.message}`,
        );
      }
      throw error;
    }
    await addMember(pool, created.id, user.id, 'owner');
    return sendPage(
      request,
      reply,
      'Sandbox access',
      await page(
        request,
        html`<p class="notice" role="status">The sandbox organisation <code>${created.identifier}</code> exists and you are its owner.</p>`,
      ),
      201,
    );
  });
}

/** The operators' part of the approval page: production access requests, oldest first. */
export async function accessQueue(request: FastifyRequest, deps: PortalDeps): Promise<SafeHtml> {
  const waiting = await waitingAccessRequests(deps.runtime.gateway.pool);
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

export function accessDecisionRoutes(scope: FastifyInstance, deps: PortalDeps): void {
  const pool = deps.runtime.gateway.pool;
  scope.post<{ Params: { id: string } }>('/operator/access/:id', async (request, reply) => {
    const operator = requireOperator(request);
    const id = request.params.id;
    const decision = field(request.body, 'decision', 20);
    if (decision !== 'approve' && decision !== 'decline') {
      throw new HttpError(PLATFORM_ERRORS.invalidParameter, 'decision: must be approve or decline');
    }
    const waiting = UUID.test(id) ? (await waitingAccessRequests(pool)).find((r) => r.id === id) : undefined;
    if (!waiting) throw new HttpError(PLATFORM_ERRORS.notFound, 'No access request with that id is waiting.');
    if (decision === 'approve') {
      // The change first: when it is refused (an identifier taken meanwhile) the request stays waiting.
      if (waiting.kind === 'organisation') {
        let created: Awaited<ReturnType<typeof addOrganisation>>;
        try {
          created = await addOrganisation(pool, {
            environment: 'production',
            identifier: waiting.subject,
            name: waiting.name || waiting.subject,
          });
        } catch (error) {
          if (error instanceof OrganisationError) throw new HttpError(PROBLEM_ERRORS.conflict, error.message);
          throw error;
        }
        await addMember(pool, created.id, waiting.userId, 'owner');
      } else {
        await grantAuthority(
          pool,
          { environment: 'production', service: 'nzbn', kind: 'entity', id: waiting.subject },
          { userId: waiting.userId },
          { grantedBy: operator.id },
        );
      }
    }
    const decided = await decideAccessRequest(
      pool,
      id,
      decision === 'approve' ? 'approved' : 'declined',
      operator.id,
    );
    if (decided) {
      await sendMail(deps.mail, {
        to: decided.userEmail,
        subject: `Your production ${decided.kind} request was ${decided.state}`,
        text: `Your request for ${decided.kind === 'organisation' ? `the production organisation ${decided.subject}` : `business authority over ${decided.subject}`} was ${decided.state}.\n`,
      });
    }
    return reply.redirect('/portal/operator/approvals', 303);
  });
}

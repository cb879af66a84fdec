import type { FastifyInstance } from 'fastify';
import { grantAuthority, listAuthorities } from '../identity/authorities.ts';
import { addMember, addOrganisation, OrganisationError, organisationsOf } from '../identity/organisations.ts';
import { PLATFORM_ERRORS, PROBLEM_ERRORS } from '../platform/http/error-codes.ts';
import { HttpError } from '../platform/http/errors.ts';
import { html, type SafeHtml } from '../platform/http/html.ts';
import type { PortalDeps } from './index.ts';
import { csrfField, field, sendPage } from './layout.ts';
import { requireUser } from './session.ts';

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
<label for="identifier">Identifier</label><p class="hint" id="identifier-hint">1 to 64 letters, digits, dots, dashes or underscores; unique in the sandbox.</p>
<input id="identifier" name="identifier" required maxlength="64" pattern="[A-Za-z0-9_.\\-]{1,64}" aria-describedby="identifier-hint">
<label for="name">Name</label><input id="name" name="name" maxlength="200">
<button type="submit">Create the organisation and join it</button></form></section>
<section class="card" aria-labelledby="debit"><h2 id="debit">Direct debit authority</h2>
<p>Fee-bearing calls need an approved direct debit authority for the organisation that pays. The sandbox's is a
dummy one, approved at once: request it for your organisation on the <a href="/portal/billing">billing page</a>.</p></section>`;
  };

  scope.get('/sandbox', async (request, reply) =>
    sendPage(request, reply, 'Sandbox access', await page(request)),
  );

  scope.post('/sandbox/authorities', async (request, reply) => {
    const user = requireUser(request);
    for (const fixture of CLAIMABLE) {
      await grantAuthority(pool, object(fixture.nzbn), { userId: user.id }, { grantedBy: user.id });
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

  scope.post('/sandbox/organisations', async (request, reply) => {
    const user = requireUser(request);
    const identifier = field(request.body, 'identifier', 200).trim();
    const name = field(request.body, 'name', 200).trim();
    if (!identifier) throw new HttpError(PLATFORM_ERRORS.invalidParameter, 'identifier: required');
    let created: Awaited<ReturnType<typeof addOrganisation>>;
    try {
      created = await addOrganisation(pool, { environment: 'sandbox', identifier, name: name || identifier });
    } catch (error) {
      if (error instanceof OrganisationError) {
        const exists = /exists already/.test(error.message);
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

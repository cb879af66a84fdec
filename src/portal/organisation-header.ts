import type { FastifyRequest } from 'fastify';
import type { Pool } from 'pg';
import { organisationsOf } from '../identity/store/memberships.ts';
import { html, type SafeHtml } from '../platform/http/html.ts';
import type { Environment } from '../services/contract.ts';
import { csrfField } from './layout.ts';
import { portalContext } from './session.ts';

/**
 * The offers register's `x-organisation` in the portal's quick starts and in the reference's try-it.
 * That register refuses a call without it (400 `organisation-required`); its value is the identifier of
 * a sandbox organisation the caller belongs to. The portal fills in the signed-in user's, offers to make
 * the user's personal sandbox organisation in place when there is none (`POST
 * /portal/sandbox/personal-organisation`, sandbox.ts), and tells a signed-out reader what to use.
 */
export const ORGANISATION_HEADER = 'x-organisation';

/** The services whose every call needs `x-organisation` (the register names it in its descriptions). */
export const ORGANISATION_HEADER_SERVICES: ReadonlySet<string> = new Set(['disclose']);

/** The identifier of the user's first organisation in the environment, or undefined when there is none. */
export async function organisationIn(
  pool: Pool,
  userId: string,
  environment: Environment = 'sandbox',
): Promise<string | undefined> {
  const mine = await organisationsOf(pool, userId);
  return mine.find((organisation) => organisation.environment === environment)?.identifier;
}

/** The button that makes the user's personal sandbox organisation and comes back to `next`. */
export function makeOrganisationForm(request: FastifyRequest, next: string): SafeHtml {
  return html`<form method="post" action="/portal/sandbox/personal-organisation" class="inline">${csrfField(request)}
<input type="hidden" name="next" value="${next}">
<button type="submit">Create my sandbox organisation</button></form>`;
}

/**
 * What a page says about `x-organisation` next to a call of a service that needs it: the value filled
 * in, the button to make one, or (signed out) what the value is and where to get it.
 */
export function organisationNote(
  request: FastifyRequest,
  organisation: string | undefined,
  next: string,
): SafeHtml {
  const user = portalContext(request).user;
  if (organisation) {
    return html`<p class="hint">This register also needs <code>${ORGANISATION_HEADER}</code>: your sandbox organisation
<code class="organisation">${organisation}</code> is filled in (others are listed under <a href="/portal/sandbox">Sandbox access</a>).</p>`;
  }
  if (user) {
    return html`<p class="hint">This register also needs <code>${ORGANISATION_HEADER}</code>: the identifier of a sandbox
organisation you belong to. You have none yet: make one here (you become its owner), or choose its identifier under
<a href="/portal/sandbox">Sandbox access</a>.</p>${makeOrganisationForm(request, next)}`;
  }
  return html`<p class="hint">This register also needs <code>${ORGANISATION_HEADER}</code>: the identifier of a sandbox
organisation you belong to, in <code>RSG_ORGANISATION</code>. <a href="/portal/signup">Create an account</a> or
<a href="/portal/signin?next=${encodeURIComponent(next)}">sign in</a>, then make one with one click here or under
Sandbox access; without it the register answers 400 <code>organisation-required</code>.</p>`;
}

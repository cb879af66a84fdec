import type { FastifyRequest } from 'fastify';
import { html, type SafeHtml } from '../../platform/http/html.ts';
import { ORGANISATION_HEADER } from '../domain/organisation-header.ts';
import { portalContext } from '../session.ts';
import { csrfField } from './layout.ts';

/**
 * The offers register's `x-organisation` next to a call of that register (domain/organisation-header.ts):
 * the portal fills in the signed-in user's organisation, offers to make the user's personal sandbox
 * organisation in place when there is none (`POST /portal/sandbox/personal-organisation`,
 * routes/sandbox.ts), and tells a signed-out reader what to use.
 */

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

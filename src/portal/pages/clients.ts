import type { FastifyRequest } from 'fastify';
import type { GrantType, OAuthClient } from '../../identity/domain/clients.ts';
import { defaultScope } from '../../identity/domain/scopes.ts';
import { html, type SafeHtml } from '../../platform/http/html.ts';
import { formatDate } from '../domain/values.ts';
import { csrfField } from './layout.ts';

/** OAuth clients: register (redirect URIs, grants, public or confidential), secret shown once, regenerate. */
const GRANTS: { value: GrantType; label: string }[] = [
  { value: 'client_credentials', label: 'Client credentials (two-legged: the application acts for itself)' },
  { value: 'authorization_code', label: 'Authorization code with PKCE (three-legged: a person signs in)' },
  { value: 'refresh_token', label: 'Refresh tokens (with authorization code)' },
];

export interface ClientForm {
  name?: string;
  environment?: string;
  redirectUris?: string;
  grants?: string[];
  type?: string;
  error?: { field: string; message: string };
}

function registerForm(request: FastifyRequest, state: ClientForm): SafeHtml {
  const error = state.error;
  const grants = new Set(state.grants ?? ['client_credentials']);
  const errorFor = (name: string) =>
    error?.field === name ? html`<p class="error" id="${name}-error" role="alert">${error.message}</p>` : '';
  const describedBy = (name: string, hint?: string) => {
    const ids = [hint, error?.field === name ? `${name}-error` : undefined].filter(Boolean).join(' ');
    return ids ? html` aria-describedby="${ids}"` : '';
  };
  return html`<section class="card" aria-labelledby="register"><h2 id="register">Register a client</h2>
<form method="post" action="/portal/clients">${csrfField(request)}
<label for="name">Name</label>${errorFor('name')}
<input id="name" name="name" type="text" required maxlength="100" value="${state.name ?? ''}"${describedBy('name')}>
<label for="environment">Environment</label>
<select id="environment" name="environment">${(['sandbox', 'production'] as const).map(
    (env) => html`<option value="${env}"${state.environment === env ? ' selected' : ''}>${env}</option>`,
  )}</select>
<fieldset${describedBy('grantTypes')}><legend>Grants</legend>${errorFor('grantTypes')}
${GRANTS.map(
  (g) =>
    html`<label><input type="checkbox" name="grants" value="${g.value}"${grants.has(g.value) ? ' checked' : ''}>${g.label}</label>`,
)}</fieldset>
<fieldset><legend>Type</legend>
<label><input type="radio" name="type" value="confidential"${state.type !== 'public' ? ' checked' : ''}>Confidential: a server that can keep a secret</label>
<label><input type="radio" name="type" value="public"${state.type === 'public' ? ' checked' : ''}>Public: a browser or mobile app (no secret; PKCE only)</label>
</fieldset>
<label for="redirectUris">Redirect URIs, one per line</label>
<p class="hint" id="redirect-hint">Matched exactly. https, or http on localhost / 127.0.0.1. Needed for the authorization code grant.</p>${errorFor('redirectUris')}
<textarea id="redirectUris" name="redirectUris" rows="3"${describedBy('redirectUris', 'redirect-hint')}>${state.redirectUris ?? ''}</textarea>
<button type="submit">Register client</button></form></section>`;
}

export function secretPanel(clientId: string, secret: string | undefined): SafeHtml {
  return html`<div class="secret" role="status"><dl>
<dt>Client id</dt><dd><code class="key" tabindex="0" id="client-id">${clientId}</code></dd>
${
  secret
    ? html`<dt>Client secret</dt><dd><code class="key" tabindex="0" id="client-secret">${secret}</code>
<button type="button" class="secondary" data-copy="client-secret" aria-label="Copy the client secret">Copy</button></dd>`
    : ''
}</dl>${secret ? html`<p><strong>Copy the secret now:</strong> it is shown only on this page and kept only as a hash.</p>` : ''}</div>`;
}

function clientRow(request: FastifyRequest, client: OAuthClient): SafeHtml {
  return html`<tr id="client-${client.clientId}"><td data-label="Client"><strong>${client.name}</strong><br><code>${client.clientId}</code></td>
<td data-label="Environment">${client.environment}</td>
<td data-label="Type">${client.public ? 'public' : 'confidential'}</td>
<td data-label="Grants">${client.grantTypes.join(', ')}</td>
<td data-label="Redirect URIs">${client.redirectUris.map((uri) => html`<code>${uri}</code><br>`)}</td>
<td data-label="Actions"><span class="muted">since ${formatDate(client.createdAt)}</span>${
    client.public
      ? ''
      : html`<form method="post" action="/portal/clients/${client.clientId}/secret">${csrfField(request)}
<button type="submit" class="secondary" aria-label="Regenerate secret of ${client.name}">Regenerate secret</button></form>`
  }</td></tr>`;
}

/** The authorization server's addresses, the user's clients, and the form that registers one. */
export function clientsPage(
  request: FastifyRequest,
  server: { issuer: string; resourceBase: string },
  clients: OAuthClient[],
  state: ClientForm,
  top?: SafeHtml,
): SafeHtml {
  const { issuer } = server;
  const base = server.resourceBase;
  return html`<h1>OAuth clients</h1>${top ?? ''}
<section class="card" aria-labelledby="endpoints"><h2 id="endpoints">The authorization server</h2><dl>
<dt>Issuer (discovery at <code>/.well-known/openid-configuration</code>)</dt><dd><code>${issuer}</code></dd>
<dt>Token endpoint</dt><dd><code>${issuer}/token</code></dd>
<dt>Authorization endpoint</dt><dd><code>${issuer}/auth</code></dd>
<dt>Scopes</dt><dd><code>${defaultScope(base, 'sandbox')}</code> or <code>${defaultScope(base, 'production')}</code>, or per service: <code>nzbn:read</code>, <code>nzbn:write</code> …</dd>
</dl><p class="muted">A call still needs your subscription key; the bearer token adds who is calling.</p></section>
${
  clients.length === 0
    ? html`<p class="notice">You have registered no clients yet.</p>`
    : html`<table class="stack"><caption class="muted">Your clients</caption>
<thead><tr><th scope="col">Client</th><th scope="col">Environment</th><th scope="col">Type</th><th scope="col">Grants</th><th scope="col">Redirect URIs</th><th scope="col">Actions</th></tr></thead>
<tbody>${clients.map((client) => clientRow(request, client))}</tbody></table>`
}
${registerForm(request, state)}`;
}

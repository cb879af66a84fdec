import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { GrantType, OAuthClient } from '../identity/domain/clients.ts';
import { defaultScope } from '../identity/domain/scopes.ts';
import { ClientError } from '../identity/errors.ts';
import { regenerateClientSecret, registerClient } from '../identity/operations/clients.ts';
import { clientsOf } from '../identity/store/oauth-clients.ts';
import { PLATFORM_ERRORS } from '../platform/http/error-codes.ts';
import { HttpError } from '../platform/http/errors.ts';
import { html, type SafeHtml } from '../platform/http/html.ts';
import type { Environment } from '../services/contract.ts';
import type { PortalDeps } from './index.ts';
import { csrfField, field, fields, formatDate, sendPage } from './layout.ts';
import { requireUser } from './session.ts';

/** OAuth clients: register (redirect URIs, grants, public or confidential), secret shown once, regenerate. */
const GRANTS: { value: GrantType; label: string }[] = [
  { value: 'client_credentials', label: 'Client credentials (two-legged: the application acts for itself)' },
  { value: 'authorization_code', label: 'Authorization code with PKCE (three-legged: a person signs in)' },
  { value: 'refresh_token', label: 'Refresh tokens (with authorization code)' },
];

interface FormState {
  name?: string;
  environment?: string;
  redirectUris?: string;
  grants?: string[];
  type?: string;
  error?: { field: string; message: string };
}

function registerForm(request: FastifyRequest, state: FormState): SafeHtml {
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

function secretPanel(clientId: string, secret: string | undefined): SafeHtml {
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

export function clientRoutes(scope: FastifyInstance, deps: PortalDeps): void {
  const pool = deps.runtime.gateway.pool;
  const { issuer } = deps.runtime;
  const base = deps.runtime.config.oauth.resourceBase;

  const listPage = async (request: FastifyRequest, state: FormState, top?: SafeHtml) => {
    const user = requireUser(request);
    const clients = await clientsOf(pool, user.id);
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
  };

  scope.get('/clients', async (request, reply) =>
    sendPage(request, reply, 'OAuth clients', await listPage(request, {})),
  );

  scope.post('/clients', async (request, reply) => {
    const user = requireUser(request);
    const state: FormState = {
      name: field(request.body, 'name', 200).trim(),
      environment: field(request.body, 'environment', 20),
      redirectUris: field(request.body, 'redirectUris', 8000),
      grants: fields(request.body, 'grants'),
      type: field(request.body, 'type', 20),
    };
    const fail = async (error: { field: string; message: string }) =>
      sendPage(request, reply, 'OAuth clients', await listPage(request, { ...state, error }), 400);
    if (state.environment !== 'sandbox' && state.environment !== 'production') {
      return fail({ field: 'environment', message: 'Choose sandbox or production.' });
    }
    const redirectUris = (state.redirectUris ?? '')
      .split(/\r?\n/)
      .map((line) => line.trim())
      .filter(Boolean);
    if (redirectUris.length > 10)
      return fail({ field: 'redirectUris', message: 'At most 10 redirect URIs.' });
    try {
      const { client, clientSecret } = await registerClient(pool, {
        ownerUserId: user.id,
        name: state.name ?? '',
        environment: state.environment as Environment,
        redirectUris,
        grantTypes: (state.grants ?? []) as GrantType[],
        public: state.type === 'public',
      });
      const top = html`<section class="card"><h2>Client ${client.name} registered</h2>${secretPanel(client.clientId, clientSecret)}</section>`;
      return sendPage(request, reply, 'Client registered', await listPage(request, {}, top), 201);
    } catch (error) {
      if (error instanceof ClientError) return fail({ field: error.field, message: error.message });
      throw error;
    }
  });

  scope.post<{ Params: { clientId: string } }>('/clients/:clientId/secret', async (request, reply) => {
    const user = requireUser(request);
    const clientId = request.params.clientId;
    if (!/^[A-Za-z0-9_-]{1,100}$/.test(clientId))
      throw new HttpError(PLATFORM_ERRORS.notFound, 'You have no such client.');
    let secret: string;
    try {
      secret = await regenerateClientSecret(pool, clientId, user.id);
    } catch (error) {
      if (error instanceof ClientError)
        throw new HttpError(PLATFORM_ERRORS.notFound, 'You have no such confidential client.');
      throw error;
    }
    const top = html`<section class="card"><h2>New secret</h2>${secretPanel(clientId, secret)}
<p>The old secret no longer works.</p></section>`;
    return sendPage(request, reply, 'New client secret', await listPage(request, {}, top));
  });
}

import type { FastifyInstance, FastifyRequest } from 'fastify';
import { clientsOf } from '../../identity/store/oauth-clients.ts';
import { html, type SafeHtml } from '../../platform/http/html.ts';
import type { PortalDeps } from '../index.ts';
import { newClientSecret, registerClientOf } from '../operations/clients.ts';
import { type ClientForm, clientsPage, secretPanel } from '../pages/clients.ts';
import { sendPage } from '../pages/layout.ts';
import { requireUser } from '../session.ts';
import { field, fields } from './forms.ts';

/** OAuth clients: register (redirect URIs, grants, public or confidential), secret shown once, regenerate. */
export function clientRoutes(scope: FastifyInstance, deps: PortalDeps): void {
  const pool = deps.runtime.gateway.pool;
  const server = { issuer: deps.runtime.issuer, resourceBase: deps.runtime.config.oauth.resourceBase };
  const page = async (request: FastifyRequest, state: ClientForm, top?: SafeHtml) =>
    clientsPage(request, server, await clientsOf(pool, requireUser(request).id), state, top);

  scope.get('/clients', async (request, reply) =>
    sendPage(request, reply, 'OAuth clients', await page(request, {})),
  );

  scope.post('/clients', async (request, reply) => {
    const user = requireUser(request);
    const form = {
      name: field(request.body, 'name', 200).trim(),
      environment: field(request.body, 'environment', 20),
      redirectUris: field(request.body, 'redirectUris', 8000),
      grants: fields(request.body, 'grants'),
      type: field(request.body, 'type', 20),
    };
    const registered = await registerClientOf(pool, user.id, form);
    if ('error' in registered) {
      return sendPage(
        request,
        reply,
        'OAuth clients',
        await page(request, { ...form, error: registered.error }),
        400,
      );
    }
    const { client, clientSecret } = registered;
    const top = html`<section class="card"><h2>Client ${client.name} registered</h2>${secretPanel(client.clientId, clientSecret)}</section>`;
    return sendPage(request, reply, 'Client registered', await page(request, {}, top), 201);
  });

  scope.post<{ Params: { clientId: string } }>('/clients/:clientId/secret', async (request, reply) => {
    const user = requireUser(request);
    const clientId = request.params.clientId;
    const secret = await newClientSecret(pool, user.id, clientId);
    const top = html`<section class="card"><h2>New secret</h2>${secretPanel(clientId, secret)}
<p>The old secret no longer works.</p></section>`;
    return sendPage(request, reply, 'New client secret', await page(request, {}, top));
  });
}

import type { FastifyInstance } from 'fastify';
import { ORGANISATION_HEADER, ORGANISATION_HEADER_SERVICES } from '../domain/organisation-header.ts';
import { extraHeaders, type TryState, tryProblem, tryUrl } from '../domain/try-it.ts';
import type { PortalDeps } from '../index.ts';
import { organisationIn } from '../operations/sandbox.ts';
import { callSandbox } from '../operations/try-it.ts';
import { sendPage } from '../pages/layout.ts';
import { tryPage } from '../pages/try-it.ts';
import { requireUser } from '../session.ts';
import { field, fields } from './forms.ts';

/**
 * "Try it": a call to the sandbox with a key the user pastes (keys are kept only as hashes, so the
 * portal cannot fill it in), made in-process; the page shows status, headers and body. The path cannot
 * leave the chosen service (domain/try-it.ts).
 */
export function tryRoutes(scope: FastifyInstance, deps: PortalDeps): void {
  const services = deps.runtime.services;

  scope.get<{ Querystring: { service?: string; path?: string } }>('/try', async (request, reply) => {
    const user = requireUser(request);
    const service = String(request.query?.service ?? '');
    const organisation = ORGANISATION_HEADER_SERVICES.has(service)
      ? await organisationIn(deps.runtime.gateway.pool, user.id)
      : undefined;
    const state: TryState = {
      service,
      path: String(request.query?.path ?? '/').slice(0, 2000),
      // A register that needs x-organisation: the user's sandbox organisation in the first row.
      ...(organisation ? { headers: [{ name: ORGANISATION_HEADER, value: organisation }] } : {}),
    };
    return sendPage(request, reply, 'Try it', tryPage(request, state, services));
  });

  scope.post('/try', async (request, reply) => {
    requireUser(request);
    const state: TryState = {
      service: field(request.body, 'service', 50),
      method: field(request.body, 'method', 10).toUpperCase(),
      path: field(request.body, 'path', 2000),
      key: field(request.body, 'key', 300).trim(),
      token: field(request.body, 'token', 8000).trim(),
      body: field(request.body, 'body', 50_000),
    };
    const extra = extraHeaders(fields(request.body, 'headerName'), fields(request.body, 'headerValue'));
    if ('headers' in extra) state.headers = extra.headers;
    const refuse = (error: string) =>
      sendPage(request, reply, 'Try it', tryPage(request, { ...state, error }, services), 400);
    const target = tryUrl(services, state.service ?? '', state.path ?? '');
    if ('error' in target) return refuse(target.error);
    const problem = tryProblem(state, extra);
    if (problem) return refuse(problem);
    const result = await callSandbox(deps.app, state, target.url);
    return sendPage(request, reply, 'Try it', tryPage(request, state, services, result));
  });
}

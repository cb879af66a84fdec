import type { FastifyInstance, FastifyRequest } from 'fastify';
import { personalSandboxOrganisation } from '../../identity/operations/organisations.ts';
import { html, type SafeHtml } from '../../platform/http/html.ts';
import { safeNext } from '../domain/next.ts';
import { CLAIMABLE } from '../domain/sandbox.ts';
import type { PortalDeps } from '../index.ts';
import {
  askForProductionAccess,
  claimTestBusinesses,
  decideProductionAccess,
  makeSandboxOrganisation,
  sandboxAccessOf,
} from '../operations/sandbox.ts';
import { sendPage } from '../pages/layout.ts';
import { sandboxPage } from '../pages/sandbox.ts';
import { requireOperator, requireUser } from '../session.ts';
import { field } from './forms.ts';

/**
 * Self-service sandbox access, without an operator: claim business authority over the documented
 * sandbox test businesses, create a sandbox organisation and join it as its owner, or make the personal
 * one in one click. Everything here is the sandbox's only: in production the same things are asked of
 * the operators, who decide on the approvals page.
 */
export function sandboxRoutes(scope: FastifyInstance, deps: PortalDeps): void {
  const pool = deps.runtime.gateway.pool;
  const show = async (request: FastifyRequest, message?: SafeHtml) => {
    const access = await sandboxAccessOf(pool, requireUser(request).id);
    return sandboxPage(request, deps, access, message);
  };
  const notice = (text: SafeHtml | string) => html`<p class="notice" role="status">${text}</p>`;

  scope.get('/sandbox', async (request, reply) =>
    sendPage(request, reply, 'Sandbox access', await show(request)),
  );

  scope.post('/sandbox/authorities', async (request, reply) => {
    await claimTestBusinesses(deps, requireUser(request).id);
    const told = `You now hold business authority over ${CLAIMABLE.length} test business${CLAIMABLE.length === 1 ? '' : 'es'} in the sandbox.`;
    return sendPage(request, reply, 'Sandbox access', await show(request, notice(told)));
  });

  // One click, from wherever a call needs x-organisation: the user's personal sandbox organisation (a
  // random identifier, the user its only owner; the one the sandbox's fees go to), then back.
  scope.post('/sandbox/personal-organisation', async (request, reply) => {
    await personalSandboxOrganisation(pool, requireUser(request).id);
    return reply.redirect(safeNext(field(request.body, 'next', 1000), '/portal/sandbox'), 303);
  });

  scope.post('/sandbox/organisations', async (request, reply) => {
    const created = await makeSandboxOrganisation(pool, requireUser(request).id, {
      identifier: field(request.body, 'identifier', 200).trim(),
      name: field(request.body, 'name', 200).trim(),
    });
    const told = html`The sandbox organisation <code>${created.identifier}</code> exists and you are its owner.`;
    return sendPage(request, reply, 'Sandbox access', await show(request, notice(told)), 201);
  });

  scope.post('/access-requests', async (request, reply) => {
    const added = await askForProductionAccess(deps, requireUser(request), {
      kind: field(request.body, 'kind', 20),
      subject: field(request.body, 'subject', 200).trim(),
      name: field(request.body, 'name', 200).trim(),
    });
    const told = added
      ? 'Your request is waiting for an operator.'
      : 'The same request is already waiting for an operator.';
    return sendPage(request, reply, 'Sandbox access', await show(request, notice(told)), added ? 201 : 200);
  });

  scope.post<{ Params: { id: string } }>('/operator/access/:id', async (request, reply) => {
    const operator = requireOperator(request);
    await decideProductionAccess(deps, operator, request.params.id, field(request.body, 'decision', 20));
    return reply.redirect('/portal/operator/approvals', 303);
  });
}

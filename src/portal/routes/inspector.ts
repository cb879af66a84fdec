import type { FastifyInstance } from 'fastify';
import { curlCommand } from '../../gateway/domain/inspector.ts';
import type { PortalDeps } from '../index.ts';
import { inspectedCallOf, inspectionOf } from '../operations/inspector.ts';
import { callPage, inspectorPage } from '../pages/inspector.ts';
import { sendPage } from '../pages/layout.ts';
import { requireUser } from '../session.ts';

/** The request inspector of a subscription (its owner only: anyone else gets the 404 of no such subscription). */
export function inspectorRoutes(scope: FastifyInstance, deps: PortalDeps): void {
  scope.get<{ Params: { id: string } }>('/subscriptions/:id/inspector', async (request, reply) => {
    const user = requireUser(request);
    const inspection = await inspectionOf(deps, user, request.params.id);
    return sendPage(
      request,
      reply,
      `Request inspector of ${inspection.subscription.productId}`,
      inspectorPage(inspection),
      200,
      {
        wide: true,
      },
    );
  });
  scope.get<{ Params: { id: string; call: string } }>(
    '/subscriptions/:id/inspector/:call',
    async (request, reply) => {
      const user = requireUser(request);
      const { subscription, call } = await inspectedCallOf(
        deps,
        user,
        request.params.id,
        request.params.call,
      );
      const curl = curlCommand(call, deps.runtime.publicUrl.absolute('/'));
      return sendPage(
        request,
        reply,
        `${call.method} ${call.url.split('?')[0]}`,
        callPage(subscription, call, curl),
        200,
        {
          wide: true,
        },
      );
    },
  );
}

import type { FastifyInstance } from 'fastify';
import type { PortalDeps } from '../index.ts';
import { feesOfMonth } from '../operations/billing.ts';
import { usageOf } from '../operations/subscriptions.ts';
import { feesSection } from '../pages/billing.ts';
import { sendPage } from '../pages/layout.ts';
import { usagePage } from '../pages/usage.ts';
import { requireUser } from '../session.ts';
import { queryValue } from './forms.ts';

/** A subscription's usage: calls per day as a chart and a table, and its fees of the month so far. */
export function usageRoutes(scope: FastifyInstance, deps: PortalDeps): void {
  scope.get<{ Params: { id: string } }>('/subscriptions/:id/usage', async (request, reply) => {
    const user = requireUser(request);
    const asked = queryValue(request.query, 'days') || '30';
    const days = /^\d{1,3}$/.test(asked) ? Math.min(90, Math.max(1, Number(asked))) : 30;
    const { subscription, usage } = await usageOf(deps, user, request.params.id, days);
    const fees = feesSection(await feesOfMonth(deps, subscription));
    const page = usagePage(subscription, days, usage, fees);
    return sendPage(request, reply, `Usage of ${subscription.productId}`, page);
  });
}

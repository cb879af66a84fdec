import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Product } from '../../gateway/domain/products.ts';
import { scenarioKindsOf } from '../../gateway/domain/scenarios.ts';
import { listProducts } from '../../gateway/store/products.ts';
import { baseUrl } from '../domain/products.ts';
import { invalidField } from '../errors.ts';
import type { PortalDeps } from '../index.ts';
import {
  type MySubscription,
  newKeys,
  sandboxSubscriptionOf,
  setScenario,
  subscribe,
  subscriptionOf,
  subscriptionsOf,
} from '../operations/subscriptions.ts';
import { sendPage } from '../pages/layout.ts';
import {
  keysTitle,
  newKeysPage,
  regeneratePage,
  requestedPage,
  scenarioPage,
  subscribedPage,
  subscriptionsPage,
} from '../pages/subscriptions.ts';
import { requireUser } from '../session.ts';
import { field, queryValue, textField } from './forms.ts';

/** Request a subscription, my subscriptions, and keys that are shown once (on the page that made them). */
export function subscriptionRoutes(scope: FastifyInstance, deps: PortalDeps): void {
  const pool = deps.runtime.gateway.pool;

  scope.get('/subscriptions', async (request, reply) => {
    const user = requireUser(request);
    const [mine, products] = await Promise.all([subscriptionsOf(pool, user), listProducts(pool)]);
    const taken = new Set(mine.filter((s) => s.state !== 'cancelled').map((s) => s.productId));
    const open = products.filter((p) => !taken.has(p.id));
    return sendPage(request, reply, 'My subscriptions', subscriptionsPage(request, mine, open));
  });

  scope.post('/subscriptions', async (request, reply) => {
    const user = requireUser(request);
    const subscribed = await subscribe(deps, user, field(request.body, 'productId', 100));
    const { product } = subscribed;
    if (subscribed.state === 'requested') {
      return sendPage(request, reply, 'Subscription requested', requestedPage(deps, product), 201);
    }
    const base = baseUrl(deps.runtime.services, product);
    const page = subscribedPage(product, subscribed.keys, `${user.id}:${product.id}`, base);
    return sendPage(request, reply, 'Your keys', page, 201);
  });

  // Regenerating a key asks first: the old key stops at once, in every process.
  scope.get<{ Params: { id: string } }>('/subscriptions/:id/regenerate', async (request, reply) => {
    const user = requireUser(request);
    const subscription = await subscriptionOf(pool, user, request.params.id);
    const slot = queryValue(request.query, 'slot');
    if (slot !== 'primary' && slot !== 'secondary')
      throw invalidField('slot', 'must be primary or secondary');
    const page = regeneratePage(request, subscription, slot);
    return sendPage(request, reply, `Regenerate the ${slot} key`, page);
  });

  // A sandbox subscription's fault scenario, for clients that cannot add the Sandbox-Scenario header.
  const scenarioAnswer = (
    request: FastifyRequest,
    reply: FastifyReply,
    { subscription, product }: { subscription: MySubscription; product: Product },
    saved: boolean,
  ) => {
    const page = scenarioPage(request, subscription, scenarioKindsOf(product.service), saved);
    return sendPage(request, reply, `Fault scenario of ${subscription.productId}`, page);
  };

  scope.get<{ Params: { id: string } }>('/subscriptions/:id/scenario', async (request, reply) => {
    const user = requireUser(request);
    return scenarioAnswer(request, reply, await sandboxSubscriptionOf(pool, user, request.params.id), false);
  });

  scope.post<{ Params: { id: string } }>('/subscriptions/:id/scenario', async (request, reply) => {
    const user = requireUser(request);
    const kind = textField(request.body, 'kind', 20);
    const value = textField(request.body, 'value', 10, false);
    const text = kind === 'none' ? '' : value ? `${kind}=${value}` : kind;
    return scenarioAnswer(request, reply, await setScenario(deps, user, request.params.id, text), true);
  });

  scope.post<{ Params: { id: string } }>('/subscriptions/:id/keys', async (request, reply) => {
    const user = requireUser(request);
    const slot = field(request.body, 'slot', 20);
    const { subscription, keys } = await newKeys(deps, user, request.params.id, slot);
    const page = newKeysPage(subscription, slot, keys, `${user.id}:${subscription.productId}`);
    return sendPage(request, reply, keysTitle(slot), page);
  });
}

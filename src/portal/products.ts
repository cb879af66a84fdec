import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Product } from '../gateway/domain/products.ts';
import { findProduct, listProducts } from '../gateway/store/products.ts';
import { PLATFORM_ERRORS } from '../platform/http/error-codes.ts';
import { HttpError } from '../platform/http/errors.ts';
import { html, type SafeHtml } from '../platform/http/html.ts';
import { ENVIRONMENT_PREFIX, type ServiceDefinition } from '../services/contract.ts';
import type { PortalDeps } from './index.ts';
import { csrfField, pathCode, sendPage } from './layout.ts';
import { mailHint } from './my-mail.ts';
import { ORGANISATION_HEADER_SERVICES, organisationIn } from './organisation-header.ts';
import {
  preparedDocument,
  REFERENCE_SCRIPT_URL,
  referenceSection,
  SWAGGER_CSS,
  SWAGGER_JS,
} from './reference.ts';
import { portalContext } from './session.ts';
import { type MySubscription, subscriptionsOf } from './store.ts';

/** The product list and each product's page with its API reference. */
const PERIODS: Record<number, string> = { 60: 'minute', 3600: 'hour', 86400: 'day', 604800: 'week' };

export function quotaText(product: Product): string {
  if (product.quotaCalls === null || product.quotaPeriodSeconds === null) return 'no quota';
  const period =
    PERIODS[product.quotaPeriodSeconds] ?? `${product.quotaPeriodSeconds.toLocaleString('en')} seconds`;
  return `${product.quotaCalls.toLocaleString('en')} calls per ${period}`;
}

type Services = readonly ServiceDefinition[];
export const serviceOf = (services: Services, product: Product) =>
  services.find((service) => service.id === product.service);
/** Whether the product's register is built (has routes); one that is not answers 501. */
const built = (services: Services, product: Product) => serviceOf(services, product)?.routes !== undefined;

/** Where the import commands are documented (the operators' guide in the repository). */
export const IMPORT_DOCS = 'docs/operations.md';

/**
 * What production is on a fresh install: empty. Nothing is loaded until an operator imports data; keys
 * are per environment, so a sandbox key on a production path is refused as an invalid key (401).
 */
export function productionNote(): SafeHtml {
  return html`<div class="notice production-note"><p><strong>Production starts empty.</strong> Nothing is loaded until an
operator imports data (<code>rsg import bonds FILE.csv</code> for the rental statistics; the import commands are in
<code>${IMPORT_DOCS}</code> and the command table of <code>README.md</code>); until then reads answer empty lists or 404.</p>
<p>Keys belong to one environment: a sandbox key on a <code>/gateway/…</code> path is refused with 401
<em>invalid subscription key</em>. Subscribe to the production product for a production key.</p></div>`;
}

export function baseUrl(services: Services, product: Product): string {
  return `${ENVIRONMENT_PREFIX[product.environment]}${serviceOf(services, product)?.path ?? ''}`;
}

/** The signed-in user's live (not cancelled) subscriptions, by product. */
export async function liveSubscriptions(
  deps: PortalDeps,
  request: FastifyRequest,
): Promise<Map<string, MySubscription>> {
  const user = portalContext(request).user;
  if (!user) return new Map();
  const mine = await subscriptionsOf(deps.runtime.gateway.pool, user);
  return new Map(mine.filter((s) => s.state !== 'cancelled').map((s) => [s.productId, s]));
}

export function subscribeForm(request: FastifyRequest, product: Product, current?: MySubscription): SafeHtml {
  if (!portalContext(request).user) {
    return html`<a href="/portal/signin?next=${encodeURIComponent(`/portal/products/${product.id}`)}">Sign in to subscribe</a>`;
  }
  if (current) {
    const said =
      current.state === 'active'
        ? 'Subscribed'
        : current.state === 'requested'
          ? 'Requested: waiting for an operator'
          : `Subscription ${current.state}`;
    return html`<span class="badge state-${current.state}">${said}</span> <a href="/portal/subscriptions#subscription-${current.id}">Keys and usage<span class="visually-hidden"> for ${product.name}</span></a>`;
  }
  return html`<form method="post" action="/portal/subscriptions" class="inline">${csrfField(request)}
<input type="hidden" name="productId" value="${product.id}">
<button type="submit" aria-label="${product.approvalRequired ? 'Request subscription to' : 'Subscribe to'} ${product.name}">${
    product.approvalRequired ? 'Request subscription' : 'Subscribe'
  }</button></form>`;
}

export function productRoutes(scope: FastifyInstance, deps: PortalDeps): void {
  const pool = deps.runtime.gateway.pool;

  scope.get('/products', async (request, reply) => {
    const [products, live] = await Promise.all([listProducts(pool), liveSubscriptions(deps, request)]);
    return sendPage(
      request,
      reply,
      'Products',
      html`<h1>Products</h1>
<p>Each register has a sandbox product (generated data, for building and testing) and a production product
(real data; an operator approves each subscription). A subscription gives two keys for the
<code>Ocp-Apim-Subscription-Key</code> header.</p>
${productionNote()}
<table class="stack"><caption class="muted">${products.length} products</caption>
<thead><tr><th scope="col">Product</th><th scope="col">Environment</th><th scope="col">Service</th><th scope="col">Rate limit</th><th scope="col">Quota</th><th scope="col">Approval</th><th scope="col">Subscribe</th></tr></thead>
<tbody>${products.map(
        (product) => html`<tr>
<td data-label="Product"><a href="/portal/products/${product.id}">${product.name}</a>${built(deps.runtime.services, product) ? '' : html` <span class="muted">(not built yet: calls answer 501)</span>`}</td>
<td data-label="Environment">${product.environment}</td>
<td data-label="Service" class="path-cell">${pathCode(baseUrl(deps.runtime.services, product))}</td>
<td data-label="Rate limit" class="num">${product.rateLimitPerMinute.toLocaleString('en')} calls per minute</td>
<td data-label="Quota">${quotaText(product)}</td>
<td data-label="Approval">${product.approvalRequired ? 'an operator approves' : 'none: keys at once'}</td>
<td data-label="Subscribe">${subscribeForm(request, product, live.get(product.id))}</td></tr>`,
      )}</tbody></table>`,
      200,
      // Seven columns, paths among them: the wide column, so that no path wraps at a laptop's width.
      { wide: true },
    );
  });

  scope.get<{ Params: { id: string } }>('/products/:id', async (request, reply) => {
    const id = request.params.id;
    const product = /^[a-z-]{1,60}$/.test(id) ? await findProduct(pool, id) : undefined;
    if (!product) throw new HttpError(PLATFORM_ERRORS.notFound, 'There is no such product.');
    const base = baseUrl(deps.runtime.services, product);
    const live = await liveSubscriptions(deps, request);
    const user = portalContext(request).user;
    const organisation = ORGANISATION_HEADER_SERVICES.has(product.service)
      ? { value: user ? await organisationIn(pool, user.id, product.environment) : undefined }
      : undefined;
    return sendPage(
      request,
      reply,
      product.name,
      html`<h1>${product.name}</h1>
<section class="card" aria-labelledby="facts"><h2 id="facts">The product</h2>
<dl>
${built(deps.runtime.services, product) ? '' : html`<dt>State</dt><dd><strong>Not built yet.</strong> Keys work, and every call answers 501 Not Implemented until this register is built.</dd>`}
<dt>Base address</dt><dd>${pathCode(base)}</dd>
<dt>Environment</dt><dd>${product.environment}</dd>
<dt>Rate limit</dt><dd>${product.rateLimitPerMinute.toLocaleString('en')} calls per minute (a sliding window)</dd>
<dt>Quota</dt><dd>${quotaText(product)}</dd>
<dt>Approval</dt><dd>${product.approvalRequired ? html`An operator approves each subscription; you are told by mail.${mailHint(deps)}` : 'None: the keys work at once.'}</dd>
<dt>OpenAPI document</dt><dd><a href="${base}/openapi.json">${base}/openapi.json</a></dd>
</dl>${product.environment === 'production' ? productionNote() : ''}${subscribeForm(request, product, live.get(product.id))}</section>
${referenceSection(request, product, base, organisation)}`,
      200,
      { styles: [SWAGGER_CSS], scripts: [SWAGGER_JS, REFERENCE_SCRIPT_URL], wide: true },
    );
  });

  // The document the reference draws: the service's own, prepared (see reference-document.ts).
  scope.get<{ Params: { id: string } }>('/products/:id/openapi.json', async (request, reply) => {
    const id = request.params.id;
    const product = /^[a-z-]{1,60}$/.test(id) ? await findProduct(pool, id) : undefined;
    if (!product) throw new HttpError(PLATFORM_ERRORS.notFound, 'There is no such product.');
    const document = await preparedDocument(deps, baseUrl(deps.runtime.services, product), product.service);
    if (!document)
      throw new HttpError(PLATFORM_ERRORS.notFound, 'This product publishes no OpenAPI document.');
    return reply.type('application/json; charset=utf-8').send(JSON.stringify(document));
  });
}

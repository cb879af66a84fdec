import type { FastifyRequest } from 'fastify';
import type { Product } from '../../gateway/domain/products.ts';
import { html, type SafeHtml } from '../../platform/http/html.ts';
import type { ServiceDefinition } from '../../services/contract.ts';
import { baseUrl, isBuilt, quotaText } from '../domain/products.ts';
import type { PortalDeps } from '../index.ts';
import type { MySubscription } from '../operations/subscriptions.ts';
import { portalContext } from '../session.ts';
import { csrfField, pathCode } from './layout.ts';
import { mailHint } from './my-mail.ts';
import { referenceSection } from './reference.ts';

/** The product list and each product's page with its API reference. */
/** Where the import commands are documented (the operators' guide in the repository). */
export const IMPORT_DOCS = 'docs/operations.md';

/**
 * What production is on a fresh install: empty. Nothing is loaded until an operator imports data; keys
 * are per environment, so a sandbox key on a production path is refused as an invalid key (401).
 */
export function productionNote(): SafeHtml {
  return html`<div class="notice production-note"><p><strong>Production starts empty.</strong> Nothing is loaded until an
operator imports data (<code>rsg import nzbn FILE</code>, <code>rsg import ppsr FILE</code>, <code>rsg import disclose FILE</code>, <code>rsg import iponz FILE</code>, <code>rsg import bonds FILE</code>;
the files' formats are in <code>docs/formats/</code>, the commands in <code>${IMPORT_DOCS}</code> and the README's
"Production data"); until then reads answer empty lists or 404.</p>
<p>Keys belong to one environment: a sandbox key on a <code>/gateway/…</code> path is refused with 401
<em>invalid subscription key</em>. Subscribe to the production product for a production key.</p></div>`;
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

type Services = readonly ServiceDefinition[];

export function productsPage(
  request: FastifyRequest,
  services: Services,
  products: Product[],
  live: Map<string, MySubscription>,
): SafeHtml {
  return html`<h1>Products</h1>
<p>Each register has a sandbox product (generated data, for building and testing) and a production product
(real data; an operator approves each subscription). A subscription gives two keys for the
<code>Ocp-Apim-Subscription-Key</code> header.</p>
${productionNote()}
<table class="stack"><caption class="muted">${products.length} products</caption>
<thead><tr><th scope="col">Product</th><th scope="col">Environment</th><th scope="col">Service</th><th scope="col">Rate limit</th><th scope="col">Quota</th><th scope="col">Approval</th><th scope="col">Subscribe</th></tr></thead>
<tbody>${products.map(
    (product) => html`<tr>
<td data-label="Product"><a href="/portal/products/${product.id}">${product.name}</a>${isBuilt(services, product) ? '' : html` <span class="muted">(not built yet: calls answer 501)</span>`}</td>
<td data-label="Environment">${product.environment}</td>
<td data-label="Service" class="path-cell">${pathCode(baseUrl(services, product))}</td>
<td data-label="Rate limit" class="num">${product.rateLimitPerMinute.toLocaleString('en')} calls per minute</td>
<td data-label="Quota">${quotaText(product)}</td>
<td data-label="Approval">${product.approvalRequired ? 'an operator approves' : 'none: keys at once'}</td>
<td data-label="Subscribe">${subscribeForm(request, product, live.get(product.id))}</td></tr>`,
  )}</tbody></table>`;
}

export function productPage(
  request: FastifyRequest,
  deps: PortalDeps,
  product: Product,
  current: MySubscription | undefined,
  /** For a register that needs `x-organisation`: the user's organisation in the product's environment. */
  organisation: { value: string | undefined } | undefined,
): SafeHtml {
  const base = baseUrl(deps.runtime.services, product);
  return html`<h1>${product.name}</h1>
<section class="card" aria-labelledby="facts"><h2 id="facts">The product</h2>
<dl>
${isBuilt(deps.runtime.services, product) ? '' : html`<dt>State</dt><dd><strong>Not built yet.</strong> Keys work, and every call answers 501 Not Implemented until this register is built.</dd>`}
<dt>Base address</dt><dd>${pathCode(base)}</dd>
<dt>Environment</dt><dd>${product.environment}</dd>
<dt>Rate limit</dt><dd>${product.rateLimitPerMinute.toLocaleString('en')} calls per minute (a sliding window)</dd>
<dt>Quota</dt><dd>${quotaText(product)}</dd>
<dt>Approval</dt><dd>${product.approvalRequired ? html`An operator approves each subscription; you are told by mail.${mailHint(deps)}` : 'None: the keys work at once.'}</dd>
<dt>OpenAPI document</dt><dd><a href="${base}/openapi.json">${base}/openapi.json</a></dd>
</dl>${product.environment === 'production' ? productionNote() : ''}${subscribeForm(request, product, current)}</section>
${referenceSection(request, product, base, organisation)}`;
}

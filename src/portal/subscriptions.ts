import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { KeySlot } from '../gateway/domain/subscriptions.ts';
import { SubscriptionError } from '../gateway/errors.ts';
import { createSubscription } from '../gateway/operations/subscriptions.ts';
import { findProduct, listProducts } from '../gateway/store/products.ts';
import { listUsers } from '../identity/store/users.ts';
import { PLATFORM_ERRORS, PROBLEM_ERRORS } from '../platform/http/error-codes.ts';
import { HttpError } from '../platform/http/errors.ts';
import { html, type SafeHtml } from '../platform/http/html.ts';
import { sendMail } from '../platform/mail.ts';
import type { PortalDeps } from './index.ts';
import { csrfField, field, formatDate, pathCode, sendPage, UUID } from './layout.ts';
import { mailHint } from './my-mail.ts';
import { baseUrl } from './products.ts';
import { type PortalUser, requireUser } from './session.ts';
import { type MySubscription, markKeysShown, subscriptionOf, subscriptionsOf } from './store.ts';
import { usageRoutes } from './usage.ts';

/** Request a subscription, my subscriptions, and keys that are shown once (on the page that made them). */
function keysPanel(keys: { primary?: string; secondary?: string }, remember: string): SafeHtml {
  // The primary key (or a new secondary when it is the only one shown) is kept in this browser for the
  // API reference's try-it (portal.js); signing out forgets it.
  const kept: KeySlot = keys.primary ? 'primary' : 'secondary';
  const row = (slot: KeySlot, key: string | undefined) =>
    key
      ? html`<dt>${slot === 'primary' ? 'Primary key' : 'Secondary key'}</dt>
<dd><code class="key" tabindex="0" id="key-${slot}"${slot === kept ? html` data-remember-key="${remember}"` : ''}>${key}</code> <button type="button" class="secondary" data-copy="key-${slot}" aria-label="Copy the ${slot} key">Copy</button></dd>`
      : '';
  return html`<div class="secret" role="status"><p><strong>Copy your key${keys.primary && keys.secondary ? 's' : ''} now.</strong>
They are shown only on this page: the gateway keeps a hash of each key, not the key. If you lose one, make a new one.
This browser keeps the ${kept} key for the API reference's try-it until you sign out.</p>
<dl>${row('primary', keys.primary)}${row('secondary', keys.secondary)}</dl></div>`;
}

function stateBadge(state: string): SafeHtml {
  return html`<span class="badge state-${state}">${state}</span>`;
}

function keyActions(request: FastifyRequest, subscription: MySubscription): SafeHtml | string {
  if (subscription.state !== 'active' && subscription.state !== 'suspended') return '';
  const button = (slot: string, label: string, style = 'secondary') =>
    html`<form method="post" action="/portal/subscriptions/${subscription.id}/keys" class="inline">${csrfField(request)}
<input type="hidden" name="slot" value="${slot}"><button type="submit" class="${style}">${label}</button></form>`;
  if (!subscription.keysShown) {
    return html`${button('both', 'Get my keys', '')}<p class="hint">Makes a new primary and secondary key and shows them once; keys made elsewhere (for example by the rsg command) stop working.</p>`;
  }
  const confirm = (slot: KeySlot) =>
    html`<a class="button secondary" href="/portal/subscriptions/${subscription.id}/regenerate?slot=${slot}">Regenerate ${slot} key<span class="visually-hidden"> of ${subscription.productId}</span></a>`;
  return html`${confirm('primary')} ${confirm('secondary')}`;
}

async function notifyOperators(deps: PortalDeps, user: PortalUser, productName: string): Promise<void> {
  const operators = (await listUsers(deps.runtime.gateway.pool)).filter((u) => u.isOperator);
  for (const operator of operators) {
    await sendMail(deps.mail, {
      to: operator.email,
      subject: `Subscription request: ${productName}`,
      text: `${user.name} <${user.email}> asks for a subscription to ${productName}.\n\nApprove or reject it in the developer portal: /portal/operator/approvals\n`,
    });
  }
}

export function subscriptionRoutes(scope: FastifyInstance, deps: PortalDeps): void {
  const pool = deps.runtime.gateway.pool;

  scope.get('/subscriptions', async (request, reply) => {
    const user = requireUser(request);
    const [mine, products] = await Promise.all([subscriptionsOf(pool, user), listProducts(pool)]);
    const taken = new Set(mine.filter((s) => s.state !== 'cancelled').map((s) => s.productId));
    const open = products.filter((p) => !taken.has(p.id));
    const body = html`<h1>My subscriptions</h1>
${
  mine.length === 0
    ? html`<p class="notice">You have no subscriptions yet. Pick a product below or on the <a href="/portal/products">product list</a>.</p>`
    : html`<table class="stack"><caption class="muted">${mine.length} subscription${mine.length === 1 ? '' : 's'}</caption>
<thead><tr><th scope="col">Product</th><th scope="col">State</th><th scope="col">Keys</th><th scope="col">Actions</th></tr></thead>
<tbody>${mine.map(
        (
          s,
        ) => html`<tr id="subscription-${s.id}"><td data-label="Product"><a href="/portal/products/${s.productId}">${s.productId}</a><br><span class="muted">since ${formatDate(s.createdAt)}</span></td>
<td data-label="State">${stateBadge(s.state)}${s.state === 'requested' ? html`<br><span class="muted">waiting for an operator</span>` : ''}</td>
<td data-label="Keys">${s.keysShown ? html`primary …<code>${s.primaryKeyHint}</code><br>secondary …<code>${s.secondaryKeyHint}</code>` : html`<span class="muted">not shown yet</span>`}</td>
<td data-label="Actions">${keyActions(request, s)} <a href="/portal/subscriptions/${s.id}/usage">Usage</a></td></tr>`,
      )}</tbody></table>`
}
<section class="card" aria-labelledby="new"><h2 id="new">Subscribe to a product</h2>
${
  open.length === 0
    ? html`<p>You have a subscription to every product.</p>`
    : html`<form method="post" action="/portal/subscriptions">${csrfField(request)}
<label for="productId">Product</label>
<select id="productId" name="productId" required>${open.map(
        (p) =>
          html`<option value="${p.id}">${p.name}${p.approvalRequired ? ' — needs approval' : ''}</option>`,
      )}</select>
<button type="submit">Subscribe</button></form>`
}</section>`;
    return sendPage(request, reply, 'My subscriptions', body);
  });

  scope.post('/subscriptions', async (request, reply) => {
    const user = requireUser(request);
    const productId = field(request.body, 'productId', 100);
    const product = /^[a-z-]{1,60}$/.test(productId) ? await findProduct(pool, productId) : undefined;
    if (!product) throw new HttpError(PLATFORM_ERRORS.invalidParameter, 'Choose one of the listed products.');
    const current = (await subscriptionsOf(pool, user)).find(
      (s) => s.productId === product.id && s.state !== 'cancelled',
    );
    if (current) {
      throw new HttpError(
        PROBLEM_ERRORS.conflict,
        `You already have a ${current.state} subscription to ${product.name}.`,
      );
    }
    const state = product.approvalRequired ? 'requested' : 'active';
    const created = await createSubscription(pool, { userId: user.id, productId: product.id, state });
    if (state === 'requested') {
      await notifyOperators(deps, user, product.name);
      return sendPage(
        request,
        reply,
        'Subscription requested',
        html`<h1>Subscription requested</h1><section class="card"><p role="status">Your request for <strong>${product.name}</strong>
is waiting for an operator. You will get a mail when it is decided; then open
<a href="/portal/subscriptions">My subscriptions</a> to get your keys.${mailHint(deps)}</p></section>`,
        201,
      );
    }
    await markKeysShown(pool, created.subscriptionId);
    return sendPage(
      request,
      reply,
      'Your keys',
      html`<h1>Subscribed to ${product.name}</h1><section class="card">
${keysPanel({ primary: created.primaryKey, secondary: created.secondaryKey }, `${user.id}:${product.id}`)}
<p>Base address: ${pathCode(baseUrl(deps.runtime.services, product))}. <a href="/portal/try">Try a call</a> or go to <a href="/portal/subscriptions">My subscriptions</a>.</p></section>`,
      201,
    );
  });

  // Regenerating a key asks first: the old key stops at once, in every process.
  scope.get<{ Params: { id: string }; Querystring: { slot?: string } }>(
    '/subscriptions/:id/regenerate',
    async (request, reply) => {
      const user = requireUser(request);
      const id = request.params.id;
      const subscription = UUID.test(id) ? await subscriptionOf(pool, user, id) : undefined;
      if (!subscription) throw new HttpError(PLATFORM_ERRORS.notFound, 'You have no such subscription.');
      const slot = typeof request.query.slot === 'string' ? request.query.slot : '';
      if (slot !== 'primary' && slot !== 'secondary') {
        throw new HttpError(PLATFORM_ERRORS.invalidParameter, 'slot: must be primary or secondary');
      }
      const other = slot === 'primary' ? 'secondary' : 'primary';
      return sendPage(
        request,
        reply,
        `Regenerate the ${slot} key`,
        html`<h1>Regenerate the ${slot} key of ${subscription.productId}?</h1>
<section class="card"><p class="notice" role="alert"><strong>The old ${slot} key stops working at once</strong>, in every
call, as soon as you confirm. Move your applications to the ${other} key first if they must keep working.
The new key is shown once, on the next page.</p>
<form method="post" action="/portal/subscriptions/${subscription.id}/keys" class="inline">${csrfField(request)}
<input type="hidden" name="slot" value="${slot}"><button type="submit" class="danger">Regenerate the ${slot} key now</button></form>
<a href="/portal/subscriptions">Cancel: keep the old key</a></section>`,
      );
    },
  );

  scope.post<{ Params: { id: string } }>('/subscriptions/:id/keys', async (request, reply) => {
    const user = requireUser(request);
    const id = request.params.id;
    const subscription = UUID.test(id) ? await subscriptionOf(pool, user, id) : undefined;
    if (!subscription) throw new HttpError(PLATFORM_ERRORS.notFound, 'You have no such subscription.');
    const slot = field(request.body, 'slot', 20);
    if (!['primary', 'secondary', 'both'].includes(slot)) {
      throw new HttpError(PLATFORM_ERRORS.invalidParameter, 'slot: must be primary, secondary or both');
    }
    if (subscription.state !== 'active' && subscription.state !== 'suspended') {
      throw new HttpError(
        PROBLEM_ERRORS.conflict,
        `A ${subscription.state} subscription has no keys to show.`,
      );
    }
    const keys: { primary?: string; secondary?: string } = {};
    try {
      for (const which of ['primary', 'secondary'] as const) {
        if (slot === which || slot === 'both')
          keys[which] = await deps.runtime.subscriptions.regenerateKey(id, which);
      }
    } catch (error) {
      if (error instanceof SubscriptionError) throw new HttpError(PROBLEM_ERRORS.conflict, error.message);
      throw error;
    }
    await markKeysShown(pool, id);
    const what = slot === 'both' ? 'Your keys' : `New ${slot} key`;
    return sendPage(
      request,
      reply,
      what,
      html`<h1>${what} for ${subscription.productId}</h1><section class="card">
${keysPanel(keys, `${user.id}:${subscription.productId}`)}
${slot === 'both' ? '' : html`<p>The old ${slot} key was refused from the moment this page was made.</p>`}
<p><a href="/portal/subscriptions">Back to my subscriptions</a></p></section>`,
    );
  });

  usageRoutes(scope, deps);
}

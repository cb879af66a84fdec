import type { FastifyRequest } from 'fastify';
import type { Product } from '../../gateway/domain/products.ts';
import {
  parseScenario,
  SCENARIOS,
  type ScenarioKind,
  scenarioMeaning,
} from '../../gateway/domain/scenarios.ts';
import type { KeySlot } from '../../gateway/domain/subscriptions.ts';
import { html, type SafeHtml } from '../../platform/http/html.ts';
import { formatDate } from '../domain/values.ts';
import type { PortalDeps } from '../index.ts';
import type { Keys, MySubscription } from '../operations/subscriptions.ts';
import { csrfField, pathCode } from './layout.ts';
import { mailHint } from './my-mail.ts';

/** Request a subscription, my subscriptions, and keys that are shown once (on the page that made them). */
export function keysPanel(keys: { primary?: string; secondary?: string }, remember: string): SafeHtml {
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

/** A sandbox subscription's link to its fault scenario, naming the one set. */
function scenarioLink(subscription: MySubscription): SafeHtml | string {
  if (!subscription.productId.startsWith('sandbox-') || subscription.state === 'cancelled') return '';
  return html` <a href="/portal/subscriptions/${subscription.id}/scenario">Fault scenario<span class="visually-hidden"> of ${subscription.productId}</span></a>${subscription.sandboxScenario ? html`<br><span class="badge state-suspended" title="Every call without a Sandbox-Scenario header meets it">scenario: ${subscription.sandboxScenario}</span>` : ''}`;
}

/** My subscriptions, and the form that subscribes to a product the user has none of. */
export function subscriptionsPage(
  request: FastifyRequest,
  mine: MySubscription[],
  open: Product[],
): SafeHtml {
  return html`<h1>My subscriptions</h1>
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
<td data-label="Actions">${keyActions(request, s)} <a href="/portal/subscriptions/${s.id}/usage">Usage</a> <a href="/portal/subscriptions/${s.id}/inspector">Inspector<span class="visually-hidden"> of ${s.productId}</span></a>${scenarioLink(s)}</td></tr>`,
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
}

/** A product that needs approval: the request waits for an operator. */
export function requestedPage(deps: PortalDeps, product: Product): SafeHtml {
  return html`<h1>Subscription requested</h1><section class="card"><p role="status">Your request for <strong>${product.name}</strong>
is waiting for an operator. You will get a mail when it is decided; then open
<a href="/portal/subscriptions">My subscriptions</a> to get your keys.${mailHint(deps)}</p></section>`;
}

/** Subscribed at once: the keys, shown this once, and the base address. */
export function subscribedPage(
  product: Product,
  keys: Required<Keys>,
  remember: string,
  base: string,
): SafeHtml {
  return html`<h1>Subscribed to ${product.name}</h1><section class="card">
${keysPanel(keys, remember)}
<p>Base address: ${pathCode(base)}. <a href="/portal/try">Try a call</a> or go to <a href="/portal/subscriptions">My subscriptions</a>.</p></section>`;
}

/** Regenerating a key asks first: the old key stops at once, in every process. */
export function regeneratePage(
  request: FastifyRequest,
  subscription: MySubscription,
  slot: KeySlot,
): SafeHtml {
  const other = slot === 'primary' ? 'secondary' : 'primary';
  return html`<h1>Regenerate the ${slot} key of ${subscription.productId}?</h1>
<section class="card"><p class="notice" role="alert"><strong>The old ${slot} key stops working at once</strong>, in every
call, as soon as you confirm. Move your applications to the ${other} key first if they must keep working.
The new key is shown once, on the next page.</p>
<form method="post" action="/portal/subscriptions/${subscription.id}/keys" class="inline">${csrfField(request)}
<input type="hidden" name="slot" value="${slot}"><button type="submit" class="danger">Regenerate the ${slot} key now</button></form>
<a href="/portal/subscriptions">Cancel: keep the old key</a></section>`;
}

/** New keys (both, or one slot's), shown this once. */
export function newKeysPage(
  subscription: MySubscription,
  slot: string,
  keys: Keys,
  remember: string,
): SafeHtml {
  const what = keysTitle(slot);
  return html`<h1>${what} for ${subscription.productId}</h1><section class="card">
${keysPanel(keys, remember)}
${slot === 'both' ? '' : html`<p>The old ${slot} key was refused from the moment this page was made.</p>`}
<p><a href="/portal/subscriptions">Back to my subscriptions</a></p></section>`;
}

export const keysTitle = (slot: string): string => (slot === 'both' ? 'Your keys' : `New ${slot} key`);

/** What a call meets under the subscription's kept scenario, its values in place. */
function meaningOf(kept: string): string {
  try {
    return scenarioMeaning(parseScenario(kept));
  } catch {
    return '';
  }
}

/** A scenario's description, its `quoted` parts (header names) as code. */
const described = (text: string): SafeHtml[] =>
  text.split('`').map((part, index) => (index % 2 === 1 ? html`<code>${part}</code>` : html`${part}`));

/**
 * A sandbox subscription's fault scenario: the one set (if any), a form to set or clear it, and what each
 * scenario does. Every call with the subscription's keys meets it, unless the call sends its own
 * `Sandbox-Scenario` header.
 */
export function scenarioPage(
  request: FastifyRequest,
  subscription: MySubscription,
  kinds: readonly ScenarioKind[],
  saved: boolean,
): SafeHtml {
  const current = subscription.sandboxScenario;
  const [currentKind = '', currentValue = ''] = current?.split('=') ?? [];
  const action = `/portal/subscriptions/${subscription.id}/scenario`;
  return html`<h1>Fault scenario of ${subscription.productId}</h1>
${saved ? html`<p class="ok" role="status">${current ? html`Saved: the next call meets <code>${current}</code>.` : 'Cleared: calls meet the register again.'}</p>` : ''}
<section class="card" aria-labelledby="now"><h2 id="now">Now</h2>
${
  current
    ? html`<p>Every call with this subscription's keys meets <code>${current}</code>: ${described(meaningOf(current))}.
A call that sends its own <code>Sandbox-Scenario</code> header meets that one instead.</p>
<form method="post" action="${action}" class="inline">${csrfField(request)}<input type="hidden" name="kind" value="none"><button type="submit" class="secondary">Clear the scenario</button></form>`
    : html`<p>No scenario: calls meet the register as usual.</p>`
}</section>
<section class="card" aria-labelledby="set"><h2 id="set">Set a scenario</h2>
<p>For clients that cannot add a header: rehearse the register's failures with your application as it is.
Every failure is answered exactly as the real one is, in this register's error bodies.</p>
<form method="post" action="${action}">${csrfField(request)}
<label for="kind">Scenario</label>
<select id="kind" name="kind">${kinds.map(
    (kind) =>
      html`<option value="${kind}"${kind === currentKind ? ' selected' : ''}>${SCENARIOS[kind].form}</option>`,
  )}</select>
<label for="value">Value <span class="muted">(seconds, milliseconds or percent, as the form says; blank for the default)</span></label>
<input id="value" name="value" inputmode="numeric" pattern="[0-9]{1,6}" value="${currentValue}" aria-describedby="value-hint">
<p class="hint" id="value-hint">For example <code>throttled</code> with 5 answers 429 with <code>Retry-After: 5</code>; <code>slow</code> with 2000 answers two seconds late.</p>
<button type="submit">Save</button></form></section>
<section class="card" aria-labelledby="scenarios"><h2 id="scenarios">What each scenario does</h2>
<table class="stack"><thead><tr><th scope="col">Scenario</th><th scope="col">What a call meets</th></tr></thead>
<tbody>${kinds.map(
    (kind) =>
      html`<tr><td data-label="Scenario"><code>${SCENARIOS[kind].form}</code></td><td data-label="What a call meets">${described(SCENARIOS[kind].description)}</td></tr>`,
  )}</tbody></table>
<p><a href="/portal/subscriptions">Back to my subscriptions</a></p></section>`;
}

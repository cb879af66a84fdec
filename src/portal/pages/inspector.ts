import type { StoredCall } from '../../gateway/store/inspector.ts';
import { html, type SafeHtml } from '../../platform/http/html.ts';
import type { PushDelivery } from '../../services/contract.ts';
import type { Inspection } from '../operations/inspector.ts';
import type { MySubscription } from '../operations/subscriptions.ts';
import { pathCode } from './layout.ts';

/**
 * The request inspector's pages: a subscription's last calls (method, path, status, time taken, why a
 * 4xx was refused), one call with its headers and bodies and "copy as curl", and its watchlists' push
 * deliveries. Everything shown was redacted before it was stored.
 */
const time = (value: Date | null) =>
  value
    ? value
        .toISOString()
        .replace('T', ' ')
        .replace(/\.\d+Z$/, 'Z')
    : '—';

/** A refusal or failure is marked in words too, not by colour alone. */
const statusText = (status: number) =>
  status >= 500 ? `${status} failed` : status >= 400 ? `${status} refused` : `${status}`;

const callLink = (subscription: MySubscription, call: StoredCall) =>
  `/portal/subscriptions/${subscription.id}/inspector/${call.id}`;

function callsTable(inspection: Inspection): SafeHtml {
  const { subscription, calls } = inspection;
  if (calls.length === 0) {
    return html`<p class="notice">No calls in the last 24 hours. Call the API with this subscription's key and they appear here.</p>`;
  }
  return html`<table class="stack"><caption class="muted">The last ${calls.length} call${calls.length === 1 ? '' : 's'}, newest first</caption>
<thead><tr><th scope="col">Time (UTC)</th><th scope="col">Call</th><th scope="col" class="num">Status</th><th scope="col" class="num">Time taken</th><th scope="col">Why refused</th></tr></thead>
<tbody>${calls.map(
    (call) => html`<tr><td data-label="Time (UTC)">${time(call.at)}</td>
<td data-label="Call"><a href="${callLink(subscription, call)}">${call.method} ${pathCode(call.url.split('?')[0]!)}</a></td>
<td data-label="Status" class="num"><span class="badge">${statusText(call.status)}</span></td>
<td data-label="Time taken" class="num">${call.durationMs.toFixed(1)} ms</td>
<td data-label="Why refused">${call.reason ?? ''}</td></tr>`,
  )}</tbody></table>`;
}

/** Every attempt of a notification and its answer: the failed ones, then the last (delivered or not). */
function attemptsList(d: PushDelivery): SafeHtml {
  const answer = (status: number | null, error: string | null) =>
    html`${status === null ? '' : html`HTTP ${status}`}${status !== null && error ? ' — ' : ''}${error ?? ''}`;
  const failed = d.failedAttempts.map(
    (a) => html`<li>${time(new Date(a.at))}: ${answer(a.status, a.error)}</li>`,
  );
  const last =
    d.deliveredAt && d.lastAttemptAt
      ? html`<li>${time(d.lastAttemptAt)}: ${answer(d.lastStatus, null)} (delivered)</li>`
      : '';
  if (failed.length === 0 && !last) return html`<span class="muted">not attempted yet</span>`;
  return html`<ol>${failed}${last}</ol>`;
}

function deliveriesSection(deliveries: PushDelivery[] | undefined): SafeHtml {
  if (deliveries === undefined) return html``;
  return html`<section class="card" aria-labelledby="pushes"><h2 id="pushes">Watchlist push deliveries</h2>
${
  deliveries.length === 0
    ? html`<p>None yet: the pushes to the endpoints of this subscription's watchlists appear here, each with its attempts and the last answer.</p>`
    : html`<table class="stack"><caption class="muted">The last ${deliveries.length} notifications, newest first</caption>
<thead><tr><th scope="col">Watchlist</th><th scope="col">Notification</th><th scope="col" class="num">Attempts</th><th scope="col">Attempts and answers (UTC)</th><th scope="col">State</th></tr></thead>
<tbody>${deliveries.map(
        (d) => html`<tr><td data-label="Watchlist">${d.watchlistName}<br><code>${d.endpoint}</code></td>
<td data-label="Notification">${d.notificationId}<br><span class="muted">${time(d.createdAt)}</span></td>
<td data-label="Attempts" class="num">${d.attempts}</td>
<td data-label="Attempts and answers (UTC)">${attemptsList(d)}</td>
<td data-label="State">${d.deliveredAt ? html`delivered ${time(d.deliveredAt)}` : d.nextAttemptAt ? html`next attempt ${time(d.nextAttemptAt)}` : 'waiting'}</td></tr>`,
      )}</tbody></table>`
}</section>`;
}

/** A subscription's inspector: its last calls and its watchlists' push deliveries. */
export function inspectorPage(inspection: Inspection): SafeHtml {
  const { subscription, bodiesKept } = inspection;
  return html`<h1>Request inspector: ${subscription.productId}</h1>
<p>The last 500 calls of this subscription in the last 24 hours, as the gateway saw them. Keys, tokens,
passwords, client secrets, PINs, URL signatures and webhook secrets are replaced by <code>[REDACTED]</code>
before anything is kept. ${
    bodiesKept
      ? 'Request and answer bodies are kept up to 16 KiB each.'
      : 'In production only what a call was (method, path, status, time, headers, why a 4xx was refused) is kept, not its bodies, unless an operator turns bodies on.'
  } <a href="/portal/subscriptions">Back to my subscriptions</a></p>
<section class="card" aria-labelledby="calls"><h2 id="calls">Calls</h2>${callsTable(inspection)}</section>
${deliveriesSection(inspection.deliveries)}`;
}

function headersList(title: string, id: string, headers: Record<string, string>): SafeHtml {
  const names = Object.keys(headers);
  return html`<h3 id="${id}">${title}</h3>${
    names.length === 0
      ? html`<p class="muted">none</p>`
      : html`<dl class="headers" aria-labelledby="${id}">${names.map((name) => html`<dt><code>${name}</code></dt><dd><code>${headers[name]}</code></dd>`)}</dl>`
  }`;
}

function bodyBlock(title: string, id: string, body: string | null, kept: boolean): SafeHtml {
  return html`<h3 id="${id}">${title}</h3>${
    body === null
      ? html`<p class="muted">${kept ? 'none' : 'not kept (production keeps metadata only)'}</p>`
      : html`<pre tabindex="0" aria-labelledby="${id}"><code>${body}</code></pre>`
  }`;
}

/** One call: what it was, why it was refused, its headers and bodies, and the call as curl. */
export function callPage(subscription: MySubscription, call: StoredCall, curl: string): SafeHtml {
  return html`<h1>${call.method} ${pathCode(call.url.split('?')[0]!)}</h1>
<p><a href="/portal/subscriptions/${subscription.id}/inspector">All calls of ${subscription.productId}</a></p>
<section class="card" aria-labelledby="summary"><h2 id="summary">The call</h2>
<dl><dt>When (UTC)</dt><dd>${time(call.at)}</dd>
<dt>Address</dt><dd><code class="key">${call.url}</code></dd>
<dt>Status</dt><dd><span class="badge">${statusText(call.status)}</span></dd>
<dt>Time taken</dt><dd>${call.durationMs.toFixed(1)} ms</dd>
${call.reason ? html`<dt>Why refused</dt><dd>${call.reason}</dd>` : ''}</dl></section>
<section class="card" aria-labelledby="curl-title"><h2 id="curl-title">Copy as curl</h2>
<p>Set <code>RSG_KEY</code> (and <code>RSG_TOKEN</code>, <code>RSG_PIN</code> or <code>RSG_SECRET</code> where the command names them) first: the inspector never keeps them.</p>
<pre tabindex="0"><code id="curl">${curl}</code></pre>
<button type="button" class="secondary" data-copy="curl" aria-label="Copy the call as curl">Copy</button></section>
<section class="card" aria-labelledby="request"><h2 id="request">Request</h2>
${headersList('Headers', 'request-headers', call.requestHeaders)}
${bodyBlock('Body', 'request-body', call.requestBody, call.bodiesKept)}</section>
<section class="card" aria-labelledby="answer"><h2 id="answer">Answer</h2>
${headersList('Headers', 'answer-headers', call.responseHeaders)}
${bodyBlock('Body', 'answer-body', call.responseBody, call.bodiesKept)}</section>`;
}

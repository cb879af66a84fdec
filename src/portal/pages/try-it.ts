import type { FastifyRequest } from 'fastify';
import { html, type SafeHtml } from '../../platform/http/html.ts';
import { ENVIRONMENT_PREFIX, type ServiceDefinition } from '../../services/contract.ts';
import {
  type ExtraHeader,
  MAX_EXTRA_HEADERS,
  METHODS,
  type TryResult,
  type TryState,
} from '../domain/try-it.ts';
import { csrfField } from './layout.ts';

/** "Try it": the form (API, method, path, key, token, extra headers, body) and the call's answer. */

/** Rows of extra headers the form offers; a sent form shows its filled rows and two empty ones. */
const HEADER_ROWS = 3;

export function tryForm(
  request: FastifyRequest,
  state: TryState,
  services: readonly ServiceDefinition[],
): SafeHtml {
  return html`<section class="card" aria-labelledby="try"><h2 id="try">Call the sandbox</h2>
${state.error ? html`<p class="error" role="alert">${state.error}</p>` : ''}
<form method="post" action="/portal/try">${csrfField(request)}
<label for="service">API</label>
<select id="service" name="service">${services.map(
    (s) =>
      html`<option value="${s.id}"${state.service === s.id ? ' selected' : ''}>${s.title} — ${ENVIRONMENT_PREFIX.sandbox}${s.path}</option>`,
  )}</select>
<label for="method">Method</label>
<select id="method" name="method">${METHODS.map(
    (m) => html`<option${state.method === m ? ' selected' : ''}>${m}</option>`,
  )}</select>
<label for="path">Path after the API's base address, with any query</label>
<input id="path" name="path" type="text" required maxlength="2000" value="${state.path ?? '/'}" placeholder="/entities?search-term=acme">
<label for="key">Your sandbox subscription key</label>
<p class="hint" id="key-hint">Paste it from where you saved it: the portal keeps only a hash. It is used for this call only.</p>
<input id="key" name="key" type="password" required maxlength="256" autocomplete="off" spellcheck="false" aria-describedby="key-hint" value="${state.key ?? ''}">
<label for="token">Bearer token (optional)</label>
<input id="token" name="token" type="text" maxlength="8000" autocomplete="off" spellcheck="false" value="${state.token ?? ''}">
${headerRows(state.headers ?? [])}
<label for="body">JSON body (for POST, PUT, PATCH)</label>
<textarea id="body" name="body" rows="4" spellcheck="false">${state.body ?? ''}</textarea>
<button type="submit">Send</button></form></section>`;
}

function headerRows(filled: ExtraHeader[]): SafeHtml {
  const rows = [
    ...filled,
    ...Array.from({ length: filled.length ? 2 : HEADER_ROWS }, () => ({ name: '', value: '' })),
  ];
  return html`<fieldset class="headers"><legend>Extra request headers (optional)</legend>
<p class="hint" id="headers-hint">One header a row, sent with the call: for example <code>x-organisation</code> for the offers
register. Hop-by-hop headers and the ones the call sets itself are refused.</p>
${rows.slice(0, MAX_EXTRA_HEADERS).map(
  (row, i) => html`<div class="header-row"><label for="header-name-${i + 1}">Header ${i + 1} name</label>
<input id="header-name-${i + 1}" name="headerName" type="text" maxlength="100" autocomplete="off" spellcheck="false" aria-describedby="headers-hint" value="${row.name}">
<label for="header-value-${i + 1}">Header ${i + 1} value</label>
<input id="header-value-${i + 1}" name="headerValue" type="text" maxlength="4000" autocomplete="off" spellcheck="false" value="${row.value}"></div>`,
)}</fieldset>`;
}

export function resultPanel(result: TryResult): SafeHtml {
  return html`<section class="card" aria-labelledby="result" aria-live="polite"><h2 id="result">Response</h2>
<p><code>${result.url}</code></p>
${result.sent.length ? html`<p>Sent with: ${result.sent.map((header, i) => html`${i ? ', ' : ''}<code>${header.name}: ${header.value}</code>`)}</p>` : ''}
<p>Status: <strong id="try-status">${result.status}</strong></p>
<details><summary>Headers</summary><table><tbody>${Object.entries(result.headers).map(
    ([name, value]) =>
      html`<tr><th scope="row"><code>${name}</code></th><td><code>${String(value)}</code></td></tr>`,
  )}</tbody></table></details>
<h3>Body</h3><pre id="try-body">${result.body}</pre></section>`;
}

/** The page: the answer of the call just made, if any, above the form. */
export function tryPage(
  request: FastifyRequest,
  state: TryState,
  services: readonly ServiceDefinition[],
  result?: TryResult,
): SafeHtml {
  return html`<h1>Try it</h1>${result ? resultPanel(result) : ''}${tryForm(request, state, services)}`;
}

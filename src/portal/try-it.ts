import type { FastifyInstance, FastifyRequest } from 'fastify';
import { html, type SafeHtml } from '../platform/http/html.ts';
import { ENVIRONMENT_PREFIX, type ServiceDefinition } from '../services/contract.ts';
import type { PortalDeps } from './index.ts';
import { csrfField, field, fields, sendPage } from './layout.ts';
import { ORGANISATION_HEADER, ORGANISATION_HEADER_SERVICES, organisationIn } from './organisation-header.ts';
import { requireUser } from './session.ts';

/**
 * "Try it": a call to the sandbox with a key the user pastes (keys are kept only as hashes, so the
 * portal cannot fill it in). The portal makes the call in-process and shows status, headers and body.
 * The path cannot leave the chosen service: it is resolved (dot segments too) and checked against the
 * service's base address. The key is used for this one call and never stored or logged.
 */
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
const MAX_SHOWN = 100_000;
const PRINTABLE = /^[\x21-\x7e]+$/;
/** Rows of extra headers the form offers; a sent form shows its filled rows and two empty ones. */
const HEADER_ROWS = 3;
export const MAX_EXTRA_HEADERS = 10;
/** A header name: an RFC 9110 token. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** A header value: visible ASCII, spaces and tabs (no CR, LF or other control characters). */
const HEADER_VALUE = /^[\t\x20-\x7e]*$/;
/**
 * Headers a caller may not set: hop-by-hop ones (RFC 9110 section 7.6.1), what the call's framing and
 * addressing decide, what names the client to the gateway, and the ones the form's own fields fill.
 */
const REFUSED_HEADERS = new Map<string, string>([
  ...[
    'connection',
    'keep-alive',
    'proxy-connection',
    'transfer-encoding',
    'te',
    'trailer',
    'upgrade',
    'proxy-authenticate',
    'proxy-authorization',
  ].map((name): [string, string] => [name, 'is a hop-by-hop header']),
  ...[
    'host',
    'content-length',
    'expect',
    'cookie',
    'forwarded',
    'x-forwarded-for',
    'x-forwarded-host',
    'x-forwarded-proto',
    'x-real-ip',
  ].map((name): [string, string] => [name, 'is set by the call itself, not by a caller']),
  ['ocp-apim-subscription-key', 'is the key field above'],
  ['authorization', 'is the bearer token field above'],
]);

export interface ExtraHeader {
  name: string;
  value: string;
}

/** The extra header rows of a form (empty rows dropped), or the first problem, naming the row. */
export function extraHeaders(
  names: string[],
  values: string[],
): { headers: ExtraHeader[] } | { error: string } {
  const headers: ExtraHeader[] = [];
  const seen = new Set<string>();
  const rows = Math.max(names.length, values.length);
  for (let i = 0; i < rows; i++) {
    const name = (names[i] ?? '').trim();
    const value = (values[i] ?? '').trim();
    if (!name && !value) continue;
    const row = `Header ${i + 1}`;
    if (!name) return { error: `${row} name: required when a value is given.` };
    if (name.length > 100 || !TOKEN.test(name)) {
      return {
        error: `${row} name: must be a token (letters, digits and !#$%&'*+-.^_\`|~, at most 100 characters).`,
      };
    }
    const lower = name.toLowerCase();
    const refused = REFUSED_HEADERS.get(lower);
    if (refused) return { error: `${row} name: ${name} ${refused}.` };
    if (seen.has(lower)) return { error: `${row} name: ${name} is given twice.` };
    if (/[\r\n]/.test(value)) return { error: `${row} value: must be one line (no CR or LF).` };
    if (value.length > 4000 || !HEADER_VALUE.test(value)) {
      return { error: `${row} value: visible ASCII characters and spaces only, at most 4000.` };
    }
    seen.add(lower);
    headers.push({ name, value });
  }
  if (headers.length > MAX_EXTRA_HEADERS) return { error: `Headers: at most ${MAX_EXTRA_HEADERS}.` };
  return { headers };
}

interface TryState {
  service?: string;
  method?: string;
  path?: string;
  key?: string;
  token?: string;
  body?: string;
  headers?: ExtraHeader[];
  error?: string;
}

interface TryResult {
  url: string;
  sent: ExtraHeader[];
  status: number;
  headers: Record<string, unknown>;
  body: string;
}

function tryForm(request: FastifyRequest, state: TryState, services: readonly ServiceDefinition[]): SafeHtml {
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

function resultPanel(result: TryResult): SafeHtml {
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

/** The request URL inside the service, or an error message. */
export function tryUrl(
  services: readonly ServiceDefinition[],
  serviceId: string,
  rawPath: string,
): { url: string } | { error: string } {
  const service = services.find((s) => s.id === serviceId);
  if (!service) return { error: 'Choose one of the listed APIs.' };
  const path = rawPath.trim() || '/';
  if (!path.startsWith('/') || path.startsWith('//') || /[\s\\#]/.test(path)) {
    return { error: 'Path: start with / and use no spaces, backslashes or #.' };
  }
  const base = `${ENVIRONMENT_PREFIX.sandbox}${service.path}`;
  let resolved: URL;
  try {
    resolved = new URL(`${base}${path}`, 'http://portal.invalid');
  } catch {
    return { error: 'Path: not a valid path.' };
  }
  if (resolved.origin !== 'http://portal.invalid') return { error: 'Path: must stay within the API.' };
  if (resolved.pathname !== base && !resolved.pathname.startsWith(`${base}/`)) {
    return { error: 'Path: must stay within the API.' };
  }
  return { url: resolved.pathname + resolved.search };
}

function showBody(payload: string, contentType: string): string {
  let shown = payload;
  if (contentType.includes('json')) {
    try {
      shown = JSON.stringify(JSON.parse(payload), null, 2);
    } catch {
      shown = payload;
    }
  }
  return shown.length > MAX_SHOWN
    ? `${shown.slice(0, MAX_SHOWN)}\n… (${shown.length - MAX_SHOWN} more characters)`
    : shown;
}

export function tryRoutes(scope: FastifyInstance, deps: PortalDeps): void {
  scope.get<{ Querystring: { service?: string; path?: string } }>('/try', async (request, reply) => {
    const user = requireUser(request);
    const service = String(request.query?.service ?? '');
    const organisation = ORGANISATION_HEADER_SERVICES.has(service)
      ? await organisationIn(deps.runtime.gateway.pool, user.id)
      : undefined;
    const state: TryState = {
      service,
      path: String(request.query?.path ?? '/').slice(0, 2000),
      // A register that needs x-organisation: the user's sandbox organisation in the first row.
      ...(organisation ? { headers: [{ name: ORGANISATION_HEADER, value: organisation }] } : {}),
    };
    return sendPage(
      request,
      reply,
      'Try it',
      html`<h1>Try it</h1>${tryForm(request, state, deps.runtime.services)}`,
    );
  });

  scope.post('/try', async (request, reply) => {
    requireUser(request);
    const state: TryState = {
      service: field(request.body, 'service', 50),
      method: field(request.body, 'method', 10).toUpperCase(),
      path: field(request.body, 'path', 2000),
      key: field(request.body, 'key', 300).trim(),
      token: field(request.body, 'token', 8000).trim(),
      body: field(request.body, 'body', 50_000),
    };
    const extra = extraHeaders(fields(request.body, 'headerName'), fields(request.body, 'headerValue'));
    if ('headers' in extra) state.headers = extra.headers;
    const fail = (error: string) =>
      sendPage(
        request,
        reply,
        'Try it',
        html`<h1>Try it</h1>${tryForm(request, { ...state, error }, deps.runtime.services)}`,
        400,
      );
    const target = tryUrl(deps.runtime.services, state.service ?? '', state.path ?? '');
    if ('error' in target) return fail(target.error);
    if (!(METHODS as readonly string[]).includes(state.method ?? ''))
      return fail('Method: choose one of the list.');
    if (!state.key || state.key.length > 256 || !PRINTABLE.test(state.key)) {
      return fail('Key: paste your subscription key (letters and digits, no spaces).');
    }
    if (state.token && !PRINTABLE.test(state.token)) return fail('Bearer token: no spaces or line breaks.');
    if ('error' in extra) return fail(extra.error);
    const withBody = state.method !== 'GET' && state.method !== 'DELETE' && (state.body ?? '').trim() !== '';
    const response = await deps.app.inject({
      method: state.method as (typeof METHODS)[number],
      url: target.url,
      headers: {
        // The extra headers first: none of them can replace what the form's own fields set.
        ...Object.fromEntries(
          (state.headers ?? []).map((header) => [header.name.toLowerCase(), header.value]),
        ),
        'ocp-apim-subscription-key': state.key,
        accept: 'application/json, */*;q=0.5',
        ...(state.token ? { authorization: `Bearer ${state.token}` } : {}),
        ...(withBody ? { 'content-type': 'application/json' } : {}),
      },
      ...(withBody ? { payload: state.body } : {}),
    });
    const result: TryResult = {
      url: target.url,
      sent: state.headers ?? [],
      status: response.statusCode,
      headers: response.headers as Record<string, unknown>,
      body: showBody(response.body, String(response.headers['content-type'] ?? '')),
    };
    return sendPage(
      request,
      reply,
      'Try it',
      html`<h1>Try it</h1>${resultPanel(result)}${tryForm(request, state, deps.runtime.services)}`,
    );
  });
}

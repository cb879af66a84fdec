import type { FastifyInstance, FastifyRequest } from 'fastify';
import { html, type SafeHtml } from '../platform/http/html.ts';
import { ENVIRONMENT_PREFIX, type ServiceDefinition } from '../services/contract.ts';
import type { PortalDeps } from './index.ts';
import { csrfField, field, sendPage } from './layout.ts';
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

interface TryState {
  service?: string;
  method?: string;
  path?: string;
  key?: string;
  token?: string;
  body?: string;
  error?: string;
}

interface TryResult {
  url: string;
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
<label for="body">JSON body (for POST, PUT, PATCH)</label>
<textarea id="body" name="body" rows="4" spellcheck="false">${state.body ?? ''}</textarea>
<button type="submit">Send</button></form></section>`;
}

function resultPanel(result: TryResult): SafeHtml {
  return html`<section class="card" aria-labelledby="result" aria-live="polite"><h2 id="result">Response</h2>
<p><code>${result.url}</code></p>
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
    requireUser(request);
    const state = {
      service: String(request.query?.service ?? ''),
      path: String(request.query?.path ?? '/').slice(0, 2000),
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
    const withBody = state.method !== 'GET' && state.method !== 'DELETE' && (state.body ?? '').trim() !== '';
    const response = await deps.app.inject({
      method: state.method as (typeof METHODS)[number],
      url: target.url,
      headers: {
        'ocp-apim-subscription-key': state.key,
        accept: 'application/json, */*;q=0.5',
        ...(state.token ? { authorization: `Bearer ${state.token}` } : {}),
        ...(withBody ? { 'content-type': 'application/json' } : {}),
      },
      ...(withBody ? { payload: state.body } : {}),
    });
    const result: TryResult = {
      url: target.url,
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

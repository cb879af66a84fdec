import type { FastifyRequest } from 'fastify';
import { maintenanceWindowAt, newZealandIso } from '../../gateway/domain/maintenance.ts';
import type { Product } from '../../gateway/domain/products.ts';
import { html, type SafeHtml } from '../../platform/http/html.ts';
import { ENVIRONMENT_PREFIX, type ServiceDefinition } from '../../services/contract.ts';
import { ORGANISATION_HEADER_SERVICES } from '../domain/organisation-header.ts';
import { productFor } from '../domain/products.ts';
import { quickStartLines, type SampleCall } from '../domain/quick-start.ts';
import type { OperationEntry } from '../domain/reference-document.ts';
import type { Catalogue } from '../operations/reference.ts';
import { portalContext } from '../session.ts';
import { pathCode } from './layout.ts';
import { organisationNote } from './organisation-header.ts';

/**
 * The landing page (`/portal`; `GET /` leads here): the five registers as cards with one-line quick
 * starts, a search over every operation of every service, and for operators the sandbox clock and
 * maintenance state.
 */
const WHAT: Record<string, string> = {
  nzbn: 'Business numbers: search entities, read their details, history and roles, and keep them up to date.',
  'market-rent': 'Rental statistics: market rents by area, dwelling type and bedrooms, from bond lodgements.',
  iponz: 'Intellectual property: trade marks, patents and designs, searches and case records.',
  ppsr: 'Secured interests: register, search and amend financing statements over personal property.',
  disclose: 'Offers register: offers of financial products, their documents and the disclosures about them.',
};

/**
 * A register's quick start: one line of curl, and the same call through the typed client with the line
 * that installs it from this gateway. `organisation`: for a register that needs `x-organisation`, the
 * value to send (the user's own identifier, or `null` for the `RSG_ORGANISATION` variable).
 */
export function quickStart(
  base: string,
  register: { id: string; prefix: string },
  sample: SampleCall,
  organisation?: string | null,
): SafeHtml {
  const { curl, install, typescript } = quickStartLines(base, register, sample, organisation);
  return html`<p class="hint">Quick start (with your sandbox key in <code>RSG_KEY</code>):</p>
<p class="label">curl</p><pre tabindex="0">${curl}</pre>
${
  install && typescript
    ? html`<p class="label">TypeScript, with the typed client (Node.js 22+; <a href="/portal/downloads/client.tgz">download</a>)</p><pre tabindex="0" class="install">${install}</pre>
<pre tabindex="0" class="typescript">${typescript}</pre>`
    : ''
}`;
}

/** For operators: the sandbox clock and whether the simulated maintenance window is on (and now). */
function operatorPanel(now: Date, simulated: boolean): SafeHtml {
  const window = maintenanceWindowAt(now);
  return html`<section class="card" aria-labelledby="operators"><h2 id="operators">For operators</h2>
<dl><dt>Sandbox clock</dt><dd><time datetime="${now.toISOString()}">${now.toISOString().replace('T', ' ').slice(0, 19)} UTC</time> (${newZealandIso(now)} in New Zealand)</dd>
<dt>Sandbox maintenance window</dt><dd>${
    simulated
      ? window
        ? html`<strong>In the window now</strong>: calls answer 503 until ${newZealandIso(window.end)}.`
        : 'Simulated (Wednesdays 21:00–23:00 New Zealand time); not in the window now.'
      : 'Not simulated (RSG_SANDBOX_MAINTENANCE=off).'
  }</dd></dl>
<p><a href="/portal/operator/approvals">Approvals</a> · <a href="/portal/operator/outbox">Outbox</a></p></section>`;
}

function searchForm(query = ''): SafeHtml {
  return html`<form method="get" action="/portal/search" role="search" class="search">
<label for="q">Search every operation of every register</label>
<div class="row"><input id="q" name="q" type="search" value="${query}" maxlength="200" placeholder="for example: entities, statistics, financing statement" autocomplete="off">
<button type="submit">Search</button></div></form>`;
}

/** What the landing page shows: the registers, the products, the user's organisation, the clock. */
export interface Landing {
  registers: Catalogue[];
  products: Product[];
  /** The public address calls go to (`RSG_PUBLIC_URL`). */
  base: string;
  /** The user's sandbox organisation for `x-organisation`; null for none (or signed out). */
  organisation: string | null;
  /** For operators: the sandbox clock and whether maintenance is simulated. */
  operator?: { now: Date; simulated: boolean };
}

function registerCard(
  request: FastifyRequest,
  landing: Landing,
  { service, operations, sample }: Catalogue,
): SafeHtml {
  const { products, base, organisation } = landing;
  const sandbox = productFor(products, service.id, 'sandbox');
  const production = productFor(products, service.id, 'production');
  const built = service.routes !== undefined;
  const sandboxBase = `${ENVIRONMENT_PREFIX.sandbox}${service.path}`;
  return html`<article class="card register" aria-labelledby="register-${service.id}">
<h3 id="register-${service.id}">${service.title}</h3>
<p>${WHAT[service.id] ?? ''}</p>
<p>${built ? html`<span class="badge state-active">available</span> ${operations.length} operation${operations.length === 1 ? '' : 's'}` : html`<span class="badge state-requested">not built yet</span> calls answer 501`}
· ${pathCode(sandboxBase)}</p>
<p>${sandbox ? html`<a href="/portal/products/${sandbox.id}">Sandbox reference<span class="visually-hidden"> of the ${service.title}</span></a>` : ''}${
    production
      ? html` · <a href="/portal/products/${production.id}">Production<span class="visually-hidden"> of the ${service.title}</span></a>`
      : ''
  }</p>
${
  built && sample
    ? ORGANISATION_HEADER_SERVICES.has(service.id)
      ? html`${quickStart(base, { id: service.id, prefix: sandboxBase }, sample, organisation)}${organisationNote(request, organisation ?? undefined, `/portal#register-${service.id}`)}`
      : quickStart(base, { id: service.id, prefix: sandboxBase }, sample)
    : ''
}</article>`;
}

export function landingPage(request: FastifyRequest, landing: Landing): SafeHtml {
  const user = portalContext(request).user;
  const cards = landing.registers.map((register) => registerCard(request, landing, register));
  const operator = landing.operator;
  return html`<h1>Developer portal</h1>
<section class="card"><p>Five public registers, each with a <strong>sandbox</strong> (generated data and fixed test cases,
keys at once) and a <strong>production</strong> environment (an operator approves each subscription; it starts
empty until an operator imports data: see a production product's page).</p>
<ol>
  <li>${user ? html`<a href="/portal/subscriptions">Subscribe</a>` : html`<a href="/portal/signup">Create an account</a>`} to a sandbox product: its keys work at once.</li>
  <li>Open a register's reference: every operation has a <strong>Try it out</strong> with your key filled in.</li>
  <li><a href="/portal/clients">Register an OAuth client</a> when an operation acts for a person or a business.</li>
</ol>
${searchForm()}</section>
${operator ? operatorPanel(operator.now, operator.simulated) : ''}
<h2>The registers</h2>
<div class="cards">${cards}</div>`;
}

export interface SearchHit {
  service: ServiceDefinition;
  operation: OperationEntry;
}

/** The search page: the form, and the operations that hold every word (the first 200 shown). */
export function searchPage(raw: string, words: string[], hits: SearchHit[], products: Product[]): SafeHtml {
  const shown = hits.slice(0, 200);
  return html`<h1>Search the operations</h1>
<section class="card">${searchForm(raw)}</section>
${
  words.length === 0
    ? html`<p>Type words from an operation's path or summary, or a register's name.</p>`
    : html`<p role="status">${hits.length === 0 ? 'No operation matches.' : `${hits.length} operation${hits.length === 1 ? '' : 's'} match${hits.length === 1 ? 'es' : ''}${hits.length > shown.length ? `; the first ${shown.length} are shown` : ''}.`}</p>
${
  shown.length
    ? html`<table class="stack"><caption class="visually-hidden">Operations matching ${raw}</caption>
<thead><tr><th scope="col">Register</th><th scope="col">Operation</th><th scope="col">What it does</th></tr></thead>
<tbody>${shown.map(({ service, operation }) => {
        const product = productFor(products, service.id, 'sandbox');
        return html`<tr><td data-label="Register">${product ? html`<a href="/portal/products/${product.id}">${service.title}</a>` : service.title}</td>
<td data-label="Operation">${
          product
            ? html`<a href="/portal/products/${product.id}#operation=${encodeURIComponent(`${operation.method} ${operation.path}`)}"><span class="method">${operation.method}</span> ${pathCode(`${service.path}${operation.path}`)}</a>`
            : html`<span class="method">${operation.method}</span> ${pathCode(`${service.path}${operation.path}`)}`
        }</td>
<td data-label="What it does">${operation.summary}</td></tr>`;
      })}</tbody></table>`
    : ''
}`
}`;
}

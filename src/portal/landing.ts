import type { FastifyInstance } from 'fastify';
import { maintenanceWindowAt, newZealandIso } from '../gateway/domain/maintenance.ts';
import type { Product } from '../gateway/domain/products.ts';
import { listProducts } from '../gateway/store/products.ts';
import { html, type SafeHtml } from '../platform/http/html.ts';
import { ENVIRONMENT_PREFIX, type ServiceDefinition } from '../services/contract.ts';
import type { PortalDeps } from './index.ts';
import { pathCode, sendPage } from './layout.ts';
import {
  ORGANISATION_HEADER,
  ORGANISATION_HEADER_SERVICES,
  organisationIn,
  organisationNote,
} from './organisation-header.ts';
import { serviceDocument } from './reference.ts';
import { type OperationEntry, operationsOf } from './reference-document.ts';
import { portalContext } from './session.ts';

/**
 * The landing page (`/portal`; `GET /` leads here): the five registers as cards with one-line quick
 * starts, a search over every operation of every service, and for operators the sandbox clock and
 * maintenance state. The operations come from each service's own sandbox document (in-process), read
 * once per process.
 */
const WHAT: Record<string, string> = {
  nzbn: 'Business numbers: search entities, read their details, history and roles, and keep them up to date.',
  'market-rent': 'Rental statistics: market rents by area, dwelling type and bedrooms, from bond lodgements.',
  iponz: 'Intellectual property: trade marks, patents and designs, searches and case records.',
  ppsr: 'Secured interests: register, search and amend financing statements over personal property.',
  disclose: 'Offers register: offers of financial products, their documents and the disclosures about them.',
};

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

interface Catalogue {
  service: ServiceDefinition;
  operations: OperationEntry[];
  /** A call that works against the sandbox: a GET whose required parameters all have examples. */
  sample: string | undefined;
}

function exampleOf(parameter: Json): string | undefined {
  const schema = isObject(parameter.schema) ? parameter.schema : {};
  const candidates = [
    parameter.example,
    Array.isArray(schema.examples) ? schema.examples[0] : undefined,
    schema.example,
    schema.default,
  ];
  const found = candidates.find((value) => typeof value === 'string' || typeof value === 'number');
  return found === undefined ? undefined : String(found);
}

/** The first GET that can be called with the document's own examples; one with a path example first. */
export function sampleCall(document: unknown): string | undefined {
  if (!isObject(document) || !isObject(document.paths)) return undefined;
  const calls: { path: string; rank: number }[] = [];
  for (const [route, item] of Object.entries(document.paths)) {
    const operation = isObject(item) ? item.get : undefined;
    if (!isObject(operation)) continue;
    const parameters = (Array.isArray(operation.parameters) ? operation.parameters : []).filter(isObject);
    let path = route;
    const query = new URLSearchParams();
    let usable = true;
    let examples = 0;
    for (const parameter of parameters) {
      const name = typeof parameter.name === 'string' ? parameter.name : '';
      const example = exampleOf(parameter);
      if (parameter.in === 'path') {
        if (example === undefined) usable = false;
        else {
          path = path.replace(`{${name}}`, encodeURIComponent(example));
          examples++;
        }
      } else if (parameter.in === 'query' && parameter.required === true) {
        if (example === undefined) usable = false;
        else query.set(name, example);
      } else if (parameter.required === true && parameter.in === 'header') usable = false;
    }
    if (!usable || /[{}]/.test(path)) continue;
    calls.push({ path: query.size ? `${path}?${query}` : path, rank: examples > 0 ? 0 : 1 });
  }
  calls.sort((a, b) => a.rank - b.rank);
  return calls[0]?.path;
}

const catalogues = new WeakMap<FastifyInstance, Promise<Catalogue[]>>();

export function catalogue(deps: PortalDeps): Promise<Catalogue[]> {
  let found = catalogues.get(deps.app);
  if (!found) {
    found = Promise.all(
      deps.runtime.services.map(async (service) => {
        const document = await serviceDocument(deps, `${ENVIRONMENT_PREFIX.sandbox}${service.path}`);
        return { service, operations: operationsOf(document), sample: sampleCall(document) };
      }),
    );
    // A failure is not kept: the next request tries again.
    found.catch(() => catalogues.delete(deps.app));
    catalogues.set(deps.app, found);
  }
  return found;
}

/**
 * One-line calls in curl and TypeScript. `organisation`: for a register that needs `x-organisation`, the
 * value to send (the user's own identifier, or `null` for the `RSG_ORGANISATION` variable).
 */
export function quickStart(url: string, organisation?: string | null): SafeHtml {
  const header = organisation === undefined ? undefined : (organisation ?? '$RSG_ORGANISATION');
  const curl = `curl -H "Ocp-Apim-Subscription-Key: $RSG_KEY"${header ? ` -H "${ORGANISATION_HEADER}: ${header}"` : ''} "${url}"`;
  const tsHeader =
    organisation === undefined
      ? ''
      : `, '${ORGANISATION_HEADER}': ${organisation ? `'${organisation}'` : 'process.env.RSG_ORGANISATION!'}`;
  const typescript = `const answer = await fetch('${url}', { headers: { 'Ocp-Apim-Subscription-Key': process.env.RSG_KEY!${tsHeader} } }); console.log(answer.status, await answer.json());`;
  return html`<p class="hint">Quick start (with your sandbox key in <code>RSG_KEY</code>):</p>
<p class="label">curl</p><pre tabindex="0">${curl}</pre>
<p class="label">TypeScript</p><pre tabindex="0">${typescript}</pre>`;
}

function productFor(products: Product[], service: string, environment: string): Product | undefined {
  return products.find((product) => product.service === service && product.environment === environment);
}

async function operatorPanel(deps: PortalDeps): Promise<SafeHtml> {
  const now = deps.runtime.clocks.for('sandbox').now();
  const simulated = deps.runtime.config.sandboxMaintenance;
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

export function landingRoutes(scope: FastifyInstance, deps: PortalDeps): void {
  const pool = deps.runtime.gateway.pool;

  scope.get('/', async (request, reply) => {
    const user = portalContext(request).user;
    const [registers, products] = await Promise.all([catalogue(deps), listProducts(pool)]);
    const base = deps.runtime.publicUrl.base;
    const organisation = user ? ((await organisationIn(pool, user.id)) ?? null) : null;
    const cards = registers.map(({ service, operations, sample }) => {
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
      ? html`${quickStart(`${base}${sandboxBase}${sample}`, organisation)}${organisationNote(request, organisation ?? undefined, `/portal#register-${service.id}`)}`
      : quickStart(`${base}${sandboxBase}${sample}`)
    : ''
}</article>`;
    });
    return sendPage(
      request,
      reply,
      'Developer portal',
      html`<h1>Developer portal</h1>
<section class="card"><p>Five public registers, each with a <strong>sandbox</strong> (generated data and fixed test cases,
keys at once) and a <strong>production</strong> environment (an operator approves each subscription; it starts
empty until an operator imports data: see a production product's page).</p>
<ol>
  <li>${user ? html`<a href="/portal/subscriptions">Subscribe</a>` : html`<a href="/portal/signup">Create an account</a>`} to a sandbox product: its keys work at once.</li>
  <li>Open a register's reference: every operation has a <strong>Try it out</strong> with your key filled in.</li>
  <li><a href="/portal/clients">Register an OAuth client</a> when an operation acts for a person or a business.</li>
</ol>
${searchForm()}</section>
${user?.isOperator ? await operatorPanel(deps) : ''}
<h2>The registers</h2>
<div class="cards">${cards}</div>`,
    );
  });

  scope.get<{ Querystring: { q?: unknown } }>('/search', async (request, reply) => {
    const raw = typeof request.query.q === 'string' ? request.query.q.slice(0, 200) : '';
    const words = raw.toLowerCase().split(/\s+/).filter(Boolean);
    const [registers, products] = await Promise.all([catalogue(deps), listProducts(pool)]);
    const hits = words.length
      ? registers.flatMap(({ service, operations }) =>
          operations
            .filter((operation) => {
              const text =
                `${service.title} ${service.id} ${operation.method} ${operation.path} ${operation.summary} ${operation.tag}`.toLowerCase();
              return words.every((word) => text.includes(word));
            })
            .map((operation) => ({ service, operation })),
        )
      : [];
    const shown = hits.slice(0, 200);
    return sendPage(
      request,
      reply,
      raw ? `Search: ${raw}` : 'Search',
      html`<h1>Search the operations</h1>
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
}`,
    );
  });
}

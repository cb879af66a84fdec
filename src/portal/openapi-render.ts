import { html, type SafeHtml } from '../platform/http/html.ts';

/**
 * An API reference rendered server-side from a service's OpenAPI 3 document: every operation with its
 * parameters, request body and responses, schemas as nested lists. No Swagger UI, no script.
 * The document is read defensively: anything unexpected is skipped, never thrown.
 */
type Json = Record<string, unknown>;

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;
const MAX_DEPTH = 4;
const MAX_PROPERTIES = 60;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (value: unknown): string => (typeof value === 'string' ? value : '');

function resolve(document: Json, value: unknown): Json | undefined {
  if (!isObject(value)) return undefined;
  const ref = text(value.$ref);
  if (!ref.startsWith('#/')) return value;
  let target: unknown = document;
  for (const part of ref.slice(2).split('/')) target = isObject(target) ? target[part] : undefined;
  return isObject(target) ? target : undefined;
}

function typeName(schema: Json): string {
  const type = Array.isArray(schema.type) ? schema.type.join(' or ') : text(schema.type);
  const format = text(schema.format);
  if (Array.isArray(schema.anyOf) || Array.isArray(schema.oneOf)) return 'one of several shapes';
  if (type === 'array' && isObject(schema.items)) return `array of ${typeName(schema.items) || 'values'}`;
  return [type || (isObject(schema.properties) ? 'object' : ''), format ? `(${format})` : '']
    .filter(Boolean)
    .join(' ');
}

function constraints(schema: Json): string {
  const parts: string[] = [];
  if (Array.isArray(schema.enum))
    parts.push(`one of ${schema.enum.map((v) => JSON.stringify(v)).join(', ')}`);
  if (typeof schema.minimum === 'number') parts.push(`≥ ${schema.minimum}`);
  if (typeof schema.maximum === 'number') parts.push(`≤ ${schema.maximum}`);
  if (typeof schema.minLength === 'number') parts.push(`at least ${schema.minLength} characters`);
  if (typeof schema.maxLength === 'number') parts.push(`at most ${schema.maxLength} characters`);
  if (typeof schema.pattern === 'string') parts.push(`pattern ${schema.pattern}`);
  if (schema.default !== undefined) parts.push(`default ${JSON.stringify(schema.default)}`);
  return parts.join('; ');
}

export function renderSchema(document: Json, value: unknown, depth = 0): SafeHtml {
  const schema = resolve(document, value);
  if (!schema) return html``;
  const rule = constraints(schema);
  const head = html`<code>${typeName(schema) || 'any'}</code>${rule ? html` <span class="muted">${rule}</span>` : ''}${
    text(schema.description) ? html` — ${text(schema.description)}` : ''
  }`;
  if (depth >= MAX_DEPTH) return head;
  const target = schema.type === 'array' ? resolve(document, schema.items) : schema;
  const variants = [
    ...(Array.isArray(schema.anyOf) ? schema.anyOf : []),
    ...(Array.isArray(schema.oneOf) ? schema.oneOf : []),
  ];
  if (variants.length > 0) {
    return html`${head}<ul>${variants.slice(0, 10).map((variant) => html`<li>${renderSchema(document, variant, depth + 1)}</li>`)}</ul>`;
  }
  if (!target || !isObject(target.properties)) return head;
  const required = new Set(Array.isArray(target.required) ? target.required.map(String) : []);
  const properties = Object.entries(target.properties).slice(0, MAX_PROPERTIES);
  return html`${head}<ul>${properties.map(
    ([name, property]) =>
      html`<li><code>${name}</code>${required.has(name) ? html` <span class="badge">required</span>` : ''}: ${renderSchema(document, property, depth + 1)}</li>`,
  )}</ul>`;
}

function renderParameters(document: Json, parameters: unknown[]): SafeHtml {
  const rows = parameters.map((p) => resolve(document, p)).filter((p): p is Json => p !== undefined);
  if (rows.length === 0) return html`<p class="muted">No parameters.</p>`;
  return html`<table class="stack"><caption class="muted">Parameters</caption>
<thead><tr><th scope="col">Name</th><th scope="col">In</th><th scope="col">Type</th><th scope="col">Description</th></tr></thead>
<tbody>${rows.map((p) => {
    const schema = resolve(document, p.schema) ?? {};
    const rule = constraints(schema);
    const example =
      p.example ?? schema.example ?? (Array.isArray(schema.examples) ? schema.examples[0] : undefined);
    return html`<tr><td data-label="Name"><code>${text(p.name)}</code>${p.required ? html` <span class="badge">required</span>` : ''}</td>
<td data-label="In">${text(p.in)}</td><td data-label="Type"><code>${typeName(schema) || 'any'}</code>${rule ? html`<br><span class="muted">${rule}</span>` : ''}</td>
<td data-label="Description">${text(p.description)}${example !== undefined ? html`<br><span class="muted">Example: <code>${typeof example === 'string' ? example : JSON.stringify(example)}</code></span>` : ''}</td></tr>`;
  })}</tbody></table>`;
}

function renderContent(document: Json, content: unknown): SafeHtml {
  if (!isObject(content)) return html``;
  return html`${Object.entries(content).map(
    ([type, media]) =>
      html`<p><code>${type}</code></p>${isObject(media) ? renderSchema(document, media.schema) : ''}`,
  )}`;
}

function renderResponses(document: Json, responses: unknown): SafeHtml {
  if (!isObject(responses)) return html``;
  return html`<h4>Responses</h4><dl>${Object.entries(responses).map(([status, value]) => {
    const response = resolve(document, value) ?? {};
    return html`<dt><strong>${status}</strong> ${text(response.description)}</dt><dd>${renderContent(document, response.content)}</dd>`;
  })}</dl>`;
}

const anchor = (method: string, path: string) =>
  `op-${method}-${path.replace(/[^A-Za-z0-9]+/g, '-').replace(/^-|-$/g, '')}`;

export interface ApiReference {
  title: string;
  operations: number;
  body: SafeHtml;
}

export function renderApiReference(input: unknown): ApiReference {
  const document: Json = isObject(input) ? input : {};
  const info = isObject(document.info) ? document.info : {};
  const servers = Array.isArray(document.servers) ? document.servers.filter(isObject) : [];
  const base = text(servers[0]?.url);
  const paths = isObject(document.paths) ? document.paths : {};
  const operations: { method: string; path: string; operation: Json; shared: unknown[] }[] = [];
  for (const [path, item] of Object.entries(paths)) {
    if (!isObject(item)) continue;
    const shared = Array.isArray(item.parameters) ? item.parameters : [];
    for (const method of METHODS) {
      if (isObject(item[method])) operations.push({ method, path, operation: item[method] as Json, shared });
    }
  }
  const body = html`${
    operations.length === 0
      ? html`<p class="notice">No operations are published for this API yet.</p>`
      : html`<nav aria-label="Operations"><ul>${operations.map(
          (o) =>
            html`<li><a href="#${anchor(o.method, o.path)}"><span class="method">${o.method}</span><code>${o.path}</code></a></li>`,
        )}</ul></nav>`
  }
${operations.map(({ method, path, operation, shared }) => {
  const parameters = [...shared, ...(Array.isArray(operation.parameters) ? operation.parameters : [])];
  const requestBody = resolve(document, operation.requestBody);
  return html`<section class="op" id="${anchor(method, path)}" aria-labelledby="${anchor(method, path)}-h">
<h3 id="${anchor(method, path)}-h"><span class="method">${method}</span><code>${base}${path}</code></h3>
${text(operation.summary) ? html`<p><strong>${text(operation.summary)}</strong></p>` : ''}
${text(operation.description) ? html`<p>${text(operation.description)}</p>` : ''}
${renderParameters(document, parameters)}
${requestBody ? html`<h4>Request body${requestBody.required ? ' (required)' : ''}</h4>${renderContent(document, requestBody.content)}` : ''}
${renderResponses(document, operation.responses)}
</section>`;
})}`;
  return { title: text(info.title), operations: operations.length, body };
}

import { STATUS_CODES } from 'node:http';
import type { RecordedAnswer } from '../examples/record.ts';

/**
 * A service's OpenAPI document made ready for the portal's reference (pure; the input is not changed):
 * - responses titled "Default Response" (the schema library's placeholder) get their status's name;
 * - the four conditional-request headers, the paging parameters and every error response that repeats
 *   word for word are moved to `components` once and referenced from each operation;
 * - `info.description` explains conditional requests, paging and error bodies once, with the
 *   document's own `x-error-codes` as a table;
 * - an operation with a recorded sandbox answer (examples/sandbox-answers.json) shows it as its
 *   response's example (`examples.sandbox`).
 * Anything unexpected is left as it is, never thrown.
 */
type Json = Record<string, unknown>;

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const CONDITIONAL: Record<string, { id: string; description: string }> = {
  'if-none-match': {
    id: 'IfNoneMatch',
    description:
      'Conditional read: the ETag of the copy you hold. When it is still current the answer is `304 Not Modified` with no body. See *Conditional requests* at the top.',
  },
  'if-match': {
    id: 'IfMatch',
    description:
      'Conditional change: the ETag you read. When the item has changed since, the answer is `412 Precondition Failed` and nothing is written. See *Conditional requests* at the top.',
  },
  'if-modified-since': {
    id: 'IfModifiedSince',
    description:
      'Conditional read by date (an HTTP date): `304 Not Modified` when the item has not changed since. See *Conditional requests* at the top.',
  },
  'if-unmodified-since': {
    id: 'IfUnmodifiedSince',
    description:
      'Conditional change by date (an HTTP date): `412 Precondition Failed` when the item changed since. See *Conditional requests* at the top.',
  },
};

const PAGING: Record<string, { id: string; description: string }> = {
  page: {
    id: 'Page',
    description: 'Paging: the page to answer, counted as the API counts them (see *Paging* at the top).',
  },
  'page-size': {
    id: 'PageSize',
    description: 'Paging: how many items a page holds, within the API’s limit (see *Paging* at the top).',
  },
};

function conventions(document: Json): string {
  const codes = Array.isArray(document['x-error-codes']) ? document['x-error-codes'].filter(isObject) : [];
  const cell = (value: unknown) => String(value ?? '').replace(/\|/g, '\\|');
  const table = codes.length
    ? [
        '',
        '| status | code | meaning |',
        '|---|---|---|',
        ...codes.map((c) => `| ${cell(c.status)} | \`${cell(c.code)}\` | ${cell(c.meaning)} |`),
      ].join('\n')
    : '';
  const own = typeof (document.info as Json | undefined)?.description === 'string';
  return [
    own ? String((document.info as Json).description) : '',
    '### Keys',
    'Send your subscription key in the `Ocp-Apim-Subscription-Key` header (or the `subscription-key` query parameter). Signed in, the portal fills in your key for this product when this browser has seen it (on the page that showed it); otherwise use **Authorize** and paste it.',
    '### Conditional requests',
    'Where an operation lists these headers, its answer carries an `ETag` (and, where the API publishes it, `Last-Modified`). Send the ETag back in `If-None-Match` (or the date in `If-Modified-Since`) to get `304 Not Modified` with no body when nothing changed; send it in `If-Match` (or `If-Unmodified-Since`) with a change to get `412 Precondition Failed` instead of overwriting someone else’s change.',
    '### Paging',
    'Lists take `page` and `page-size` and answer one page with the totals the API publishes; ask for the next page until the totals say there is none. Each list shows its own range and default for both.',
    scenariosSection(document),
    '### Error bodies',
    'Every error is JSON in this API’s own shape, shown once under *Schemas* and referenced from each operation’s responses; it names the field and the rule that failed. The gateway’s own refusals (key, token, rate limit, quota) use these codes:' +
      table,
  ]
    .filter(Boolean)
    .join('\n\n');
}

/** The sandbox's fault scenarios (`Sandbox-Scenario`), as the service's document lists them. */
function scenariosSection(document: Json): string {
  const components = isObject(document.components) ? document.components : {};
  const parameters = isObject(components.parameters) ? components.parameters : {};
  const parameter = parameters.SandboxScenario;
  const scenarios = isObject(parameter) && isObject(parameter['x-scenarios']) ? parameter['x-scenarios'] : {};
  const rows = Object.values(scenarios).filter(isObject);
  if (rows.length === 0) return '';
  const cell = (value: unknown) => String(value ?? '').replace(/\|/g, '\\|');
  return [
    '### Fault scenarios (sandbox)',
    'Rehearse this register’s failures on demand: send `Sandbox-Scenario` with a call, or set a scenario for every call of a subscription on **My subscriptions** (for clients that cannot add headers; the header comes first). Each failure is answered exactly as the real one is. Production refuses the header.',
    '',
    '| `Sandbox-Scenario` | what the call meets |',
    '|---|---|',
    ...rows.map((row) => `| \`${cell(row.form)}\` | ${cell(row.description)} |`),
  ].join('\n');
}

function refName(status: string, response: Json, taken: Map<string, string>, used: Set<string>): string {
  const key = JSON.stringify(response);
  const known = taken.get(key);
  if (known) return known;
  const base = `${(STATUS_CODES[Number(status)] ?? 'Status').replace(/[^A-Za-z]/g, '')}${status}`;
  let name = base;
  for (let i = 2; used.has(name); i++) name = `${base}_${i}`;
  used.add(name);
  taken.set(key, name);
  return name;
}

/** Puts each recorded sandbox answer on its operation's response as the `sandbox` example. */
function addAnswers(document: Json, answers: Readonly<Record<string, RecordedAnswer>>): void {
  for (const [name, answer] of Object.entries(answers)) {
    const [method, ...rest] = name.split(' ');
    const item = (document.paths as Json)[rest.join(' ')];
    const operation = isObject(item) ? item[method!.toLowerCase()] : undefined;
    if (!isObject(operation) || !isObject(operation.responses)) continue;
    const status = String(answer.status);
    const response = operation.responses[status];
    if (!isObject(response) || response.$ref) continue;
    const sent = Object.entries(answer.sent ?? {}).map(([header, value]) => ` with \`${header}: ${value}\``);
    const call = `\`${method} ${answer.request}\`${sent.join(' and')}`;
    if (answer.contentType === '') {
      // No body (a removal's 204, a download's 302): the answer is its status and its headers.
      const location = answer.headers?.location;
      response.description =
        `${response.description ?? ''} (the sandbox answered ${call} so${location ? ', with the Location below' : ', with no body'})`.trim();
      if (location) {
        const headers: Json = isObject(response.headers) ? response.headers : {};
        headers.Location = {
          description: `Where to fetch it. The sandbox's answer to ${call}: \`${location}\``,
          schema: { type: 'string', format: 'uri' },
          example: location,
        };
        response.headers = headers;
      }
      continue;
    }
    const content: Json = isObject(response.content) ? response.content : {};
    response.content = content;
    const media: Json = isObject(content[answer.contentType]) ? (content[answer.contentType] as Json) : {};
    content[answer.contentType] = media;
    delete media.example;
    media.examples = {
      sandbox: {
        summary: 'A real sandbox answer',
        description: `The sandbox's answer to ${call} (the document's example values).`,
        value: answer.body,
      },
    };
  }
}

export function referenceDocument(
  input: unknown,
  answers: Readonly<Record<string, RecordedAnswer>> = {},
): Json | undefined {
  if (!isObject(input) || !isObject(input.paths)) return undefined;
  const document = structuredClone(input);
  addAnswers(document, answers);
  const components: Json = isObject(document.components) ? document.components : {};
  document.components = components;
  const parameters: Json = isObject(components.parameters) ? components.parameters : {};
  const responses: Json = isObject(components.responses) ? components.responses : {};

  // Error responses seen more than once become one component each.
  const counts = new Map<string, number>();
  const eachOperation = (visit: (operation: Json) => void) => {
    for (const item of Object.values(document.paths as Json)) {
      if (!isObject(item)) continue;
      for (const method of METHODS) if (isObject(item[method])) visit(item[method] as Json);
    }
  };
  eachOperation((operation) => {
    if (!isObject(operation.responses)) return;
    for (const [status, response] of Object.entries(operation.responses)) {
      if (/^[45]\d\d$/.test(status) && isObject(response) && !response.$ref) {
        const key = JSON.stringify(response);
        counts.set(key, (counts.get(key) ?? 0) + 1);
      }
    }
  });
  const taken = new Map<string, string>();
  const used = new Set(Object.keys(responses));

  // Untagged operations are grouped by their path's first segment (Swagger UI would put them all under "default").
  for (const [route, item] of Object.entries(document.paths as Json)) {
    if (!isObject(item)) continue;
    const group = route.split('/').find(Boolean)?.replace(/[{}]/g, '') ?? 'root';
    for (const method of METHODS) {
      const operation = item[method];
      if (isObject(operation) && (!Array.isArray(operation.tags) || operation.tags.length === 0)) {
        operation.tags = [group];
      }
    }
  }

  eachOperation((operation) => {
    if (Array.isArray(operation.parameters)) {
      operation.parameters = operation.parameters.map((parameter) => {
        if (!isObject(parameter) || typeof parameter.name !== 'string') return parameter;
        const name = parameter.name.toLowerCase();
        const shared =
          parameter.in === 'header' ? CONDITIONAL[name] : parameter.in === 'query' ? PAGING[name] : undefined;
        if (!shared) return parameter;
        // Paging parameters differ per API (limits, defaults): only shared when the same everywhere.
        const component = { ...parameter, description: parameter.description ?? shared.description };
        const existing = parameters[shared.id];
        if (existing === undefined) parameters[shared.id] = component;
        else if (JSON.stringify(existing) !== JSON.stringify(component)) {
          return { ...parameter, description: parameter.description ?? shared.description };
        }
        return { $ref: `#/components/parameters/${shared.id}` };
      });
    }
    if (!isObject(operation.responses)) return;
    for (const [status, response] of Object.entries(operation.responses)) {
      if (!isObject(response) || response.$ref) continue;
      if (response.description === 'Default Response' || response.description === undefined) {
        response.description = STATUS_CODES[Number(status)] ?? 'Response';
      }
      if (/^[45]\d\d$/.test(status) && (counts.get(JSON.stringify(response)) ?? 0) > 1) {
        const name = refName(status, response, taken, used);
        responses[name] = response;
        operation.responses[status] = { $ref: `#/components/responses/${name}` };
      }
    }
  });
  if (Object.keys(parameters).length) components.parameters = parameters;
  if (Object.keys(responses).length) components.responses = responses;
  const wsdls = resolveExternalDocs(document);
  const info: Json = isObject(document.info) ? { ...document.info } : { title: 'API', version: '' };
  info.description = conventions(document) + soapSection(wsdls);
  document.info = info;
  return document;
}

/**
 * Links the document gives relative to the API (`schemas/patent.xsd`, `trademarksearch?wsdl`) made
 * absolute paths under its server, so they work from the portal's page; resolves to the WSDL links found.
 */
function resolveExternalDocs(document: Json): { path: string; url: string }[] {
  const servers = Array.isArray(document.servers) ? document.servers.filter(isObject) : [];
  const base = typeof servers[0]?.url === 'string' ? servers[0].url.replace(/\/$/, '') : '';
  const wsdls: { path: string; url: string }[] = [];
  const walk = (value: unknown, depth: number): void => {
    if (depth > 64) return;
    if (Array.isArray(value)) for (const item of value) walk(item, depth + 1);
    if (!isObject(value)) return;
    const docs = value.externalDocs;
    if (isObject(docs) && typeof docs.url === 'string' && !/^([a-z][a-z0-9+.-]*:|\/)/i.test(docs.url)) {
      const relative = docs.url;
      const url = `${base}/${relative}`;
      docs.url = url;
      if (relative.endsWith('?wsdl') && !wsdls.some((w) => w.url === url)) {
        wsdls.push({ path: `/${relative.slice(0, -'?wsdl'.length)}`, url });
      }
    }
    for (const [key, child] of Object.entries(value)) if (key !== 'externalDocs') walk(child, depth + 1);
  };
  walk(document.paths, 0);
  walk(document.components, 0);
  return wsdls;
}

function soapSection(wsdls: readonly { path: string; url: string }[]): string {
  if (wsdls.length === 0) return '';
  return [
    '',
    '',
    '## SOAP endpoints',
    '',
    'These POST operations take a SOAP 1.1 envelope (`Content-Type: text/xml`) and choose the operation by the',
    '`SOAPAction` header. Each has a sample envelope per operation to try (pick it under *Examples*); the',
    'contract is the WSDL and the XSDs it imports:',
    '',
    ...wsdls.map((w) => `- \`POST ${w.path}\`: [WSDL](${w.url})`),
  ].join('\n');
}

/** Every operation of a document: method, path, summary and operation id. */
export interface OperationEntry {
  method: string;
  path: string;
  summary: string;
  operationId: string;
  tag: string;
}

export function operationsOf(document: unknown): OperationEntry[] {
  if (!isObject(document) || !isObject(document.paths)) return [];
  const entries: OperationEntry[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    if (!isObject(item)) continue;
    for (const method of METHODS) {
      const operation = item[method];
      if (!isObject(operation)) continue;
      const tags = Array.isArray(operation.tags) ? operation.tags : [];
      entries.push({
        method,
        path,
        summary: typeof operation.summary === 'string' ? operation.summary : '',
        operationId: typeof operation.operationId === 'string' ? operation.operationId : '',
        tag: typeof tags[0] === 'string' ? tags[0] : 'default',
      });
    }
  }
  return entries;
}

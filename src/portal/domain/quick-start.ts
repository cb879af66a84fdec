import { ORGANISATION_HEADER } from './organisation-header.ts';

/**
 * The landing page's quick starts: a call each register's sandbox answers with its own document's
 * examples (`sampleCall`), written as one line of curl and as a module of TypeScript that makes the same
 * call through the typed client, installed from the gateway (`quickStartLines`).
 */
type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A parameter's example as the document types it (a number for an integer, text otherwise). */
function exampleOf(parameter: Json): string | number | boolean | undefined {
  const schema = isObject(parameter.schema) ? parameter.schema : {};
  const candidates = [
    parameter.example,
    Array.isArray(schema.examples) ? schema.examples[0] : undefined,
    schema.example,
    schema.default,
  ];
  const found = candidates.find((value) => typeof value === 'string' || typeof value === 'number');
  if (found === undefined) return undefined;
  if (schema.type === 'integer' || schema.type === 'number') {
    const number = Number(found);
    return Number.isFinite(number) ? number : undefined;
  }
  if (schema.type === 'boolean') return String(found) === 'true';
  return String(found);
}

/** A call the sandbox answers with the document's own examples. */
export interface SampleCall {
  /** The path and query, filled in (`/entities/9429000001007`). */
  url: string;
  /** The operation's id: the typed client's method name. */
  operationId: string | undefined;
  /** The path and required query parameters, by name, typed as the document types them. */
  path: Record<string, string | number | boolean>;
  query: Record<string, string | number | boolean>;
}

/** The first GET that can be called with the document's own examples; one with a path example first. */
export function sampleCall(document: unknown): SampleCall | undefined {
  if (!isObject(document) || !isObject(document.paths)) return undefined;
  const calls: (SampleCall & { rank: number })[] = [];
  for (const [route, item] of Object.entries(document.paths)) {
    const operation = isObject(item) ? item.get : undefined;
    if (!isObject(operation)) continue;
    const parameters = (Array.isArray(operation.parameters) ? operation.parameters : []).filter(isObject);
    let path = route;
    const query = new URLSearchParams();
    const values: Pick<SampleCall, 'path' | 'query'> = { path: {}, query: {} };
    let usable = true;
    let examples = 0;
    for (const parameter of parameters) {
      const name = typeof parameter.name === 'string' ? parameter.name : '';
      const example = exampleOf(parameter);
      if (parameter.in === 'path') {
        if (example === undefined) usable = false;
        else {
          path = path.replace(`{${name}}`, encodeURIComponent(String(example)));
          values.path[name] = example;
          examples++;
        }
      } else if (parameter.in === 'query' && parameter.required === true) {
        if (example === undefined) usable = false;
        else {
          query.set(name, String(example));
          values.query[name] = example;
        }
      } else if (parameter.required === true && parameter.in === 'header') usable = false;
    }
    if (!usable || /[{}]/.test(path)) continue;
    calls.push({
      url: query.size ? `${path}?${query}` : path,
      operationId: typeof operation.operationId === 'string' ? operation.operationId : undefined,
      ...values,
      rank: examples > 0 ? 0 : 1,
    });
  }
  calls.sort((a, b) => a.rank - b.rank);
  const [first] = calls;
  if (!first) return undefined;
  const { rank: _rank, ...call } = first;
  return call;
}

/** The typed client's download on the gateway at `base`: what `npm install` takes until it is published. */
export const clientDownload = (base: string): string => `${base}/portal/downloads/client.tgz`;

/** A TypeScript literal of a value: a quoted string, or a number or boolean as it is. */
const literal = (value: string | number | boolean): string =>
  typeof value === 'string'
    ? `'${JSON.stringify(value).slice(1, -1).replaceAll('\\"', '"').replaceAll("'", "\\'")}'`
    : String(value);
/** An object literal's key: bare when it is an identifier, quoted otherwise (`'period-ending'`). */
const key = (name: string): string => (/^[A-Za-z_$][\w$]*$/.test(name) ? name : literal(name));
const objectLiteral = (values: Record<string, string | number | boolean>): string =>
  `{ ${Object.entries(values)
    .map(([name, value]) => `${key(name)}: ${literal(value)}`)
    .join(', ')} }`;

export interface QuickStart {
  /** One line of curl. */
  curl: string;
  /** How to install the typed client (from the gateway); absent when the call has no operation id. */
  install?: string;
  /** The same call through the typed client: a module (top-level await) a user runs as written. */
  typescript?: string;
}

/**
 * The quick start of a register's sample call: one line of curl, and the same call through the typed
 * client (`@register-services/client`, installed from the gateway). `organisation`: for a register that
 * needs `x-organisation`, the value to send (the user's own identifier, or `null` for the
 * `RSG_ORGANISATION` variable).
 */
export function quickStartLines(
  base: string,
  register: { id: string; prefix: string },
  sample: SampleCall,
  organisation?: string | null,
): QuickStart {
  const header = organisation === undefined ? undefined : (organisation ?? '$RSG_ORGANISATION');
  const curl = `curl -H "Ocp-Apim-Subscription-Key: $RSG_KEY"${header ? ` -H "${ORGANISATION_HEADER}: ${header}"` : ''} "${base}${register.prefix}${sample.url}"`;
  if (!sample.operationId) return { curl };
  const input = [
    ...(Object.keys(sample.path).length ? [`path: ${objectLiteral(sample.path)}`] : []),
    ...(Object.keys(sample.query).length ? [`query: ${objectLiteral(sample.query)}`] : []),
  ];
  const options = [
    `register: ${literal(register.id)}`,
    "environment: 'sandbox'",
    `baseUrl: ${literal(base)}`,
    'key: process.env.RSG_KEY!',
    ...(organisation === undefined
      ? []
      : [`organisation: ${organisation ? literal(organisation) : 'process.env.RSG_ORGANISATION!'}`]),
  ];
  const typescript = [
    "import { createClient } from '@register-services/client';",
    '',
    'const client = createClient({',
    ...options.map((option) => `  ${option},`),
    '});',
    `console.log(await client.${sample.operationId}(${input.length ? `{ ${input.join(', ')} }` : ''}));`,
  ].join('\n');
  return { curl, install: `npm install ${clientDownload(base)}`, typescript };
}

/**
 * What one call of the response-example recorder (record.ts) is made of, read from an operation of an
 * OpenAPI document: its path, query and headers from the document's examples (and what earlier writes
 * made), its example body, a SOAP endpoint's action; and what is kept of an answer for the calls after it.
 */
export type Json = Record<string, unknown>;
export const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;
export const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
/** Lower-case letters and digits only: `search-id`, `searchId` and `SearchID` are one name. */
export const plain = (name: string) => name.toLowerCase().replace(/[^a-z0-9]/g, '');

/** The parameter's example, as the document gives it (the parameter's own, else its schema's). */
export function exampleOf(parameter: Json): string | undefined {
  const schema = isObject(parameter.schema) ? parameter.schema : {};
  const examples = isObject(parameter.examples) ? Object.values(parameter.examples) : [];
  const candidates = [
    parameter.example,
    isObject(examples[0]) ? examples[0].value : undefined,
    Array.isArray(schema.examples) ? schema.examples[0] : undefined,
    schema.example,
  ];
  const found = candidates.find((value) => value !== undefined && value !== null);
  return found === undefined ? undefined : String(found);
}

/** The call an operation's examples make: the path and headers, or why there is none. */
export function exampleCall(
  path: string,
  operation: Json,
  given: Readonly<Record<string, string>> = {},
  made: ReadonlyMap<string, string> = new Map(),
): { url: string; headers: Record<string, string> } | { missing: string } {
  let url = path;
  let madeQuery = false;
  const query = new URLSearchParams();
  const headers: Record<string, string> = {};
  for (const parameter of Array.isArray(operation.parameters) ? operation.parameters : []) {
    if (!isObject(parameter) || typeof parameter.name !== 'string') continue;
    let example = exampleOf(parameter);
    // What an earlier write made fills what the document gives no example for; of the query
    // parameters only one (they are alternatives: a search id or a secured party group id).
    if (example === undefined && (parameter.in === 'path' || (parameter.in === 'query' && !madeQuery))) {
      example = made.get(plain(parameter.name));
      if (example !== undefined && parameter.in === 'query') madeQuery = true;
    }
    if (parameter.in === 'path' && !url.includes(`{${parameter.name}}`)) {
      // Filled already (an item the recorder made, see `madeItem`).
    } else if (parameter.in === 'path') {
      if (example === undefined)
        return { missing: `the document gives no example for the path parameter ${parameter.name}` };
      url = url.replace(`{${parameter.name}}`, encodeURIComponent(example));
    } else if (parameter.in === 'query' && example !== undefined) {
      query.set(parameter.name, example);
    } else if (parameter.in === 'header' && given[parameter.name] !== undefined) {
      // Sent already (a SOAP endpoint's SOAPAction, named by the body's example).
    } else if (parameter.in === 'header' && parameter.required !== true && example !== undefined) {
      // An optional header the document gives an example of is part of the example (a statement's PIN,
      // which opens another organisation's statement).
      headers[parameter.name] = example;
    } else if (parameter.required === true && (parameter.in === 'query' || parameter.in === 'header')) {
      if (example === undefined) {
        return {
          missing: `the document gives no example for the required ${parameter.in} parameter ${parameter.name}`,
        };
      }
      if (parameter.in === 'query') query.set(parameter.name, example);
      else headers[parameter.name] = example;
    }
  }
  return { url: query.size ? `${url}?${query}` : url, headers };
}

/** The operation's first example body, with its media type and the example's name. */
export function exampleBody(
  operation: Json,
): { contentType: string; name: string; value: string } | undefined {
  const content = isObject(operation.requestBody) ? operation.requestBody.content : undefined;
  for (const [contentType, media] of Object.entries(isObject(content) ? content : {})) {
    if (!isObject(media)) continue;
    const named = isObject(media.examples) ? Object.entries(media.examples) : [];
    const schema = isObject(media.schema) ? media.schema : {};
    const [name, example] = named[0] ?? [
      'example',
      { value: media.example ?? (Array.isArray(schema.examples) ? schema.examples[0] : schema.example) },
    ];
    const value = isObject(example) ? example.value : undefined;
    if (value === undefined || value === null) continue;
    return { contentType, name, value: typeof value === 'string' ? value : JSON.stringify(value) };
  }
  return undefined;
}

/**
 * A header parameter whose allowed values name the example (a SOAP endpoint's `SOAPAction`: its body
 * examples are named after the WSDL operation) is sent with that value.
 */
export function actionHeaders(operation: Json, exampleName: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const parameter of Array.isArray(operation.parameters) ? operation.parameters : []) {
    if (!isObject(parameter) || parameter.in !== 'header' || typeof parameter.name !== 'string') continue;
    const allowed = isObject(parameter.schema) ? parameter.schema.enum : undefined;
    if (Array.isArray(allowed) && allowed.includes(exampleName)) headers[parameter.name] = exampleName;
  }
  return headers;
}

/** The detail of an error answer, short (for `missing`). */
export function detailOf(body: string): string {
  const fault = /<faultstring>([^<]*)<\/faultstring>/.exec(body)?.[1];
  if (fault !== undefined) return `a SOAP Fault: ${fault.slice(0, 160)}`;
  try {
    const parsed = JSON.parse(body) as Json;
    const text = parsed.detail ?? parsed.errorDescription ?? parsed.message ?? parsed.title;
    return typeof text === 'string' ? text.slice(0, 160) : body.slice(0, 160);
  } catch {
    return body.slice(0, 160);
  }
}

/**
 * The gateway's refusal of a call without an end user's token (`three-legged-token-required`): its
 * `WWW-Authenticate`, or, from a SOAP endpoint (which answers every refusal as a Fault), its message.
 */
export const needsUser = (answer: { statusCode: number; headers: Record<string, unknown>; body: string }) =>
  answer.statusCode === 401 &&
  (/a user's token is required/.test(String(answer.headers['www-authenticate'])) ||
    /needs a three-legged OAuth token|needs a token from the authorization-code grant/.test(answer.body));

/**
 * What a successful write's answer made, for the calls after it: every top-level text or number
 * property of its JSON body (`watchlistId`, `securedPartyGroupId`, `searchId`, `authorityId`) and the
 * request id the gateway answered with (`requestId`: a transaction is looked up by it). The first
 * write to make a name keeps it, so the chain is the same in every recording.
 */
export function harvest(made: Map<string, string>, body: unknown, headers: Record<string, unknown>): void {
  const found: [string, unknown][] = isObject(body) ? Object.entries(body) : [];
  found.push(['requestId', headers['api-business-govt-nz-request-id']]);
  for (const [name, value] of found) {
    if ((typeof value === 'string' && value !== '') || typeof value === 'number') {
      if (!made.has(plain(name))) made.set(plain(name), String(value));
    }
  }
}

/**
 * Names of what the register draws at random when it creates something (a financing statement's
 * number and PINs): renumbered after recording (stable.ts), so that recording twice gives the same bytes.
 */
export const DRAWN = /^(registrationnumber|.*pin)$/;

/** The media type a read answers in, as its document's success response names it (JSON first). */
export function readMediaType(operation: Json): string {
  const responses = isObject(operation.responses) ? operation.responses : {};
  const success = Object.entries(responses).find(([status]) => /^2/.test(status))?.[1];
  const types = isObject(success) && isObject(success.content) ? Object.keys(success.content) : [];
  return types.find((type) => /json$/.test(type)) ?? types[0] ?? 'application/json';
}

/** The part of a call's path that a template beginning its own names (`/entities/X` of `/entities/{nzbn}`). */
export const pathNamed = (path: string, template: string): string =>
  path.split('/').slice(0, template.split('/').length).join('/');

/**
 * The resource a write's If-Match names: the one its `x-etag-of` names (a path template that begins the
 * write's own: `/entities/{nzbn}` for `/entities/{nzbn}/roles/{id}`), when it has one and it was read;
 * otherwise, of the paths read (or written) so far that answered an ETag, the longest that is the
 * write's path or a parent of it (`/offer/OFR10001/fund/FND10001` for
 * `…/fund/FND10001/submit-fund-compliance`), with that ETag — as a client sends the ETag of what it
 * last read.
 */
export function etagFor(
  etags: ReadonlyMap<string, string>,
  url: string,
  etagOf?: string,
): [string, string] | undefined {
  const path = url.split('?')[0]!;
  if (etagOf !== undefined) {
    const named = pathNamed(path, etagOf);
    const etag = etags.get(named);
    if (etag !== undefined) return [named, etag];
  }
  let best: [string, string] | undefined;
  for (const [read, etag] of etags) {
    if ((path === read || path.startsWith(`${read}/`)) && read.length > (best?.[0].length ?? -1))
      best = [read, etag];
  }
  return best;
}

/** Whether an operation takes an If-Match header (a conditional write). */
export const takesIfMatch = (operation: Json): boolean =>
  (Array.isArray(operation.parameters) ? operation.parameters : []).some(
    (parameter) =>
      isObject(parameter) && parameter.in === 'header' && plain(String(parameter.name)) === 'ifmatch',
  );

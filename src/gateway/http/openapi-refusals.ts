import { APIM_ERRORS } from '../../platform/http/error-codes.ts';

/**
 * The gateway's own refusals in each service's OpenAPI document. The guard (guard.ts) answers every
 * keyed operation of every register with 401 (no key, an unknown or revoked key, a key of the other
 * environment or another API, a bad bearer token) and 429 (the product's or the user's rate limit, with
 * `Retry-After`), in API Management's body `{statusCode, message}` whatever the register's own error
 * dialect. `documentGatewayRefusals` adds both answers to every operation that takes a key, so a
 * reader (and Swagger UI) sees them documented. An operation that documents its own 401 (the register's
 * three-legged requirement, in its dialect) keeps it: its JSON schema becomes "either of the two", and
 * a non-JSON 401 (a SOAP fault) gets the gateway's JSON body beside it.
 */
type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const OPERATION_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** API Management's error body, as `errors.ts` renders the `apim` dialect. */
export const GATEWAY_REFUSAL_SCHEMA = {
  description: "The gateway's refusal, in API Management's body",
  type: 'object',
  required: ['statusCode', 'message'],
  properties: {
    statusCode: { type: 'integer' },
    message: { type: 'string' },
  },
} as const;

export const GATEWAY_401_DESCRIPTION =
  'Unauthorized: no subscription key (`Ocp-Apim-Subscription-Key` or `subscription-key`), a key that is ' +
  'unknown, revoked or for another environment or API, or a bearer token that fails a check. ' +
  `Answered by the gateway before the register: ${APIM_ERRORS.missingKey.code}, ${APIM_ERRORS.invalidKey.code}, ` +
  `${APIM_ERRORS.invalidToken.code}, ${APIM_ERRORS.threeLeggedTokenRequired.code}.`;

export const GATEWAY_429_DESCRIPTION =
  "Too Many Requests: the product's rate limit (or the API's per-user limit) is exceeded; `Retry-After` " +
  'says in how many seconds to try again. Answered by the gateway before the register.';

const json = () => ({ 'application/json': { schema: structuredClone(GATEWAY_REFUSAL_SCHEMA) } });

function unauthorized(existing: unknown): Json {
  if (!isObject(existing)) return { description: GATEWAY_401_DESCRIPTION, content: json() };
  const content = isObject(existing.content) ? { ...existing.content } : {};
  const own = isObject(content['application/json']) ? content['application/json'] : undefined;
  if (own && isObject(own.schema)) {
    content['application/json'] = {
      ...own,
      schema: { anyOf: [own.schema, structuredClone(GATEWAY_REFUSAL_SCHEMA)] },
    };
  } else {
    Object.assign(content, json());
  }
  const description = typeof existing.description === 'string' ? existing.description : '';
  return {
    ...existing,
    description: description ? `${description}. Or: ${GATEWAY_401_DESCRIPTION}` : GATEWAY_401_DESCRIPTION,
    content,
  };
}

const tooMany = (): Json => ({
  description: GATEWAY_429_DESCRIPTION,
  headers: {
    'Retry-After': {
      description: 'Seconds to wait before the next call',
      schema: { type: 'integer', minimum: 1 },
    },
  },
  content: json(),
});

/** The document with 401 and 429 on every operation that takes a key (changed in place, returned). */
export function documentGatewayRefusals<T>(document: T): T {
  if (!isObject(document) || !isObject(document.paths)) return document;
  for (const item of Object.values(document.paths)) {
    if (!isObject(item)) continue;
    for (const method of OPERATION_METHODS) {
      const operation = item[method];
      if (!isObject(operation)) continue;
      // An operation that declares no security takes no key: the guard never answers it.
      if (Array.isArray(operation.security) && operation.security.length === 0) continue;
      const responses = isObject(operation.responses) ? operation.responses : {};
      responses['401'] = unauthorized(responses['401']);
      if (!isObject(responses['429'])) responses['429'] = tooMany();
      operation.responses = responses;
    }
  }
  return document;
}

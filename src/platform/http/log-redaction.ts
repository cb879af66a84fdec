import type { FastifyRequest } from 'fastify';
import pino from 'pino';
import { isSecretInputName, REDACTED, SECRET_INPUT_NAMES, SECRET_NAMES, spellings } from '../secret-names.ts';

/**
 * Secrets never reach a log line. Three layers, all set up by `loggerOptions`:
 *
 * - the request serializer writes the URL with the value of every secret query parameter replaced by
 *   `[REDACTED]` (names compared case-insensitively, after percent-decoding), so `?subscription-key=…`
 *   and a signed download URL's `signature=` are clean in the `incoming request` line that
 *   LOG_LEVEL=debug writes for every request;
 * - pino's `redact` censors secret headers (Authorization, cookies, the subscription key header …) and
 *   secret fields (passwords, client secrets, tokens, codes …) wherever a log object carries them;
 * - error messages and stacks, which may quote a URL or a header, get the same rewriting as text.
 */
export { REDACTED };

/**
 * Every spelling of every secret name (platform/secret-names.ts, the list the request inspector follows
 * too): pino compares names exactly, so `client-secret` is spelled out as `client-secret`,
 * `client_secret` and `clientSecret`. As headers they are Node's lower-case names.
 */
const SECRET_FIELDS = SECRET_NAMES.flatMap(spellings);
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** Names secret only inside a request's body, query or form (`code` and `key` mean other things elsewhere). */
const SECRET_INPUT_FIELDS = [...SECRET_INPUT_NAMES, ...SECRET_FIELDS];

const quote = (name: string) => (IDENTIFIER.test(name) ? `.${name}` : `["${name}"]`);
const INPUTS = ['body', 'query', 'form'];

/**
 * The paths given to pino's `redact`. `req`, `res` and `err` are not among them: their serializers
 * (below) write no headers or bodies at all. Every path is spelled out: a wildcard (`*.password`) makes
 * pino run the redaction over the bindings of every child logger, and Fastify makes one per request,
 * which costs tens of microseconds a request even when nothing is logged; and pino runs the paths of a
 * key only on lines that carry that key, so the per-request lines pay nothing for them.
 */
export const REDACT_PATHS: readonly string[] = [
  ...['', 'request.', 'response.'].flatMap((owner) => SECRET_NAMES.map((h) => `${owner}headers${quote(h)}`)),
  // A log object's own fields as JavaScript names (a kebab-case field is a header's or an input's).
  ...SECRET_FIELDS.filter((f) => IDENTIFIER.test(f)),
  ...['', 'request.'].flatMap((owner) =>
    INPUTS.flatMap((input) => SECRET_INPUT_FIELDS.map((f) => `${owner}${input}${quote(f)}`)),
  ),
];

function decodeName(raw: string): string {
  const spaced = raw.replaceAll('+', ' ');
  try {
    return decodeURIComponent(spaced).trim();
  } catch {
    return spaced.trim();
  }
}

/** The URL with the value of each secret query parameter replaced by `[REDACTED]`; the rest as it was. */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q === -1) return url;
  const parts = url.slice(q + 1).split('&');
  let changed = false;
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    const eq = part.indexOf('=');
    const name = eq === -1 ? part : part.slice(0, eq);
    if (isSecretInputName(decodeName(name))) {
      parts[i] = `${name}=${REDACTED}`;
      changed = true;
    }
  }
  return changed ? `${url.slice(0, q + 1)}${parts.join('&')}` : url;
}

// A name and its value in free text: `name=value`, `name: value`, `"name": "value"`.
const NAMED_VALUE = /([?&;\s"'(]|^)([\w.-]+)(=|"?\s*:\s*"?)([^&;\s"',)#]+)/g;
const CREDENTIAL_IN_TEXT = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gi;

/** Free text (an error message, a stack) with secret parameters and Authorization credentials censored. */
export function redactText(text: string): string {
  return redactNamedValues(text).replace(CREDENTIAL_IN_TEXT, (_m, scheme) => `${scheme} ${REDACTED}`);
}

const SCHEME = /^(?:Bearer|Basic)$/i;

/**
 * Each value named by a secret name (`isSecretInputName`) censored, but for a credential's scheme
 * (`authorization: Bearer …`: the credential after it is `CREDENTIAL_IN_TEXT`'s); the value of any other
 * name read again on its own, so that a URL given as `url: https://…?signature=…` loses its signature.
 */
function redactNamedValues(text: string): string {
  return text.replace(
    NAMED_VALUE,
    (whole, before: string, name: string, separator: string, value: string) => {
      if (!isSecretInputName(name)) return `${before}${name}${separator}${redactNamedValues(value)}`;
      return SCHEME.test(value) ? whole : `${before}${name}${separator}${REDACTED}`;
    },
  );
}

function serializeRequest(request: FastifyRequest) {
  return {
    method: request.method,
    url: typeof request.url === 'string' ? redactUrl(request.url) : undefined,
    version:
      typeof request.headers?.['accept-version'] === 'string' ? request.headers['accept-version'] : undefined,
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket ? request.socket.remotePort : undefined,
  };
}

function serializeError(error: Error) {
  const serialized = pino.stdSerializers.err(error);
  if (!serialized || typeof serialized !== 'object') return serialized;
  if (typeof serialized.message === 'string') serialized.message = redactText(serialized.message);
  if (typeof serialized.stack === 'string') serialized.stack = redactText(serialized.stack);
  for (const field of ['url', 'detail']) {
    const value = serialized[field];
    if (typeof value === 'string') serialized[field] = redactText(value);
  }
  return serialized;
}

/** Fastify's `logger` options: level, the redacting serializers, and pino's `redact`. */
export function loggerOptions(level: string, stream?: pino.DestinationStream) {
  return {
    level,
    serializers: { req: serializeRequest, err: serializeError },
    redact: { paths: [...REDACT_PATHS], censor: REDACTED },
    ...(stream ? { stream } : {}),
  };
}

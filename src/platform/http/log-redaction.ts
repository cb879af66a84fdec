import type { FastifyRequest } from 'fastify';
import pino from 'pino';

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
export const REDACTED = '[REDACTED]';

/** Query parameters and form fields whose value is a secret (lower case). */
export const SECRET_PARAMETERS: ReadonlySet<string> = new Set([
  'subscription-key',
  'ocp-apim-subscription-key',
  'code',
  'code_verifier',
  'refresh_token',
  'access_token',
  'id_token',
  'token',
  'client_secret',
  'client_assertion',
  'password',
  'current',
  'new_password',
  'current_password',
  'csrf',
  'key',
  'authorizationtoken',
  'authorization_token',
  'webhooksecret',
  'webhook_secret',
  // A signed download URL (platform/signed-url.ts) is a working link until it expires.
  'signature',
]);

/** Headers whose value is a secret (lower case). */
export const SECRET_HEADERS: readonly string[] = [
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
  'ocp-apim-subscription-key',
  'subscription-key',
  // The secured interests register's PIN header (ours): opens a statement to another organisation.
  'financing-statement-pin',
];

/** Field names that are secret in any logged object that carries them at the places below. */
const SECRET_FIELDS = [
  'password',
  'current_password',
  'new_password',
  'client_secret',
  'clientSecret',
  'client_assertion',
  'refresh_token',
  'refreshToken',
  'access_token',
  'accessToken',
  'id_token',
  'code_verifier',
  'token',
  'csrf',
  'authorizationToken',
  'authorization_token',
  'webhookSecret',
  'webhook_secret',
  'primaryKey',
  'secondaryKey',
  'debtorPin',
  'subscriptionKey',
  'cookie',
  'authorization',
];

/** Names secret only inside a request's body, query or form (`code` and `key` mean other things elsewhere). */
const SECRET_INPUT_FIELDS = ['code', 'key', 'current', 'subscription-key'];

const quote = (name: string) => (/^[A-Za-z_$][\w$]*$/.test(name) ? `.${name}` : `["${name}"]`);
const INPUTS = ['body', 'query', 'form'];

/**
 * The paths given to pino's `redact`. `req`, `res` and `err` are not among them: their serializers
 * (below) write no headers or bodies at all. Every path is spelled out: a wildcard (`*.password`) makes
 * pino run the redaction over the bindings of every child logger, and Fastify makes one per request,
 * which costs tens of microseconds a request even when nothing is logged; and pino runs the paths of a
 * key only on lines that carry that key, so the per-request lines pay nothing for them.
 */
export const REDACT_PATHS: readonly string[] = [
  ...['', 'request.', 'response.'].flatMap((owner) =>
    SECRET_HEADERS.map((h) => `${owner}headers${quote(h)}`),
  ),
  ...SECRET_FIELDS,
  ...['', 'request.'].flatMap((owner) =>
    INPUTS.flatMap((input) =>
      [...SECRET_INPUT_FIELDS, ...SECRET_FIELDS].map((f) => `${owner}${input}${quote(f)}`),
    ),
  ),
];

function decodeName(raw: string): string {
  const spaced = raw.replaceAll('+', ' ');
  try {
    return decodeURIComponent(spaced).trim().toLowerCase();
  } catch {
    return spaced.trim().toLowerCase();
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
    if (SECRET_PARAMETERS.has(decodeName(name))) {
      parts[i] = `${name}=${REDACTED}`;
      changed = true;
    }
  }
  return changed ? `${url.slice(0, q + 1)}${parts.join('&')}` : url;
}

const PARAMETER_NAMES = [...SECRET_PARAMETERS].map((n) => n.replace(/[-_]/g, '[-_]')).join('|');
const SECRET_IN_TEXT = new RegExp(
  `([?&;\\s"'(]|^)(${PARAMETER_NAMES})(=|"?\\s*:\\s*"?)([^&;\\s"',)#]+)`,
  'gi',
);
const CREDENTIAL_IN_TEXT = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gi;

/** Free text (an error message, a stack) with secret parameters and Authorization credentials censored. */
export function redactText(text: string): string {
  return text
    .replace(SECRET_IN_TEXT, (_m, before, name, sep) => `${before}${name}${sep}${REDACTED}`)
    .replace(CREDENTIAL_IN_TEXT, (_m, scheme) => `${scheme} ${REDACTED}`);
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

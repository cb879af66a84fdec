/**
 * The names of secrets: the one list the log redaction (http/log-redaction.ts) and the request
 * inspector's redaction (gateway/domain/redaction.ts) both follow. Pure.
 *
 * A header, field, element or parameter holds a secret when its name is one of `SECRET_NAMES`
 * (compared without case, `-`, `_` or `.`), or when its last word is one of `SECRET_WORDS`
 * (`financingStatementPin`, `client_secret`, `X-Amz-Signature`, `X-Auth-Token`). In a request's input
 * (its query, form or body) `SECRET_INPUT_NAMES` are secrets too: elsewhere `code` and `key` mean other
 * things. The log redaction spells each of `SECRET_NAMES` out for pino's paths (`spellings`: pino
 * compares names exactly); the inspector applies the rule to every name it meets.
 */

export const REDACTED = '[REDACTED]';

/** A name whose last word is one of these holds a secret (`debtorPin`, `client_secret`, `X-Amz-Signature`). */
export const SECRET_WORDS: ReadonlySet<string> = new Set([
  'pin',
  'pins',
  'password',
  'passwd',
  'passphrase',
  'passcode',
  'secret',
  'token',
  'signature',
  'sig',
  'verifier',
  'assertion',
  'cookie',
  'credentials',
]);

/** Whole names that hold a secret, in kebab case: headers as Node gives them, fields in every spelling. */
export const SECRET_NAMES: readonly string[] = [
  'ocp-apim-subscription-key',
  'subscription-key',
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
  // The secured interests register's PIN headers and fields (ours): they open a statement to another organisation.
  'financing-statement-pin',
  'debtor-pin',
  'api-key',
  'x-api-key',
  'access-key',
  'private-key',
  'primary-key',
  'secondary-key',
  'client-secret',
  'client-assertion',
  'webhook-secret',
  'password',
  'current-password',
  'new-password',
  'token',
  'access-token',
  'refresh-token',
  'id-token',
  'authorization-token',
  'code-verifier',
  'csrf',
  // A signed download URL (platform/signed-url.ts) is a working link until it expires.
  'signature',
];

/** Names that are secrets only in a request's input: an API key as `key`, an OAuth `code`, the current password. */
export const SECRET_INPUT_NAMES: readonly string[] = ['key', 'code', 'current'];

const normalised = (name: string) => name.toLowerCase().replace(/[-_.\s]/g, '');
const WHOLE_NAMES = new Set(SECRET_NAMES.map(normalised));
const INPUT_NAMES = new Set(SECRET_INPUT_NAMES);
const nameCache = new Map<string, boolean>();

/** Whether a header, field, element or parameter of this name holds a secret. */
export function isSecretName(name: string): boolean {
  const cached = nameCache.get(name);
  if (cached !== undefined) return cached;
  // camelCase, snake_case, kebab-case and dotted names split into words; the last one decides.
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  const secret = WHOLE_NAMES.has(normalised(name)) || SECRET_WORDS.has(words.at(-1) ?? '');
  if (nameCache.size < 10_000) nameCache.set(name, secret);
  return secret;
}

/** Whether a query parameter, form field or body field of this name holds a secret. */
export const isSecretInputName = (name: string): boolean =>
  isSecretName(name) || INPUT_NAMES.has(name.toLowerCase());

/** A kebab-case name as it is spelled in headers, in snake_case and in camelCase (`client-secret` …). */
export function spellings(name: string): string[] {
  const camel = name.replace(/-([a-z])/g, (_m, letter: string) => letter.toUpperCase());
  return [...new Set([name, name.replaceAll('-', '_'), camel])];
}

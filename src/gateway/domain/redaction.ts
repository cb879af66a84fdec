/**
 * What the request inspector never keeps: every secret a call carries or an answer shows, replaced by
 * `[REDACTED]` before a captured call is stored. Pure, and the one place these rules live; the names they
 * follow (`isSecretName`) are platform/secret-names.ts's, which the log redaction follows too.
 *
 * - **Headers by name**: the key (`Ocp-Apim-Subscription-Key`), `Authorization`, cookies, the secured
 *   interests register's `Financing-Statement-PIN` and `Debtor-PIN`, API keys, signatures, and any header
 *   whose last word is a secret word (`X-Auth-Token`).
 * - **Fields by name**, case-insensitive, at any depth: a JSON field, a form field
 *   (`application/x-www-form-urlencoded`), an XML or SOAP element, a query parameter whose name's last
 *   word is one of `SECRET_WORDS` (`pin`, `password`, `secret`, `token`, `signature`, `verifier` …:
 *   `financingStatementPin`, `client_secret`, `code_verifier`, `webhookSecret`, `authorizationToken`,
 *   `X-Amz-Signature`), or that is named as a whole in `SECRET_NAMES` (`subscription-key`, `apiKey`).
 * - **Values anywhere**: every secret value the call itself sent (its key, its bearer token, a PIN in a
 *   header or a body), wherever it appears again in either direction; the secret query parameters of any
 *   URL in any text (a signed document link in an answer); Standard Webhooks secrets (`whsec_…`); JSON
 *   Web Tokens; `Bearer …` credentials.
 */

import { isSecretInputName, isSecretName, REDACTED } from '../../platform/secret-names.ts';

export { isSecretName, REDACTED };

/**
 * The secret values found in a call, to be scrubbed from every text of it. Values shorter than four
 * characters are not scrubbed elsewhere (they would blank out ordinary digits); the field holding them
 * is still redacted.
 */
export class Secrets {
  private readonly values = new Set<string>();

  add(value: string | undefined): void {
    if (!value) return;
    const trimmed = value.trim();
    if (trimmed.length < 4) return;
    this.values.add(trimmed);
    // A bearer credential is scrubbed as the whole header value and as the token alone.
    const bearer = /^(?:bearer|basic|token)\s+(.+)$/i.exec(trimmed);
    if (bearer?.[1] && bearer[1].length >= 4) this.values.add(bearer[1]);
    // The same value as it appears percent-encoded in a URL or a form.
    const encoded = encodeURIComponent(trimmed);
    if (encoded !== trimmed) this.values.add(encoded);
  }

  /** Every known secret value in `text` replaced, longest first (a value inside another is not left half). */
  scrub(text: string): string {
    if (this.values.size === 0 || text.length === 0) return text;
    let out = text;
    for (const value of [...this.values].sort((a, b) => b.length - a.length)) {
      if (out.includes(value)) out = out.split(value).join(REDACTED);
    }
    return out;
  }
}

// The secret query parameters of a URL wherever it appears in a text: `?signature=…`, `&sig=…`,
// `&X-Amz-Signature=…`, `?subscription-key=…`, `&access_token=…`.
const URL_PARAMETER = /([?&](?:amp;)?)([A-Za-z0-9_.-]+)=([^&#\s"'<>\\]*)/g;
const WEBHOOK_SECRET = /whsec_[A-Za-z0-9+/=_-]+/g;
const JWT = /\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g;
const BEARER = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/gi;

/** The patterns of secrets in free text: URLs' secret parameters, webhook secrets, tokens. */
export function redactPatterns(text: string): string {
  let out = text;
  if (out.includes('=')) {
    out = out.replace(URL_PARAMETER, (whole, lead: string, name: string) =>
      isSecretInputName(name) ? `${lead}${name}=${REDACTED}` : whole,
    );
  }
  if (out.includes('whsec_')) out = out.replace(WEBHOOK_SECRET, REDACTED);
  if (out.includes('eyJ')) out = out.replace(JWT, REDACTED);
  if (/bearer|basic/i.test(out))
    out = out.replace(BEARER, (_whole, scheme: string) => `${scheme} ${REDACTED}`);
  return out;
}

/** A text with every known secret value and every secret pattern replaced. */
export function redactText(text: string, secrets: Secrets): string {
  return redactPatterns(secrets.scrub(text));
}

/**
 * A request's path and query: the values of secret parameters replaced (and remembered in `secrets`).
 * The path itself is scrubbed of known secrets and patterns too.
 */
export function redactUrl(url: string, secrets: Secrets): string {
  const mark = url.indexOf('?');
  if (mark < 0) return redactText(url, secrets);
  const path = url.slice(0, mark);
  const query = redactForm(url.slice(mark + 1), secrets, isSecretInputName);
  return `${redactText(path, secrets)}?${query}`;
}

function decode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

/** A form body or query string: the values of secret fields replaced, every other value scrubbed. */
export function redactForm(
  form: string,
  secrets: Secrets,
  secretName: (name: string) => boolean = isSecretInputName,
): string {
  const parts = form.split('&');
  // Secrets first, so a secret value repeated in another field is scrubbed there too.
  for (const part of parts) {
    const equals = part.indexOf('=');
    if (equals > 0 && secretName(decode(part.slice(0, equals)))) secrets.add(decode(part.slice(equals + 1)));
  }
  return parts
    .map((part) => {
      const equals = part.indexOf('=');
      if (equals < 0) return redactText(part, secrets);
      const name = part.slice(0, equals);
      if (secretName(decode(name))) return `${name}=${encodeURIComponent(REDACTED)}`;
      return `${name}=${redactText(part.slice(equals + 1), secrets)}`;
    })
    .join('&');
}

export type HeaderValue = string | number | boolean | readonly string[] | undefined;

/**
 * Headers with the values of secret ones replaced (and remembered in `secrets`), the others scrubbed:
 * a `Location` with a signed URL keeps its path and loses its signature. Names are kept as given.
 */
export function redactHeaders(
  headers: Readonly<Record<string, HeaderValue>>,
  secrets: Secrets,
): Record<string, string> {
  const out: Record<string, string> = {};
  const names = Object.keys(headers);
  for (const name of names) {
    if (!isSecretName(name)) continue;
    const value = headers[name];
    for (const one of Array.isArray(value) ? value : [value]) secrets.add(String(one ?? ''));
  }
  for (const name of names) {
    const value = headers[name];
    if (value === undefined) continue;
    const text = Array.isArray(value) ? value.join(', ') : String(value);
    out[name] = isSecretName(name) ? REDACTED : redactText(text, secrets);
  }
  return out;
}

/** A JSON value with every secret field's value replaced, at any depth, every string scrubbed. */
export function redactJsonValue(value: unknown, secrets: Secrets): unknown {
  collectJsonSecrets(value, secrets, 0);
  return rewriteJson(value, secrets, 0);
}

const MAX_DEPTH = 64;

function collectJsonSecrets(value: unknown, secrets: Secrets, depth: number): void {
  if (depth > MAX_DEPTH || value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    for (const item of value) collectJsonSecrets(item, secrets, depth + 1);
    return;
  }
  for (const [name, item] of Object.entries(value)) {
    if (isSecretName(name) && (typeof item === 'string' || typeof item === 'number'))
      secrets.add(String(item));
    else collectJsonSecrets(item, secrets, depth + 1);
  }
}

function rewriteJson(value: unknown, secrets: Secrets, depth: number): unknown {
  if (typeof value === 'string') return redactText(value, secrets);
  if (value === null || typeof value !== 'object') return value;
  if (depth > MAX_DEPTH) return REDACTED;
  if (Array.isArray(value)) return value.map((item) => rewriteJson(item, secrets, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [name, item] of Object.entries(value)) {
    out[name] =
      isSecretName(name) && item !== null && item !== '' ? REDACTED : rewriteJson(item, secrets, depth + 1);
  }
  return out;
}

// An element with text content only: `<ns:Password attr="…">value</ns:Password>`.
const XML_ELEMENT = /<((?:[A-Za-z_][\w.-]*:)?)([A-Za-z_][\w.-]*)(\s[^<>]*)?>([^<]*)<\/\1\2\s*>/g;

/** An XML or SOAP document: the text of secret elements replaced, everything else scrubbed. */
export function redactXml(xml: string, secrets: Secrets): string {
  for (const match of xml.matchAll(XML_ELEMENT)) {
    if (isSecretName(match[2]!)) secrets.add(match[4]);
  }
  const elements = xml.replace(XML_ELEMENT, (whole, prefix: string, name: string, attributes = '') =>
    isSecretName(name) ? `<${prefix}${name}${attributes}>${REDACTED}</${prefix}${name}>` : whole,
  );
  return redactText(elements, secrets);
}

// A JSON member whose value is a string (perhaps cut before its closing quote) or a number.
const JSON_MEMBER = /"((?:[^"\\]|\\.){1,200})"(\s*:\s*)("(?:[^"\\]|\\.)*"?|-?\d[\d.eE+-]*)/g;

/** JSON as text (a body that does not parse, or was cut): the values of secret members replaced. */
export function redactJsonText(text: string, secrets: Secrets): string {
  for (const match of text.matchAll(JSON_MEMBER)) {
    if (isSecretName(match[1]!)) secrets.add(match[3]!.replace(/^"|"$/g, ''));
  }
  return text.replace(JSON_MEMBER, (whole, name: string, colon: string) =>
    isSecretName(name) ? `"${name}"${colon}"${REDACTED}"` : whole,
  );
}

export type BodyKind = 'json' | 'form' | 'xml' | 'text';

/** How a body of this media type is read for redaction. */
export function bodyKind(contentType: string | undefined): BodyKind {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/json' || type.endsWith('+json')) return 'json';
  if (type === 'application/x-www-form-urlencoded') return 'form';
  if (type.endsWith('/xml') || type.endsWith('+xml')) return 'xml';
  return 'text';
}

/**
 * A body's text redacted as its media type says: JSON by field (text that does not parse falls back to
 * the XML and text rules), a form by field, XML by element; every kind scrubbed of known secrets and
 * secret patterns. A body cut at the inspector's bound is read as text.
 */
export function redactBody(text: string, contentType: string | undefined, secrets: Secrets): string {
  const kind = bodyKind(contentType);
  if (kind === 'json') {
    try {
      return JSON.stringify(redactJsonValue(JSON.parse(text), secrets));
    } catch {
      // Not JSON after all, or cut at the bound: its fields are found by their text.
      return redactXml(redactJsonText(text, secrets), secrets);
    }
  }
  if (kind === 'form') return redactForm(text, secrets, isSecretInputName);
  return redactXml(redactJsonText(text, secrets), secrets);
}

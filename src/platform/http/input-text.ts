import { parse as parseQuery } from 'node:querystring';
import type { FastifyInstance, FastifyRequest, preValidationHookHandler } from 'fastify';
import { badRequest, type HttpError } from './errors.ts';

/**
 * Text the registers cannot store or read back faithfully is refused before anything runs, as a 400
 * naming its field (dotted path, as schema errors name fields) in the API's own error dialect:
 *
 * - the NUL character (U+0000): PostgreSQL's text and jsonb cannot hold it, so it would fail in the
 *   database as a 500 after validation had passed;
 * - a lone surrogate (`"\ud800"` in JSON): not a Unicode character, it cannot be written as UTF-8;
 * - bytes that are not UTF-8 (a JSON or form body, or a %-encoded query parameter): without this check
 *   they would be read as U+FFFD and stored as a different text from the one sent.
 *
 * One walk serves every rule (`findText`). The JSON body parser checks the raw text first (cheap tests
 * for `\u0000` and `\uD800`–`\uDFFF` escapes) and walks the parsed value only when one is present; the
 * `preValidation` hook then walks only what no such parser has checked (form bodies, the query when its
 * URL holds `%00`, path parameters).
 */
const NUL = '\u0000';
const NUL_RULE = 'must not contain the NUL character (U+0000)';
const SURROGATE_RULE = 'must not contain a lone surrogate (an unpaired \\uD800–\\uDFFF escape)';
const UTF8_RULE = 'is not valid UTF-8';

/** A code unit of a surrogate pair without its partner. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
/** A JSON escape that may produce a surrogate; any body without one cannot hold a lone surrogate. */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;
/** A percent-escape of a byte above 0x7F: only these can make a %-encoded text invalid UTF-8. */
const HIGH_BYTE_ESCAPE = /%[89a-fA-F][0-9a-fA-F]/;

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const lenientUtf8 = new TextDecoder('utf-8', { ignoreBOM: true });

/** A path from the root: the last step and the path before it. */
type Steps = { before: Steps; step: string } | undefined;

const dotted = (steps: Steps): string[] => {
  const names: string[] = [];
  for (let at = steps; at; at = at.before) names.unshift(at.step);
  return names;
};

/**
 * The dotted path of the first string (or object key) that `bad` holds true for, if any; a bad key is
 * named through `keyName`. The walk keeps its own stack (in the order a recursive walk would take): a
 * body nested thousands of levels deep is the schema's to refuse, not a stack overflow (a 500).
 */
export function findText(
  value: unknown,
  bad: (text: string) => boolean,
  keyName: (key: string) => string = (key) => key,
  path: string[] = [],
): string | undefined {
  const root = path.reduce<Steps>((before, step) => ({ before, step }), undefined);
  // A key is checked just before its value is walked.
  const stack: ({ value: unknown; at: Steps } | { key: string; at: Steps })[] = [{ value, at: root }];
  for (let next = stack.pop(); next; next = stack.pop()) {
    if ('key' in next) {
      if (bad(next.key)) return [...dotted(next.at), keyName(next.key)].join('.');
      continue;
    }
    const { value: item, at } = next;
    if (typeof item === 'string') {
      if (bad(item)) return at ? dotted(at).join('.') : 'body';
    } else if (Array.isArray(item)) {
      for (let i = item.length - 1; i >= 0; i--)
        stack.push({ value: item[i], at: { before: at, step: String(i) } });
    } else if (item && typeof item === 'object' && !Buffer.isBuffer(item)) {
      const entries = Object.entries(item);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, inner] = entries[i]!;
        stack.push({ value: inner, at: { before: at, step: key } }, { key, at });
      }
    }
  }
  return undefined;
}

const hasNul = (text: string) => text.includes(NUL);
const nulKey = (key: string) => key.replaceAll(NUL, '\\u0000');
const hasLoneSurrogate = (text: string) => LONE_SURROGATE.test(text);
const surrogateKey = (key: string) =>
  key.replace(LONE_SURROGATE, (unit) => `\\u${unit.charCodeAt(0).toString(16)}`);

/** The dotted path of the first string or key holding a NUL character, if any. */
export function findNulCharacter(value: unknown, path: string[] = []): string | undefined {
  return findText(value, hasNul, nulKey, path);
}

/** The dotted path of the first string or key holding a lone surrogate, if any. */
export function findLoneSurrogate(value: unknown, path: string[] = []): string | undefined {
  return findText(value, hasLoneSurrogate, surrogateKey, path);
}

/**
 * Where the first byte sequence that is not UTF-8 starts (WHATWG's decoder: overlong forms, encoded
 * surrogates, code points above U+10FFFF, stray continuation bytes and truncated sequences are all
 * errors), or -1. Run only once the fast decoder has refused the bytes.
 */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  for (let i = 0; i < bytes.length; ) {
    const lead = bytes[i]!;
    if (lead < 0x80) {
      i++;
      continue;
    }
    let count: number;
    let low = 0x80;
    let high = 0xbf;
    if (lead >= 0xc2 && lead <= 0xdf) count = 1;
    else if (lead >= 0xe0 && lead <= 0xef) {
      count = 2;
      if (lead === 0xe0) low = 0xa0;
      if (lead === 0xed) high = 0x9f;
    } else if (lead >= 0xf0 && lead <= 0xf4) {
      count = 3;
      if (lead === 0xf0) low = 0x90;
      if (lead === 0xf4) high = 0x8f;
    } else return i;
    for (let k = 1; k <= count; k++) {
      const next = bytes[i + k];
      if (next === undefined || next < (k === 1 ? low : 0x80) || next > (k === 1 ? high : 0xbf)) return i;
    }
    i += count + 1;
  }
  return -1;
}

const utf8Refusal = (field: string, offset: number): HttpError =>
  badRequest(field, `${UTF8_RULE} (the bad bytes start at byte ${offset} of the body)`);

/**
 * Names the JSON field whose text holds the first bytes that are not UTF-8: the bad byte is replaced by
 * a character the body does not otherwise hold, the body parsed, and that character looked for. Bytes
 * outside any string (the body cannot be JSON then) are named `body`.
 */
function invalidJsonText(bytes: Buffer): HttpError {
  const offset = firstInvalidUtf8(bytes);
  const before = lenientUtf8.decode(bytes.subarray(0, offset));
  const after = lenientUtf8.decode(bytes.subarray(offset + 1));
  let marker = 0xe000;
  while (before.includes(String.fromCharCode(marker)) || after.includes(String.fromCharCode(marker)))
    marker++;
  const mark = String.fromCharCode(marker);
  let field = 'body';
  try {
    const marked = JSON.parse(`${before}${mark}${after}`) as unknown;
    field =
      findText(
        marked,
        (text) => text.includes(mark),
        (key) => key.replaceAll(mark, '\uFFFD'),
      ) ?? 'body';
  } catch {
    // Not JSON with the byte replaced either: the bytes sit between tokens.
  }
  return utf8Refusal(field, offset);
}

/** Requests whose body a parser here has already checked for every rule. */
const checkedBodies = new WeakSet<FastifyRequest>();

type Done = (error: Error | null, body?: unknown) => void;

/**
 * Fastify's JSON parser (same prototype-poisoning rules, same errors) behind a strict UTF-8 decode, with
 * the NUL and lone-surrogate checks on the raw text first, so most bodies are never walked.
 */
function installJsonParser(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, bytes, done: Done) => {
    let text: string;
    try {
      text = strictUtf8.decode(bytes as Buffer);
    } catch {
      return done(invalidJsonText(bytes as Buffer));
    }
    parseJson(request, text, (error: Error | null, body?: unknown) => {
      if (error) return done(error);
      // A NUL can only be written as an escape: raw control characters are not JSON.
      const nul = text.includes('\\u0000') ? findNulCharacter(body) : undefined;
      if (nul !== undefined) return done(badRequest(nul, NUL_RULE));
      const surrogate = SURROGATE_ESCAPE.test(text) ? findLoneSurrogate(body) : undefined;
      if (surrogate !== undefined) return done(badRequest(surrogate, SURROGATE_RULE));
      checkedBodies.add(request);
      done(null, body);
    });
  });
}

/**
 * The first parameter of an `application/x-www-form-urlencoded` text (a query string or a form body)
 * whose name or value %-decodes to bytes that are not UTF-8, named as decoded (or as sent when its
 * name is the bad part). Malformed escapes (`%ZZ`) are left to the parser, which keeps them as sent.
 */
export function findInvalidUrlEncoded(encoded: string): string | undefined {
  if (!HIGH_BYTE_ESCAPE.test(encoded)) return undefined;
  for (const pair of encoded.split('&')) {
    if (!HIGH_BYTE_ESCAPE.test(pair)) continue;
    const split = pair.indexOf('=');
    const name = split < 0 ? pair : pair.slice(0, split);
    if (!decodesToUtf8(name)) return name;
    if (split >= 0 && !decodesToUtf8(pair.slice(split + 1))) return decodedName(name);
  }
  return undefined;
}

/**
 * A parameter's name as the form parser reads it (as sent when it is not valid %-encoding); a NUL in it
 * is written `\u0000`, as the NUL check names it, so that the field can be printed.
 */
function decodedName(name: string): string {
  try {
    return decodeURIComponent(name.replaceAll('+', ' ')).replaceAll('\u0000', '\\u0000');
  } catch {
    return name;
  }
}

/** Whether every run of %-escapes in `text` decodes to UTF-8. */
function decodesToUtf8(text: string): boolean {
  if (!HIGH_BYTE_ESCAPE.test(text)) return true;
  for (const run of text.match(/(?:%[0-9a-fA-F]{2})+/g) ?? []) {
    const bytes = Buffer.from(run.replaceAll('%', ''), 'hex');
    try {
      strictUtf8.decode(bytes);
    } catch {
      return false;
    }
  }
  return true;
}

/**
 * The parameter of a form body whose raw bytes are not UTF-8 (`&` and `=` are never part of a
 * multi-byte sequence, so the body splits at them as bytes). Bad bytes in a name name it as sent
 * (with U+FFFD for them); an empty name is `body`.
 */
function invalidFormBytes(bytes: Buffer): HttpError {
  const offset = firstInvalidUtf8(bytes);
  const start = bytes.lastIndexOf(0x26, offset) + 1;
  const equals = bytes.indexOf(0x3d, start);
  if (equals >= 0 && equals < offset) {
    return utf8Refusal(decodedName(lenientUtf8.decode(bytes.subarray(start, equals))), offset);
  }
  const end = [bytes.indexOf(0x26, offset), bytes.indexOf(0x3d, offset), bytes.length]
    .filter((at) => at >= 0)
    .reduce((a, b) => Math.min(a, b));
  const name = lenientUtf8.decode(bytes.subarray(start, end));
  return utf8Refusal(name || 'body', offset);
}

/**
 * Reads `application/x-www-form-urlencoded` bodies (the portal's and the sign-in pages' forms) as the
 * usual form parser would (repeated names as arrays, malformed escapes kept as sent), refusing raw or
 * %-encoded bytes that are not UTF-8 as a 400 naming the parameter. The route's `bodyLimit` bounds
 * what is read.
 */
export function installFormParser(scope: FastifyInstance): void {
  scope.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'buffer' },
    (_request, bytes, done: Done) => {
      let text: string;
      try {
        text = strictUtf8.decode(bytes as Buffer);
      } catch {
        return done(invalidFormBytes(bytes as Buffer));
      }
      const bad = findInvalidUrlEncoded(text);
      if (bad !== undefined) return done(badRequest(bad, UTF8_RULE));
      done(null, parseQuery(text, '&', '=', { maxKeys: 0 }));
    },
  );
}

/** The OAuth token form's bad parameter, if any (it is read by the authorization server itself). */
export function findInvalidFormText(bytes: Buffer): HttpError | undefined {
  try {
    const text = strictUtf8.decode(bytes);
    const bad = findInvalidUrlEncoded(text);
    return bad === undefined ? undefined : badRequest(bad, UTF8_RULE);
  } catch {
    return invalidFormBytes(bytes);
  }
}

/**
 * Set (as a decoration) on a scope whose own `onRequest` hook checks the URL with `urlTextRefusal` (the
 * guarded service routes: gateway/http/mount.ts): its routes without a body then run no `preValidation` hook at all.
 */
export const URL_TEXT_CHECKED_ON_REQUEST = 'urlTextCheckedOnRequest';

/**
 * The URL's text refused, if it is: %-encoded bytes that are not UTF-8 in the query (the query parser
 * keeps them as sent; the router has refused them in the path already, naming `path`), or a NUL in the
 * query or the path parameters. The HTTP parser refuses a raw NUL in the request line, so one can reach
 * them only as %00: without it in the URL (most calls) nothing is walked.
 */
export function urlTextRefusal(request: FastifyRequest): HttpError | undefined {
  const url = request.url;
  const queryAt = url.indexOf('?');
  const badQuery = queryAt < 0 ? undefined : findInvalidUrlEncoded(url.slice(queryAt + 1));
  if (badQuery !== undefined) return badRequest(badQuery, UTF8_RULE);
  if (!url.includes('%00')) return undefined;
  const field = findNulCharacter(request.query) ?? findNulCharacter(request.params);
  return field === undefined ? undefined : badRequest(field, NUL_RULE);
}

/** A NUL in a body no parser here has checked (a form body, say). */
function bodyTextRefusal(request: FastifyRequest): HttpError | undefined {
  if (request.body === undefined || checkedBodies.has(request)) return undefined;
  const field = findNulCharacter(request.body);
  return field === undefined ? undefined : badRequest(field, NUL_RULE);
}

const checkUrlAndBody: preValidationHookHandler = (request, _reply, done) =>
  done(urlTextRefusal(request) ?? bodyTextRefusal(request));
const checkBody: preValidationHookHandler = (request, _reply, done) => done(bodyTextRefusal(request));

/**
 * The JSON parser, and a `preValidation` check on every route for what no parser has checked: the URL
 * (unless its scope's `onRequest` hook did: `URL_TEXT_CHECKED_ON_REQUEST`) and the body. Added route by
 * route, first among the route's own, so that a route whose scope checked its URL and which takes no
 * body (GET, HEAD) runs no hook phase for it: one fewer on the hot path
 * (docs/decisions/0002-gateway-per-request-costs.md).
 */
export function installInputTextCheck(app: FastifyInstance): void {
  installJsonParser(app);
  app.addHook('onRoute', function addTextCheck(this: FastifyInstance, route) {
    const checkedEarly = (this as unknown as Record<string, unknown>)[URL_TEXT_CHECKED_ON_REQUEST] === true;
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (checkedEarly && methods.every((method) => method === 'GET' || method === 'HEAD')) return;
    const own = route.preValidation === undefined ? [] : [route.preValidation].flat();
    route.preValidation = [checkedEarly ? checkBody : checkUrlAndBody, ...own];
  });
}

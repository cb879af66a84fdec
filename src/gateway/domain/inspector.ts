/**
 * The request inspector's rules (pure): what a captured call becomes once redacted, its bounds, why a
 * 4xx was refused, and the call as a `curl` command.
 */
import type { Environment } from '../../services/contract.ts';
import {
  bodyKind,
  type HeaderValue,
  REDACTED,
  redactBody,
  redactHeaders,
  redactUrl,
  Secrets,
} from './redaction.ts';

/** The calls kept per subscription: the newest 500 … */
export const CALLS_PER_SUBSCRIPTION = 500;
/** … of the last 24 hours. */
export const RETENTION_MS = 24 * 60 * 60 * 1000;
/** A body is kept up to this many characters (after redaction), then cut and marked. */
export const BODY_LIMIT = 16 * 1024;
/**
 * What is read of a body for redaction, and all that a waiting call holds of it (http/inspector.ts):
 * past this the rest is never looked at. A little more than what is kept, so that a secret at the cut is
 * redacted whole before the cut (a JSON body cut here is redacted by its members' text).
 */
export const BODY_READ_LIMIT = 20 * 1024;
/** A parsed request body larger than this is not read at all (its text would cost a serialisation). */
export const PARSED_BODY_LIMIT = 1024 * 1024;
/** A refusal's reason is kept up to this many characters. */
export const REASON_LIMIT = 300;

/**
 * One call as the gateway saw it, before redaction, held in memory until the next write: references to
 * what the call made anyway (its headers, its body, the answer as sent), nothing copied but the answer's
 * headers (http/inspector.ts).
 */
export interface CapturedCall {
  /**
   * When the answer was sent (ms since the epoch, fractional): read from the clock `durationMs` is read
   * from, so that calls made one after another keep their order once the time taken is subtracted.
   */
  sentAt: number;
  environment: Environment;
  service: string;
  subscriptionId: string;
  method: string;
  /** The path and query as sent. */
  url: string;
  status: number;
  durationMs: number;
  requestHeaders: Readonly<Record<string, HeaderValue>>;
  responseHeaders: Readonly<Record<string, HeaderValue>>;
  /** The request's body: its text, bytes or parsed JSON; undefined when none or not kept. */
  requestBody: unknown;
  /** The answer's body as sent (a string or bytes; a stream is not read); undefined when none or not kept. */
  responseBody: unknown;
  /** Whether bodies are kept for this call (production: only when an operator turned them on). */
  bodies: boolean;
}

/** A call as stored and shown: every secret replaced. */
export interface InspectedCall {
  at: Date;
  environment: Environment;
  service: string;
  subscriptionId: string;
  method: string;
  url: string;
  status: number;
  durationMs: number;
  requestHeaders: Record<string, string>;
  responseHeaders: Record<string, string>;
  /** Null when the call had no body, or bodies were not kept (`bodiesKept`). */
  requestBody: string | null;
  responseBody: string | null;
  bodiesKept: boolean;
  /** For a 4xx: the error's code, field and rule as the answer gave them. */
  reason: string | null;
}

const TRUNCATED = '\n… [cut: the inspector keeps the first 16 KiB]';

/** What is shown of an answer or request body that was streamed: its pieces are not read. */
export const STREAMED_BODY = '[a streamed body: not shown]';

function headerText(headers: Readonly<Record<string, HeaderValue>>, name: string): string | undefined {
  const value = headers[name];
  return value === undefined ? undefined : Array.isArray(value) ? value.join(', ') : String(value);
}

/** A body as text, at most `BODY_READ_LIMIT` characters; undefined when there is none to show. */
export function bodyText(body: unknown, contentType: string | undefined): string | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return body.slice(0, BODY_READ_LIMIT);
  if (Buffer.isBuffer(body) || body instanceof Uint8Array) {
    const type = (contentType ?? '').toLowerCase();
    const textual = bodyKind(type) !== 'text' || type.startsWith('text/') || type === '';
    if (!textual) return `[${body.byteLength} bytes of ${type.split(';')[0]}: not shown]`;
    return Buffer.from(body.buffer, body.byteOffset, Math.min(body.byteLength, BODY_READ_LIMIT)).toString(
      'utf8',
    );
  }
  if (typeof (body as { pipe?: unknown }).pipe === 'function') return STREAMED_BODY;
  if (typeof body === 'object') {
    try {
      return JSON.stringify(body).slice(0, BODY_READ_LIMIT);
    } catch {
      return undefined;
    }
  }
  return String(body).slice(0, BODY_READ_LIMIT);
}

const cut = (text: string) => (text.length > BODY_LIMIT ? text.slice(0, BODY_LIMIT) + TRUNCATED : text);

/**
 * A captured call redacted (redaction.ts): the request first, so every secret it sent (its key, its
 * token, a PIN) is known and scrubbed from the answer too. Bodies are redacted whole (up to
 * `BODY_READ_LIMIT`), then cut at `BODY_LIMIT`.
 */
export function inspect(call: CapturedCall): InspectedCall {
  const secrets = new Secrets();
  const requestHeaders = redactHeaders(call.requestHeaders, secrets);
  const url = redactUrl(call.url, secrets);
  const requestType = headerText(call.requestHeaders, 'content-type');
  const responseType = headerText(call.responseHeaders, 'content-type');
  const requestText = call.bodies ? bodyText(call.requestBody, requestType) : undefined;
  const requestBody = requestText === undefined ? null : redactBody(requestText, requestType, secrets);
  const responseHeaders = redactHeaders(call.responseHeaders, secrets);
  // The answer is read for the reason of a refusal even when its body is not kept.
  const responseText =
    call.bodies || isRefusal(call.status) ? bodyText(call.responseBody, responseType) : undefined;
  const responseBody = responseText === undefined ? null : redactBody(responseText, responseType, secrets);
  return {
    // When the call came (to the millisecond, not rounded up: a call never seems to start before the
    // one it followed).
    at: new Date(Math.floor(call.sentAt - call.durationMs)),
    environment: call.environment,
    service: call.service,
    subscriptionId: call.subscriptionId,
    method: call.method,
    url,
    status: call.status,
    durationMs: call.durationMs,
    requestHeaders,
    responseHeaders,
    requestBody: requestBody === null ? null : cut(requestBody),
    responseBody: call.bodies && responseBody !== null ? cut(responseBody) : null,
    bodiesKept: call.bodies,
    reason: isRefusal(call.status) && responseBody !== null ? refusalReason(responseBody) : null,
  };
}

const isRefusal = (status: number) => status >= 400 && status < 500;

function limited(text: string): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > REASON_LIMIT ? `${one.slice(0, REASON_LIMIT - 1)}…` : one;
}

const xmlText = (xml: string, element: string) =>
  new RegExp(`<(?:[\\w.-]+:)?${element}(?:\\s[^>]*)?>([^<]*)</`).exec(xml)?.[1]?.trim();

/**
 * Why a 4xx was refused, from its (redacted) answer in any of the gateway's dialects: the error's code,
 * then the first field and its rule, else the message. Undefined fields are left out; null when the
 * answer says nothing readable.
 */
export function refusalReason(body: string): string | null {
  const text = body.trim();
  if (text.startsWith('{')) {
    let parsed: Record<string, unknown>;
    try {
      parsed = JSON.parse(text) as Record<string, unknown>;
    } catch {
      return null;
    }
    if (!parsed || typeof parsed !== 'object') return null;
    // The business number register's dialect: {status, errorCode, errorDescription, list}.
    if (typeof parsed.errorCode === 'string') {
      return limited(joinReason(parsed.errorCode, firstField(parsed.list), parsed.errorDescription));
    }
    // problem+json: {type: 'about:blank#<code>', title, status, detail, errors}.
    if (typeof parsed.type === 'string' || typeof parsed.detail === 'string') {
      const code = typeof parsed.type === 'string' ? parsed.type.split('#')[1] : undefined;
      return limited(joinReason(code, firstField(parsed.errors), parsed.detail ?? parsed.title));
    }
    // API Management: {statusCode, message}.
    if (typeof parsed.message === 'string') return limited(parsed.message);
    return null;
  }
  if (text.startsWith('<')) {
    const code = xmlText(text, 'ErrorCode');
    const field = xmlText(text, 'Field');
    const rule = xmlText(text, 'Message');
    const fault = xmlText(text, 'faultstring');
    if (!code && !fault) return null;
    return limited(joinReason(code, field ? `${field} ${rule ?? ''}` : undefined, fault));
  }
  return null;
}

function firstField(list: unknown): string | undefined {
  if (!Array.isArray(list) || list.length === 0) return undefined;
  const first = list[0] as { field?: unknown; message?: unknown };
  if (typeof first?.field !== 'string') return undefined;
  return `${first.field} ${typeof first.message === 'string' ? first.message : ''}`.trim();
}

function joinReason(code: unknown, field: string | undefined, message: unknown): string {
  const head = typeof code === 'string' && code ? code : '';
  // A field and its rule say more than the message, which usually repeats them.
  const tail = field ?? (typeof message === 'string' ? message : '');
  return head && tail ? `${head}: ${tail}` : head || tail;
}

/** Placeholders in "copy as curl" for what the inspector never keeps. */
export const CURL_PLACEHOLDERS: Readonly<Record<string, string>> = {
  'ocp-apim-subscription-key': '$RSG_KEY',
  authorization: 'Bearer $RSG_TOKEN',
  'financing-statement-pin': '$RSG_PIN',
  'debtor-pin': '$RSG_DEBTOR_PIN',
};

/** Headers a client does not set itself: left out of "copy as curl". */
const NOT_SENT = new Set([
  'host',
  'content-length',
  'connection',
  'accept-encoding',
  'user-agent',
  'transfer-encoding',
]);

const KEY_MARK = '\u0000key\u0000';

/**
 * A word for a POSIX shell: single-quoted, unless it holds a redacted value, then double-quoted with
 * `"`, `\\`, `` ` `` and `$` escaped and each redacted value a variable the shell fills in.
 */
function shell(text: string): string {
  if (!text.includes(REDACTED) && !text.includes(KEY_MARK)) return `'${text.replace(/'/g, `'\\''`)}'`;
  const escaped = text
    .replace(/["\\`$]/g, '\\$&')
    .split(REDACTED)
    .join('$RSG_SECRET')
    .split(KEY_MARK)
    .join('$RSG_KEY');
  return `"${escaped}"`;
}

/**
 * The call as a `curl` command against `baseUrl`: its method, URL, headers and body as stored (so
 * redacted), each redacted secret a shell variable (`$RSG_KEY`, `$RSG_TOKEN`, `$RSG_PIN`, `$RSG_SECRET`),
 * in double quotes where one appears so that the shell fills it in.
 */
export function curlCommand(call: InspectedCall, baseUrl: string): string {
  const lines = [`curl -X ${call.method}`];
  // The key in the query string is the key; any other redacted value a secret of the caller's own.
  const url = `${baseUrl.replace(/\/$/, '')}${call.url}`
    .replace(/([?&]subscription-key=)%5BREDACTED%5D/gi, `$1${KEY_MARK}`)
    .replace(/%5BREDACTED%5D/g, REDACTED);
  lines.push(shell(url));
  for (const [name, value] of Object.entries(call.requestHeaders)) {
    const lower = name.toLowerCase();
    if (NOT_SENT.has(lower) || lower.startsWith('x-forwarded-')) continue;
    const placeholder = value === REDACTED ? CURL_PLACEHOLDERS[lower] : undefined;
    lines.push(`-H ${placeholder ? `"${name}: ${placeholder}"` : shell(`${name}: ${value}`)}`);
  }
  if (call.requestBody !== null && call.requestBody !== '')
    lines.push(`--data-raw ${shell(call.requestBody)}`);
  return lines.join(' \\\n  ');
}

import { ENVIRONMENT_PREFIX, type ServiceDefinition } from '../../services/contract.ts';

/**
 * "Try it": a call to the sandbox with a key the user pastes (keys are kept only as hashes, so the
 * portal cannot fill it in). The portal makes the call in-process and shows status, headers and body.
 * The path cannot leave the chosen service: it is resolved (dot segments too) and checked against the
 * service's base address. The key is used for this one call and never stored or logged.
 */
export const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type Method = (typeof METHODS)[number];
const MAX_SHOWN = 100_000;
const PRINTABLE = /^[\x21-\x7e]+$/;
export const MAX_EXTRA_HEADERS = 10;
/** A header name: an RFC 9110 token. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** A header value: visible ASCII, spaces and tabs (no CR, LF or other control characters). */
const HEADER_VALUE = /^[\t\x20-\x7e]*$/;
/**
 * Headers a caller may not set: hop-by-hop ones (RFC 9110 section 7.6.1), what the call's framing and
 * addressing decide, what names the client to the gateway, and the ones the form's own fields fill.
 */
const REFUSED_HEADERS = new Map<string, string>([
  ...[
    'connection',
    'keep-alive',
    'proxy-connection',
    'transfer-encoding',
    'te',
    'trailer',
    'upgrade',
    'proxy-authenticate',
    'proxy-authorization',
  ].map((name): [string, string] => [name, 'is a hop-by-hop header']),
  ...[
    'host',
    'content-length',
    'expect',
    'cookie',
    'forwarded',
    'x-forwarded-for',
    'x-forwarded-host',
    'x-forwarded-proto',
    'x-real-ip',
  ].map((name): [string, string] => [name, 'is set by the call itself, not by a caller']),
  ['ocp-apim-subscription-key', 'is the key field above'],
  ['authorization', 'is the bearer token field above'],
]);

export interface ExtraHeader {
  name: string;
  value: string;
}

/** The extra header rows of a form (empty rows dropped), or the first problem, naming the row. */
export function extraHeaders(
  names: string[],
  values: string[],
): { headers: ExtraHeader[] } | { error: string } {
  const headers: ExtraHeader[] = [];
  const seen = new Set<string>();
  const rows = Math.max(names.length, values.length);
  for (let i = 0; i < rows; i++) {
    const name = (names[i] ?? '').trim();
    const value = (values[i] ?? '').trim();
    if (!name && !value) continue;
    const row = `Header ${i + 1}`;
    if (!name) return { error: `${row} name: required when a value is given.` };
    if (name.length > 100 || !TOKEN.test(name)) {
      return {
        error: `${row} name: must be a token (letters, digits and !#$%&'*+-.^_\`|~, at most 100 characters).`,
      };
    }
    const lower = name.toLowerCase();
    const refused = REFUSED_HEADERS.get(lower);
    if (refused) return { error: `${row} name: ${name} ${refused}.` };
    if (seen.has(lower)) return { error: `${row} name: ${name} is given twice.` };
    if (/[\r\n]/.test(value)) return { error: `${row} value: must be one line (no CR or LF).` };
    if (value.length > 4000 || !HEADER_VALUE.test(value)) {
      return { error: `${row} value: visible ASCII characters and spaces only, at most 4000.` };
    }
    seen.add(lower);
    headers.push({ name, value });
  }
  if (headers.length > MAX_EXTRA_HEADERS) return { error: `Headers: at most ${MAX_EXTRA_HEADERS}.` };
  return { headers };
}

export interface TryState {
  service?: string;
  method?: string;
  path?: string;
  key?: string;
  token?: string;
  body?: string;
  headers?: ExtraHeader[];
  error?: string;
}

export interface TryResult {
  url: string;
  sent: ExtraHeader[];
  status: number;
  headers: Record<string, unknown>;
  body: string;
}

/** The request URL inside the service, or an error message. */
export function tryUrl(
  services: readonly ServiceDefinition[],
  serviceId: string,
  rawPath: string,
): { url: string } | { error: string } {
  const service = services.find((s) => s.id === serviceId);
  if (!service) return { error: 'Choose one of the listed APIs.' };
  const path = rawPath.trim() || '/';
  if (!path.startsWith('/') || path.startsWith('//') || /[\s\\#]/.test(path)) {
    return { error: 'Path: start with / and use no spaces, backslashes or #.' };
  }
  const base = `${ENVIRONMENT_PREFIX.sandbox}${service.path}`;
  let resolved: URL;
  try {
    resolved = new URL(`${base}${path}`, 'http://portal.invalid');
  } catch {
    return { error: 'Path: not a valid path.' };
  }
  if (resolved.origin !== 'http://portal.invalid') return { error: 'Path: must stay within the API.' };
  if (resolved.pathname !== base && !resolved.pathname.startsWith(`${base}/`)) {
    return { error: 'Path: must stay within the API.' };
  }
  return { url: resolved.pathname + resolved.search };
}

export function showBody(payload: string, contentType: string): string {
  let shown = payload;
  if (contentType.includes('json')) {
    try {
      shown = JSON.stringify(JSON.parse(payload), null, 2);
    } catch {
      shown = payload;
    }
  }
  return shown.length > MAX_SHOWN
    ? `${shown.slice(0, MAX_SHOWN)}\n… (${shown.length - MAX_SHOWN} more characters)`
    : shown;
}

/** The first problem of a filled form, in the words the form shows; undefined when it may be sent. */
export function tryProblem(
  state: TryState,
  extra: { error: string } | { headers: ExtraHeader[] },
): string | undefined {
  if (!(METHODS as readonly string[]).includes(state.method ?? '')) return 'Method: choose one of the list.';
  if (!state.key || state.key.length > 256 || !PRINTABLE.test(state.key)) {
    return 'Key: paste your subscription key (letters and digits, no spaces).';
  }
  if (state.token && !PRINTABLE.test(state.token)) return 'Bearer token: no spaces or line breaks.';
  if ('error' in extra) return extra.error;
  return undefined;
}

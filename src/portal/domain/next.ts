/**
 * A `next` target: a page of the portal on this site, judged after normalisation. The target is resolved
 * as the browser will resolve the `Location` we send (dot segments, also percent-encoded ones, collapse
 * first), and only the result is judged: `/.//evil.example` normalises to `//evil.example`, a
 * protocol-relative address of another host, so a check of the raw text alone is not enough.
 */
export function safeNext(next: unknown, fallback = '/portal'): string {
  if (typeof next !== 'string' || next.length > 1000) return fallback;
  if (!next.startsWith('/') || next.includes('\\') || !/^[\x21-\x7e]+$/.test(next)) return fallback;
  try {
    const base = 'http://portal.invalid';
    const resolved = new URL(next, base);
    if (resolved.origin !== base) return fallback;
    const target = resolved.pathname + resolved.search;
    // The final text once more, as a client reads a Location: same origin, and under /portal.
    if (target.startsWith('//') || new URL(target, base).origin !== base) return fallback;
    if (resolved.pathname !== '/portal' && !resolved.pathname.startsWith('/portal/')) return fallback;
    return target;
  } catch {
    return fallback;
  }
}

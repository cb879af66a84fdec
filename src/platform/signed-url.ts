/**
 * Signed URLs (ours): `<path>?expires=<unix seconds>&caller=<id>&signature=<base64url>`, the signature an
 * HMAC-SHA256 over the path, the expiry and the caller (who the URL was made for), keyed by a secret the
 * user of this module derives from the server's. A changed path, expiry or caller, or a URL past its
 * expiry, is refused. Pure: the caller passes the key, "now" and the lifetime. Used by the offers
 * register's and the business number register's document URLs and the portal's bulk data and
 * data-request downloads.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

const mac = (key: Buffer, path: string, expires: number, caller: string): string =>
  createHmac('sha256', key).update(`${path}\n${expires}\n${caller}`).digest('base64url');

/** The query string of a URL for `path`, made for `caller`, valid `seconds` from `nowMs`. */
export function signedQuery(
  key: Buffer,
  path: string,
  caller: string,
  nowMs: number,
  seconds: number,
): string {
  const expires = Math.floor(nowMs / 1000) + seconds;
  return `expires=${expires}&caller=${encodeURIComponent(caller)}&signature=${mac(key, path, expires, caller)}`;
}

export type SignatureCheck = 'valid' | 'tampered' | 'expired';

export function checkSignature(
  key: Buffer,
  path: string,
  query: Record<string, unknown>,
  nowMs: number,
): SignatureCheck {
  const { expires, caller, signature } = query;
  if (typeof expires !== 'string' || typeof caller !== 'string' || typeof signature !== 'string')
    return 'tampered';
  if (!/^\d{1,12}$/.test(expires)) return 'tampered';
  const expected = Buffer.from(mac(key, path, Number(expires), caller));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'tampered';
  return Number(expires) * 1000 < nowMs ? 'expired' : 'valid';
}

/** A signing key for one purpose, derived from keyed uniforms of the server's secret (never stored). */
export function derivedSigningKey(keyedUniform: (key: string) => number, purpose: string): Buffer {
  const parts = [0, 1, 2, 3].map((i) => keyedUniform(`${purpose}|${i}`));
  return createHash('sha256').update(parts.join('|')).digest();
}

const ownedKeys = new WeakMap<object, Map<string, Buffer>>();

/**
 * `derivedSigningKey` for one purpose, derived once per owner (a service's context, whose keyed uniforms
 * it uses) and kept as long as the owner lives.
 */
export function ownedSigningKey(owner: { keyedUniform(key: string): number }, purpose: string): Buffer {
  let keys = ownedKeys.get(owner);
  if (!keys) {
    keys = new Map();
    ownedKeys.set(owner, keys);
  }
  let key = keys.get(purpose);
  if (!key) {
    key = derivedSigningKey((name) => owner.keyedUniform(name), purpose);
    keys.set(purpose, key);
  }
  return key;
}

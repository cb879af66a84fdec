/**
 * Signed document URLs (ours): `<path>?expires=<unix seconds>&caller=<id>&signature=<base64url>`, the
 * signature an HMAC-SHA256 over the path, the expiry and the caller (the subscription that asked), keyed
 * by a secret derived from the server's. A URL lives `SIGNED_URL_SECONDS`; a changed path, expiry or
 * caller, or a URL past its expiry, is refused. Pure: the caller passes the key and "now".
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNED_URL_SECONDS = 300;

const mac = (key: Buffer, path: string, expires: number, caller: string): string =>
  createHmac('sha256', key).update(`${path}\n${expires}\n${caller}`).digest('base64url');

export function signedQuery(key: Buffer, path: string, caller: string, nowMs: number): string {
  const expires = Math.floor(nowMs / 1000) + SIGNED_URL_SECONDS;
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

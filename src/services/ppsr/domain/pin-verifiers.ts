/**
 * PIN verifiers (ours). A PIN is 8 digits: a plain hash of one is reversed by trying all 10^8 PINs in
 * minutes, so a verifier is keyed by the server secret (platform/server-keys.ts), which is not in the
 * database: HMAC-SHA-256(subkey, SHA-256(PIN)), stored with the id of the key (`keyIds`).
 *
 * Keyed over the PIN's SHA-256 rather than the PIN itself so that everything can be converted without
 * the PINs: a verifier of the old form (an unkeyed SHA-256, `keyIds` null) becomes a keyed one by one more
 * HMAC, and after a rotation a verifier of an old key is wrapped once more with the current one. So
 * `keyIds` is a chain, outermost first (`"c0ffee01 5eed0002"` is HMAC(current, HMAC(old, SHA-256(PIN))));
 * verifying applies the chain from the inside out and so needs every key it names. A PIN that matches a
 * verifier of any other chain than the current key alone is rehashed to that (`stale`), which retires the
 * old keys from it. `none` is a verifier no PIN matches (the sandbox's generated statements).
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { ServerKey, ServerKeys } from '../../../platform/server-keys.ts';

const PURPOSE = 'ppsr pin verifier';
/** The key ids of a verifier no PIN matches. */
export const NO_PIN = 'none';

export interface PinVerifier {
  hash: Buffer;
  /** Ids of the keys the verifier is made with, outermost first; null: the unkeyed SHA-256 of old. */
  keyIds: string | null;
}

const unkeyed = (pin: string): Buffer => createHash('sha256').update(pin, 'utf8').digest();
const keyed = (key: ServerKey, inner: Buffer): Buffer =>
  createHmac('sha256', key.derive(PURPOSE)).update(inner).digest();

/** A new PIN's verifier, with the current key. */
export function pinVerifier(keys: ServerKeys, pin: string): PinVerifier & { keyIds: string } {
  return { hash: keyed(keys.current, unkeyed(pin)), keyIds: keys.current.id };
}

/** Is the verifier made with the current key alone (nothing to convert or rehash)? */
export const isCurrent = (keys: ServerKeys, verifier: Pick<PinVerifier, 'keyIds'>): boolean =>
  verifier.keyIds === keys.current.id || verifier.keyIds === NO_PIN;

/**
 * The verifier wrapped with the current key, without the PIN: how the old form and verifiers of a
 * previous key are converted. Undefined when it needs nothing.
 */
export function wrappedVerifier(keys: ServerKeys, verifier: PinVerifier): PinVerifier | undefined {
  if (isCurrent(keys, verifier)) return undefined;
  const outer = verifier.keyIds?.split(' ')[0];
  if (outer === keys.current.id) return undefined;
  return {
    hash: keyed(keys.current, verifier.hash),
    keyIds: verifier.keyIds ? `${keys.current.id} ${verifier.keyIds}` : keys.current.id,
  };
}

export type PinCheck =
  | { matches: false }
  /** `rehash`: the verifier to store in place of the one that matched (made with the current key). */
  | { matches: true; rehash?: PinVerifier & { keyIds: string } };

/** Does `pin` match the verifier? A key the chain names that is no longer configured: no match. */
export function checkPin(keys: ServerKeys, pin: string, verifier: PinVerifier): PinCheck {
  if (verifier.keyIds === NO_PIN) return { matches: false };
  let digest = unkeyed(pin);
  for (const id of (verifier.keyIds?.split(' ') ?? []).reverse()) {
    const key = keys.find(id);
    if (!key) return { matches: false };
    digest = keyed(key, digest);
  }
  if (digest.length !== verifier.hash.length || !timingSafeEqual(digest, verifier.hash)) {
    return { matches: false };
  }
  return isCurrent(keys, verifier) ? { matches: true } : { matches: true, rehash: pinVerifier(keys, pin) };
}

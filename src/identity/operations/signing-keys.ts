/**
 * Token signing keys: the first one at start, a rotation (`rsg oauth rotate-key`), the keys published.
 * A retired key stays published for the longest token lifetime, so tokens it signed keep verifying.
 */
import { randomBytes } from 'node:crypto';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import type { Pool } from 'pg';
import { SIGNING_ALG, type SigningKeys, signingKeys } from '../domain/signing-keys.ts';
import {
  hasSigningKey,
  insertSigningKey,
  publishedSigningKeys,
  replaceSigningKey,
} from '../store/signing-keys.ts';

async function newKey(): Promise<JWK> {
  const { privateKey } = await generateKeyPair(SIGNING_ALG, { extractable: true });
  const jwk = await exportJWK(privateKey);
  return { ...jwk, kid: randomBytes(12).toString('base64url'), alg: SIGNING_ALG, use: 'sig' };
}

export async function ensureSigningKey(pool: Pool): Promise<void> {
  if (await hasSigningKey(pool)) return;
  // Two processes starting at once may both insert one; the newest signs, both verify. Harmless.
  await insertSigningKey(pool, await newKey());
}

export async function rotateSigningKey(pool: Pool): Promise<string> {
  const jwk = await newKey();
  await replaceSigningKey(pool, jwk);
  return jwk.kid!;
}

export async function loadSigningKeys(pool: Pool, publishedForSeconds: number): Promise<SigningKeys> {
  return signingKeys(await publishedSigningKeys(pool, publishedForSeconds));
}

import type { JWK } from 'jose';

/**
 * Token signing keys, kept in the database so that every process signs and verifies with the same
 * ones, and rotatable: `rsg oauth rotate-key` adds a new signing key and retires the old one, which stays
 * published (and so keeps verifying) until every token it signed has expired.
 */
export const SIGNING_ALG = 'ES256';

export interface SigningKeys {
  /** Private keys, the signing key first (oidc-provider signs with the first that fits). */
  privateKeys: JWK[];
  /** The public half of every published key, for verification and the JWKS endpoint. */
  publicKeys: JWK[];
}

const publicHalf = ({ d: _d, ...rest }: JWK): JWK => rest;

/** The published keys from their private JWKs, the signing key first. */
export function signingKeys(privateKeys: JWK[]): SigningKeys {
  return { privateKeys, publicKeys: privateKeys.map(publicHalf) };
}

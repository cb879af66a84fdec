import { createHash, timingSafeEqual } from 'node:crypto';
import type { Environment } from '../../services/contract.ts';
import { ClientError } from '../errors.ts';

/**
 * OAuth clients that subscribers register: redirect URIs (matched exactly), grant types, and for a
 * confidential client a secret shown once and kept only as a hash. Public clients (no secret) must use
 * PKCE.
 */
export type GrantType = 'client_credentials' | 'authorization_code' | 'refresh_token';

export interface OAuthClient {
  clientId: string;
  ownerUserId: string;
  name: string;
  environment: Environment;
  redirectUris: string[];
  grantTypes: GrantType[];
  public: boolean;
  createdAt: Date;
}

export const hashSecret = (secret: string): string =>
  createHash('sha256').update(secret, 'utf8').digest('hex');

export function secretMatches(storedHash: string | undefined, presented: string): boolean {
  if (!storedHash) return false;
  const a = Buffer.from(storedHash, 'hex');
  const b = Buffer.from(hashSecret(presented), 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

function validRedirectUri(uri: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(uri);
  } catch {
    return false;
  }
  if (parsed.hash) return false;
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(parsed.hostname);
  return (
    parsed.protocol === 'https:' ||
    (parsed.protocol === 'http:' && loopback) ||
    /^[a-z][a-z0-9+.-]*\.[a-z0-9+.-]+:$/.test(parsed.protocol)
  );
}

export function validateClient(input: {
  name: string;
  redirectUris: string[];
  grantTypes: GrantType[];
  public: boolean;
}): void {
  if (!input.name.trim() || input.name.length > 100)
    throw new ClientError('name', 'must be 1 to 100 characters');
  const grants = new Set(input.grantTypes);
  if (grants.size === 0) throw new ClientError('grantTypes', 'must name at least one grant type');
  for (const grant of grants) {
    if (!['client_credentials', 'authorization_code', 'refresh_token'].includes(grant)) {
      throw new ClientError(
        'grantTypes',
        `"${grant}" is not one of client_credentials, authorization_code, refresh_token`,
      );
    }
  }
  if (input.public && grants.has('client_credentials')) {
    throw new ClientError('grantTypes', 'a public client (no secret) cannot use client_credentials');
  }
  if (grants.has('refresh_token') && !grants.has('authorization_code')) {
    throw new ClientError('grantTypes', 'refresh_token goes with authorization_code');
  }
  if (grants.has('authorization_code') && input.redirectUris.length === 0) {
    throw new ClientError('redirectUris', 'authorization_code needs at least one redirect URI');
  }
  for (const uri of input.redirectUris) {
    if (!validRedirectUri(uri)) {
      throw new ClientError(
        'redirectUris',
        `"${uri}" must be an https URL (http only on localhost) without a fragment`,
      );
    }
  }
}

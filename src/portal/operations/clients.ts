import type { Pool } from 'pg';
import type { GrantType, OAuthClient } from '../../identity/domain/clients.ts';
import { ClientError } from '../../identity/errors.ts';
import { regenerateClientSecret, registerClient } from '../../identity/operations/clients.ts';
import type { Environment } from '../../services/contract.ts';
import { notFound } from '../errors.ts';

/**
 * OAuth clients are identity's: registered and given new secrets through its operations. The portal adds
 * only its form's limits, and answers a refusal as the field it names.
 */
export type FieldProblem = { field: string; message: string };

/** Registers the user's client; the secret is shown once. Answers the field a refusal names. */
export async function registerClientOf(
  pool: Pool,
  userId: string,
  form: { name: string; environment: string; redirectUris: string; grants: string[]; type: string },
): Promise<{ client: OAuthClient; clientSecret: string | undefined } | { error: FieldProblem }> {
  if (form.environment !== 'sandbox' && form.environment !== 'production') {
    return { error: { field: 'environment', message: 'Choose sandbox or production.' } };
  }
  const redirectUris = form.redirectUris
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter(Boolean);
  if (redirectUris.length > 10)
    return { error: { field: 'redirectUris', message: 'At most 10 redirect URIs.' } };
  try {
    return await registerClient(pool, {
      ownerUserId: userId,
      name: form.name,
      environment: form.environment as Environment,
      redirectUris,
      grantTypes: form.grants as GrantType[],
      public: form.type === 'public',
    });
  } catch (error) {
    if (error instanceof ClientError) return { error: { field: error.field, message: error.message } };
    throw error;
  }
}

/** A new secret for the user's confidential client (the old one stops at once); 404 for any other. */
export async function newClientSecret(pool: Pool, userId: string, clientId: string): Promise<string> {
  if (!/^[A-Za-z0-9_-]{1,100}$/.test(clientId)) throw notFound('You have no such client.');
  try {
    return await regenerateClientSecret(pool, clientId, userId);
  } catch (error) {
    if (error instanceof ClientError) throw notFound('You have no such confidential client.');
    throw error;
  }
}

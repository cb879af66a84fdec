import type { Adapter, AdapterPayload } from 'oidc-provider';
import type { Pool } from 'pg';
import { hashSecret } from '../domain/clients.ts';
import { findClientRecord } from '../store/oauth-clients.ts';
import {
  consumePayload,
  destroyPayload,
  destroyPayloadsOfGrant,
  findPayload,
  upsertPayload,
} from '../store/oidc-payloads.ts';

/**
 * oidc-provider's storage in PostgreSQL: one table for every model, and OAuth clients read from the
 * clients that subscribers register (`oauth_clients`), so a client registered in one process is known
 * to all of them.
 *
 * Models whose id is itself the credential a client presents (an authorization code, a refresh token,
 * an opaque access token …) are stored under the SHA-256 of that id, and without the `jti` the provider
 * puts in the payload: every lookup hashes the value it is given, and the id is put back into the
 * payload it returns, so the provider never notices. The database alone gives away no usable code or
 * token. See src/identity/README.md ("Stored hashed").
 */
export const HASHED_MODELS: ReadonlySet<string> = new Set([
  'AccessToken',
  'AuthorizationCode',
  'RefreshToken',
  'ClientCredentials',
  'BackchannelAuthenticationRequest',
  'RegistrationAccessToken',
  'InitialAccessToken',
]);

export function postgresAdapter(pool: Pool) {
  return class PostgresAdapter implements Adapter {
    private readonly hashed: boolean;

    constructor(private readonly model: string) {
      this.hashed = HASHED_MODELS.has(model);
    }

    /** The stored id: the SHA-256 (hex) of a credential, anything else as it is. */
    private key(id: string): string {
      return this.hashed ? hashSecret(id) : id;
    }

    async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
      let stored = payload;
      if (this.hashed) {
        const { jti: _plain, ...rest } = payload;
        stored = rest;
      }
      await upsertPayload(pool, {
        model: this.model,
        id: this.key(id),
        payload: stored,
        grantId: payload.grantId ?? null,
        userCode: payload.userCode ?? null,
        uid: payload.uid ?? null,
        expiresIn: expiresIn || null,
      });
    }

    private async findWhere(
      column: 'id' | 'user_code' | 'uid',
      value: string,
    ): Promise<AdapterPayload | undefined> {
      // PostgreSQL text cannot hold U+0000, so no stored id holds one: an id or token from a request
      // (form body, Basic header) with one matches nothing, instead of failing in the database (a 500).
      if (typeof value !== 'string' || value.includes('\u0000')) return undefined;
      if (this.model === 'Client' && column === 'id') return clientMetadata(pool, value);
      const row = await findPayload(pool, this.model, column, column === 'id' ? this.key(value) : value);
      if (!row) return undefined;
      const payload = this.hashed && column === 'id' ? { ...row.payload, jti: value } : row.payload;
      return row.consumed_at
        ? { ...payload, consumed: Math.floor(row.consumed_at.getTime() / 1000) }
        : payload;
    }

    find(id: string) {
      return this.findWhere('id', id);
    }

    findByUserCode(userCode: string) {
      return this.findWhere('user_code', userCode);
    }

    findByUid(uid: string) {
      return this.findWhere('uid', uid);
    }

    async consume(id: string): Promise<void> {
      await consumePayload(pool, this.model, this.key(id));
    }

    async destroy(id: string): Promise<void> {
      await destroyPayload(pool, this.model, this.key(id));
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await destroyPayloadsOfGrant(pool, grantId);
    }
  };
}

/**
 * The client as oidc-provider wants it. `client_secret` carries the stored hash; the provider's secret
 * comparison is replaced (see provider.ts) to hash what the client presents before comparing.
 */
export async function clientMetadata(pool: Pool, clientId: string): Promise<AdapterPayload | undefined> {
  const row = await findClientRecord(pool, clientId);
  if (!row) return undefined;
  const grants = row.grant_types;
  return {
    client_id: row.client_id,
    client_name: row.name,
    ...(row.secret_hash ? { client_secret: row.secret_hash } : {}),
    token_endpoint_auth_method: row.public ? 'none' : 'client_secret_basic',
    grant_types: grants,
    response_types: grants.includes('authorization_code') ? ['code'] : [],
    redirect_uris: row.redirect_uris,
    'urn:rsg:environment': row.environment,
  } as AdapterPayload;
}

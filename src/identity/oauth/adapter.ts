import type { Adapter, AdapterPayload } from 'oidc-provider';
import type { Pool } from 'pg';
import { clientMetadata, hashSecret } from './clients.ts';

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
      await pool.query(
        `INSERT INTO oidc_payloads (model, id, payload, grant_id, user_code, uid, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, CASE WHEN $7::int IS NULL THEN NULL ELSE now() + make_interval(secs => $7) END)
         ON CONFLICT (model, id) DO UPDATE SET payload = excluded.payload, grant_id = excluded.grant_id,
           user_code = excluded.user_code, uid = excluded.uid, expires_at = excluded.expires_at`,
        [
          this.model,
          this.key(id),
          stored,
          payload.grantId ?? null,
          payload.userCode ?? null,
          payload.uid ?? null,
          expiresIn || null,
        ],
      );
    }

    private async findWhere(
      column: 'id' | 'user_code' | 'uid',
      value: string,
    ): Promise<AdapterPayload | undefined> {
      // PostgreSQL text cannot hold U+0000, so no stored id holds one: an id or token from a request
      // (form body, Basic header) with one matches nothing, instead of failing in the database (a 500).
      if (typeof value !== 'string' || value.includes('\u0000')) return undefined;
      if (this.model === 'Client' && column === 'id') return clientMetadata(pool, value);
      const result = await pool.query<{ payload: AdapterPayload; consumed_at: Date | null }>(
        `SELECT payload, consumed_at FROM oidc_payloads
          WHERE model = $1 AND ${column} = $2 AND (expires_at IS NULL OR expires_at > now())`,
        [this.model, column === 'id' ? this.key(value) : value],
      );
      const row = result.rows[0];
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
      await pool.query('UPDATE oidc_payloads SET consumed_at = now() WHERE model = $1 AND id = $2', [
        this.model,
        this.key(id),
      ]);
    }

    async destroy(id: string): Promise<void> {
      await pool.query('DELETE FROM oidc_payloads WHERE model = $1 AND id = $2', [this.model, this.key(id)]);
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await pool.query('DELETE FROM oidc_payloads WHERE grant_id = $1', [grantId]);
    }
  };
}

-- The authorization server's state (oidc-provider models: sessions, interactions, codes, grants,
-- refresh tokens …), one row per model instance. Access tokens are JWTs and are not stored.
CREATE TABLE oidc_payloads (
  model text NOT NULL,
  id text NOT NULL,
  payload jsonb NOT NULL,
  grant_id text,
  user_code text,
  uid text,
  expires_at timestamptz,
  consumed_at timestamptz,
  PRIMARY KEY (model, id)
);
CREATE INDEX oidc_payloads_grant ON oidc_payloads (grant_id) WHERE grant_id IS NOT NULL;
CREATE INDEX oidc_payloads_uid ON oidc_payloads (uid) WHERE uid IS NOT NULL;
CREATE INDEX oidc_payloads_expiry ON oidc_payloads (expires_at);

-- OAuth clients registered by subscribers. The secret is kept only as a SHA-256 hash (it is 32
-- random bytes: nothing to brute-force); public clients have none and must use PKCE.
CREATE TABLE oauth_clients (
  client_id text PRIMARY KEY,
  owner_user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  name text NOT NULL,
  environment text NOT NULL CHECK (environment IN ('sandbox', 'production')),
  redirect_uris text[] NOT NULL DEFAULT '{}',
  grant_types text[] NOT NULL,
  public boolean NOT NULL,
  secret_hash text,
  created_at timestamptz NOT NULL DEFAULT now(),
  secret_rotated_at timestamptz,
  CHECK (public = (secret_hash IS NULL))
);
CREATE INDEX oauth_clients_owner ON oauth_clients (owner_user_id);

-- Token signing keys. The newest unretired key signs; retired keys stay published until
-- `retired_at` + the longest token lifetime, so tokens they signed keep verifying.
CREATE TABLE signing_keys (
  kid text PRIMARY KEY,
  alg text NOT NULL,
  private_jwk jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  retired_at timestamptz
);

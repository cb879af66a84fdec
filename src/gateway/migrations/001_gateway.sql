-- One product per service per environment: `<environment>-<service>`.
CREATE TABLE products (
  id text PRIMARY KEY,
  environment text NOT NULL CHECK (environment IN ('sandbox', 'production')),
  service text NOT NULL,
  name text NOT NULL,
  rate_limit_per_minute integer NOT NULL CHECK (rate_limit_per_minute > 0),
  quota_calls integer CHECK (quota_calls IS NULL OR quota_calls > 0),
  quota_period_seconds integer CHECK (quota_period_seconds IS NULL OR quota_period_seconds > 0),
  approval_required boolean NOT NULL,
  UNIQUE (environment, service),
  CHECK ((quota_calls IS NULL) = (quota_period_seconds IS NULL))
);

CREATE TABLE subscriptions (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES users (id),
  product_id text NOT NULL REFERENCES products (id),
  name text NOT NULL,
  state text NOT NULL CHECK (state IN ('requested', 'active', 'suspended', 'cancelled')),
  created_at timestamptz NOT NULL DEFAULT now(),
  state_changed_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX subscriptions_user ON subscriptions (user_id);

-- Keys are stored only as SHA-256 hashes. They are 32 random bytes, so a fast hash is enough:
-- there is nothing to brute-force. `hint` is the last four characters, to tell keys apart.
CREATE TABLE subscription_keys (
  hash bytea PRIMARY KEY,
  subscription_id uuid NOT NULL REFERENCES subscriptions (id) ON DELETE CASCADE,
  slot text NOT NULL CHECK (slot IN ('primary', 'secondary')),
  hint text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (subscription_id, slot)
);

-- Calls per subscription per minute, for the portal's usage charts.
CREATE TABLE usage_minutes (
  subscription_id uuid NOT NULL REFERENCES subscriptions (id) ON DELETE CASCADE,
  minute timestamptz NOT NULL,
  calls integer NOT NULL DEFAULT 0,
  client_errors integer NOT NULL DEFAULT 0,
  server_errors integer NOT NULL DEFAULT 0,
  throttled integer NOT NULL DEFAULT 0,
  PRIMARY KEY (subscription_id, minute)
);

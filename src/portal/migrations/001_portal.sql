-- Portal sign-in sessions. The cookie holds 32 random bytes; only their SHA-256 is stored. A session
-- without a user is an anonymous one that exists to bind the sign-in and sign-up forms' CSRF tokens.
CREATE TABLE portal_sessions (
  id_hash bytea PRIMARY KEY,
  user_id uuid REFERENCES users (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL
);
CREATE INDEX portal_sessions_user ON portal_sessions (user_id);
CREATE INDEX portal_sessions_expiry ON portal_sessions (expires_at);

-- Keys are shown once. A subscription that waited for approval had its keys made (and thrown away)
-- when it was requested; the portal offers fresh ones until this row says they were shown.
CREATE TABLE portal_keys_shown (
  subscription_id uuid PRIMARY KEY REFERENCES subscriptions (id) ON DELETE CASCADE,
  shown_at timestamptz NOT NULL DEFAULT now()
);

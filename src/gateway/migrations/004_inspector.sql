-- The request inspector: the last calls of each subscription as the portal shows them, every secret
-- already replaced (gateway/domain/redaction.ts). Bounded: the newest 500 per subscription within the
-- last 24 hours (gateway/jobs/inspector.ts trims on every write and removes old calls once a minute). Numbered 004 so that
-- a 003 of the subscriptions can come before it.
CREATE TABLE inspector_calls (
  id bigserial PRIMARY KEY,
  subscription_id uuid NOT NULL REFERENCES subscriptions ON DELETE CASCADE,
  environment text NOT NULL CHECK (environment IN ('sandbox', 'production')),
  service text NOT NULL,
  at timestamptz NOT NULL,
  method text NOT NULL,
  url text NOT NULL,
  status smallint NOT NULL,
  duration_ms real NOT NULL,
  request_headers jsonb NOT NULL,
  response_headers jsonb NOT NULL,
  request_body text,
  response_body text,
  bodies_kept boolean NOT NULL,
  -- A 4xx: the error's code, field and rule as its answer gave them.
  reason text
);
CREATE INDEX inspector_calls_subscription ON inspector_calls (subscription_id, at DESC, id DESC);
CREATE INDEX inspector_calls_at ON inspector_calls (at);

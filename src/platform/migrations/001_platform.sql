-- Settings that the server keeps for itself (the keyed-random secret, first-start marker).
CREATE TABLE settings (
  name text PRIMARY KEY,
  value text NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- The clock of each environment. Production is always real; the sandbox may be virtual:
-- real time plus offset_ms, or frozen_at when set.
CREATE TABLE environment_clocks (
  environment text PRIMARY KEY CHECK (environment IN ('sandbox', 'production')),
  mode text NOT NULL DEFAULT 'real' CHECK (mode IN ('real', 'virtual')),
  offset_ms bigint NOT NULL DEFAULT 0,
  frozen_at timestamptz,
  updated_at timestamptz NOT NULL DEFAULT now()
);
INSERT INTO environment_clocks (environment) VALUES ('sandbox'), ('production');

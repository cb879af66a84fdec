-- The sandbox's kept states (platform/sandbox/, docs/operations.md "Sandbox reset and snapshots"): its
-- seeded state and the operators' named snapshots. Each is a template database holding a copy of the
-- sandbox database (`database`, closed to connections), with what of the sandbox the gateway database
-- keeps: the sandbox clock's reading when the state was kept, and the sandbox's mail.
--   kind 'seed': `name` is `seed:<scale>`; `fingerprint` covers the environment migrations, the sandbox
--     generators and the scale, so a change to any of them makes the seeded state again.
--   kind 'snapshot': `name` is the operator's; `fingerprint` covers the migrations the copy has, so a
--     restore after an upgrade migrates the copy before it is used.
CREATE TABLE sandbox_states (
  name text PRIMARY KEY,
  kind text NOT NULL CHECK (kind IN ('seed', 'snapshot')),
  database text NOT NULL UNIQUE,
  fingerprint text NOT NULL,
  clock_at timestamptz NOT NULL,
  clock_frozen boolean NOT NULL,
  mail jsonb NOT NULL DEFAULT '[]',
  created_at timestamptz NOT NULL DEFAULT now()
);

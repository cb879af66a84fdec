-- Simulated register activity in the sandbox (sandbox/activity.ts). The table exists in both
-- environments' databases, like every table of the service; only the sandbox's is used.

-- One row: the sandbox clock's instant up to which activity has been simulated. Each simulated change
-- moves it to its own instant in its own transaction; a run ends by moving it to the clock's now.
CREATE TABLE nzbn_sandbox_activity (
  id boolean PRIMARY KEY DEFAULT true CHECK (id),
  simulated_until timestamptz NOT NULL
);

-- Entities the simulator registered: besides generated entities, the only ones it changes later
-- (never the fixed test cases, nor entities registered through the API).
CREATE TABLE nzbn_sandbox_activity_entities (
  nzbn text PRIMARY KEY REFERENCES nzbn_entities ON DELETE CASCADE,
  registered_at timestamptz NOT NULL
);

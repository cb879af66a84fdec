-- Bulk data access (spec part E: "available outside the API by separate approval"), per environment: a
-- user asks, an operator approves or declines (with a reason); the requester is mailed. At most one
-- request waiting or approved per user and environment; a declined user may ask again.
CREATE TABLE portal_bulk_access (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  environment text NOT NULL CHECK (environment IN ('sandbox', 'production')),
  purpose text NOT NULL CHECK (length(purpose) BETWEEN 1 AND 2000),
  state text NOT NULL DEFAULT 'requested' CHECK (state IN ('requested', 'approved', 'declined')),
  reason text NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL DEFAULT now(),
  decided_at timestamptz,
  decided_by uuid REFERENCES users (id) ON DELETE SET NULL
);
CREATE UNIQUE INDEX portal_bulk_access_live ON portal_bulk_access (user_id, environment)
  WHERE state IN ('requested', 'approved');
CREATE INDEX portal_bulk_access_waiting ON portal_bulk_access (created_at) WHERE state = 'requested';

-- One-off data requests to the offers register (spec part A: "go through a separate data-request
-- form"): what data, why, which format, whom to contact. An operator answers with a file (kept in the
-- data folder under the request's id) or declines with a reason; the requester is mailed.
CREATE TABLE portal_data_requests (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  register text NOT NULL DEFAULT 'disclose' CHECK (register IN ('disclose')),
  data text NOT NULL CHECK (length(data) BETWEEN 1 AND 4000),
  purpose text NOT NULL CHECK (length(purpose) BETWEEN 1 AND 2000),
  format text NOT NULL CHECK (format IN ('csv', 'json', 'xlsx', 'other')),
  contact text NOT NULL CHECK (length(contact) BETWEEN 1 AND 200),
  state text NOT NULL DEFAULT 'open' CHECK (state IN ('open', 'answered', 'declined')),
  reason text NOT NULL DEFAULT '',
  file_name text,
  content_type text,
  file_bytes bigint,
  file_sha256 text,
  created_at timestamptz NOT NULL DEFAULT now(),
  decided_at timestamptz,
  decided_by uuid REFERENCES users (id) ON DELETE SET NULL,
  CHECK ((state = 'answered') = (file_name IS NOT NULL AND file_bytes IS NOT NULL AND file_sha256 IS NOT NULL))
);
CREATE INDEX portal_data_requests_user ON portal_data_requests (user_id, created_at);
CREATE INDEX portal_data_requests_open ON portal_data_requests (created_at) WHERE state = 'open';

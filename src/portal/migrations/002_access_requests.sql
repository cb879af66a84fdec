-- Production access a user asks the operators for (in the sandbox the same things are self-service):
-- an organisation to create and own, or business authority over a business number. An operator
-- approves (the organisation is created, or the authority granted) or declines; the requester is mailed.
CREATE TABLE portal_access_requests (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('organisation', 'authority')),
  subject text NOT NULL,
  name text NOT NULL DEFAULT '',
  state text NOT NULL DEFAULT 'requested' CHECK (state IN ('requested', 'approved', 'declined')),
  created_at timestamptz NOT NULL DEFAULT now(),
  decided_at timestamptz,
  decided_by uuid REFERENCES users (id) ON DELETE SET NULL
);
CREATE UNIQUE INDEX portal_access_requests_open ON portal_access_requests (user_id, kind, subject)
  WHERE state = 'requested';
CREATE INDEX portal_access_requests_waiting ON portal_access_requests (created_at) WHERE state = 'requested';

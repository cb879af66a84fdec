-- Watchlists (issue 5): what a subscriber watches and how it is told. Delivery (notification records,
-- the retry schedule, suspension and end-dating) comes with the delivery worker in a later migration.

CREATE TABLE nzbn_watchlists (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  -- Who owns it: `org:<organisationId>` when the call is made for an organisation, otherwise
  -- `sub:<subscriptionId>`. Every read and write filters on it; other callers see a 404.
  owner_key text NOT NULL,
  user_id text,
  organisation_id text,
  name text NOT NULL,
  channel text NOT NULL CHECK (channel IN ('EMAIL', 'PUSH')),
  frequency text NOT NULL,
  -- null (only the listed business numbers), 'ALL' (every change across the register) or 'NEW'
  -- (every new registration).
  wildcard text CHECK (wildcard IN ('ALL', 'NEW')),
  change_event_types text[] NOT NULL,
  push_endpoint text,
  authorization_token text,
  admin_email_address text,
  watchlist_email_addresses text[] NOT NULL DEFAULT '{}',
  -- The Standard Webhooks secret (whsec_…) is kept as it is, not hashed: every delivery is signed with
  -- HMAC-SHA256 keyed by the secret itself, so the worker needs the key, and a hash cannot sign. It is
  -- shown to the caller once (the create answer) and never read back through the API.
  webhook_secret text NOT NULL,
  from_date timestamptz NOT NULL,
  to_date timestamptz,
  last_successful_change_notice_id bigint,
  suspended boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  CHECK (channel <> 'PUSH' OR push_endpoint IS NOT NULL)
);
CREATE INDEX nzbn_watchlists_owner ON nzbn_watchlists (owner_key, name, id);

CREATE TABLE nzbn_watchlist_nzbns (
  watchlist_id uuid NOT NULL REFERENCES nzbn_watchlists ON DELETE CASCADE,
  nzbn text NOT NULL CHECK (nzbn ~ '^[0-9]{13}$'),
  added_at timestamptz NOT NULL,
  PRIMARY KEY (watchlist_id, nzbn)
);
CREATE INDEX nzbn_watchlist_nzbns_nzbn ON nzbn_watchlist_nzbns (nzbn);

-- Watchlist delivery (issue 5): a notification record for every change a watchlist matches, and the
-- push schedule (attempts, retries, suspension, end-dating) kept in these rows, so any number of
-- worker processes can share the work and a crashed one loses nothing.

-- Change events wait here until the fan-out has turned them into notification records. Rows that
-- exist before this migration are history, not news: they start as fanned out (a metadata-only
-- default), and new rows start as not.
ALTER TABLE nzbn_change_events ADD COLUMN fanned_out boolean NOT NULL DEFAULT true;
ALTER TABLE nzbn_change_events ALTER COLUMN fanned_out SET DEFAULT false;
CREATE INDEX nzbn_change_events_unfanned ON nzbn_change_events (id) WHERE NOT fanned_out;

-- Wakes the fan-out in every process at once (a statement-level trigger: one notice per statement,
-- folded into one per transaction by PostgreSQL).
CREATE FUNCTION nzbn_change_events_wake() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('rsg_nzbn_delivery', 'changes');
  RETURN NULL;
END $$;
CREATE TRIGGER nzbn_change_events_wake AFTER INSERT ON nzbn_change_events
  FOR EACH STATEMENT EXECUTE FUNCTION nzbn_change_events_wake();

ALTER TABLE nzbn_watchlists
  -- When the delivery job should next look at this watchlist (the head notification's due time for
  -- PUSH, the next digest for EMAIL); null when nothing waits.
  ADD COLUMN next_due_at timestamptz,
  -- The delivery worker holding this watchlist (its number); a worker holds a PostgreSQL advisory lock
  -- on its number for as long as its connection lives, so a lease of a killed worker is free at once.
  ADD COLUMN lease_worker integer,
  ADD COLUMN suspended_at timestamptz,
  -- Set when a watchlist suspended for one month without resumption is end-dated.
  ADD COLUMN end_dated_at timestamptz,
  -- The administrator still has to be told of a suspension (mail lives in the gateway database).
  ADD COLUMN suspension_mail_due boolean NOT NULL DEFAULT false,
  ADD COLUMN last_digest_at timestamptz;
CREATE INDEX nzbn_watchlists_due ON nzbn_watchlists (next_due_at)
  WHERE next_due_at IS NOT NULL AND NOT suspended AND end_dated_at IS NULL;
CREATE INDEX nzbn_watchlists_suspended ON nzbn_watchlists (suspended_at) WHERE suspended;
CREATE INDEX nzbn_watchlists_wildcard ON nzbn_watchlists (wildcard) WHERE wildcard IS NOT NULL;

-- One row per (watchlist, matching change). The id orders a watchlist's deliveries. No foreign keys:
-- the fan-out writes tens of thousands of rows a second, and deleting a watchlist deletes its rows.
CREATE TABLE nzbn_notifications (
  id bigserial PRIMARY KEY,
  watchlist_id uuid NOT NULL,
  change_event_id bigint NOT NULL,
  -- On the environment's clock (the sandbox's may be virtual).
  created_at timestamptz NOT NULL,
  delivered_at timestamptz,
  attempts smallint NOT NULL DEFAULT 0,
  -- The original attempt: retries are timed from it.
  first_attempt_at timestamptz,
  last_attempt_at timestamptz,
  next_attempt_at timestamptz,
  last_status integer,
  last_error text
);
CREATE INDEX nzbn_notifications_pending ON nzbn_notifications (watchlist_id, id) WHERE delivered_at IS NULL;

-- Delivery workers take numbers from here and hold an advisory lock on (4242, number) while alive.
CREATE SEQUENCE nzbn_delivery_worker_seq MAXVALUE 2147483647 CYCLE;

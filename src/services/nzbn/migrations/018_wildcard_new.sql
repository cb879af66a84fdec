-- The published Wildcard has no NEW: every new registration is the wildcard ALL with the change event
-- type NEW (domain/watchlist.ts). Watchlists stored with our earlier NEW take that form; one whose change
-- event types left NEW out reported nothing and now reports new registrations, as its wildcard asked.
UPDATE nzbn_watchlists SET wildcard = 'ALL', change_event_types = ARRAY['NEW'] WHERE wildcard = 'NEW';
ALTER TABLE nzbn_watchlists DROP CONSTRAINT nzbn_watchlists_wildcard_check,
  ADD CONSTRAINT nzbn_watchlists_wildcard_check
    CHECK (wildcard IN ('ALL', 'COMPANIES', 'INCORPORATED', 'UNINCORPORATED'));

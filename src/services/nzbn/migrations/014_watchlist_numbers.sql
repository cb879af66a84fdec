-- The published Watchlist's watchlistId is an integer (int32). Each watchlist gets one, numbered in the
-- order the watchlists were made; the UUID stays the internal key that notifications and deliveries use.
ALTER TABLE nzbn_watchlists ADD COLUMN number integer;
UPDATE nzbn_watchlists w SET number = n.number
  FROM (SELECT id, row_number() OVER (ORDER BY created_at, id) AS number FROM nzbn_watchlists) n
 WHERE w.id = n.id;
CREATE SEQUENCE nzbn_watchlist_number OWNED BY nzbn_watchlists.number;
SELECT setval('nzbn_watchlist_number', coalesce((SELECT max(number) FROM nzbn_watchlists), 0) + 1, false);
ALTER TABLE nzbn_watchlists
  ALTER COLUMN number SET DEFAULT nextval('nzbn_watchlist_number'),
  ALTER COLUMN number SET NOT NULL,
  ADD CONSTRAINT nzbn_watchlists_number UNIQUE (number);

-- The published type wildcards beside ALL and our NEW (domain/watchlist.ts WILDCARDS).
ALTER TABLE nzbn_watchlists DROP CONSTRAINT nzbn_watchlists_wildcard_check,
  ADD CONSTRAINT nzbn_watchlists_wildcard_check
    CHECK (wildcard IN ('ALL', 'COMPANIES', 'INCORPORATED', 'UNINCORPORATED', 'NEW'));

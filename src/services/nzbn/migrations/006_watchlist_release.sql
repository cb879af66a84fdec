-- Gives a leased watchlist back in one round trip. In a function each statement takes its own
-- snapshot, so the read of the head notification (second statement) comes after the row lock (first
-- statement) and sees every fan-out that committed before it; a fan-out after it sees the new value.
CREATE FUNCTION nzbn_release_watchlist(watchlist uuid, worker integer) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM 1 FROM nzbn_watchlists WHERE id = watchlist AND lease_worker = worker FOR UPDATE;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  UPDATE nzbn_watchlists w SET lease_worker = NULL, next_due_at = (
    SELECT coalesce(n.next_attempt_at, n.created_at) FROM nzbn_notifications n
     WHERE n.watchlist_id = w.id AND n.delivered_at IS NULL ORDER BY n.id LIMIT 1)
   WHERE w.id = watchlist;
END $$;

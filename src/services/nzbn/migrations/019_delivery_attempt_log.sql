-- Every failed push attempt of a notification and its answer (the HTTP status, or why none came), for
-- the portal's request inspector: [{"at", "status", "error"}, …], at most the six attempts of the retry
-- schedule. The successful attempt is the row's own last_attempt_at and last_status. No default, so
-- adding the column rewrites nothing; a delivered notification on the first try never writes it.
ALTER TABLE nzbn_notifications ADD COLUMN failed_attempts jsonb;

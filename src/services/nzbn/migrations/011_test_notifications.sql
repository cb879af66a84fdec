-- A watchlist's test notification (POST /watchlists/{id}/action-send-test-notification) is a notification
-- record like any other, delivered in its turn by the same push delivery (signed, retried, suspending)
-- or in the next email digest: it carries the message to send in place of a change event.
ALTER TABLE nzbn_notifications ALTER COLUMN change_event_id DROP NOT NULL;
ALTER TABLE nzbn_notifications ADD COLUMN test_message text;
ALTER TABLE nzbn_notifications ADD CONSTRAINT nzbn_notifications_change_or_test
  CHECK ((change_event_id IS NULL) <> (test_message IS NULL));

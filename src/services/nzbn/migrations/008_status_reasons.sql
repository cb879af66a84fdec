-- The reason code and comment a status request (POST /entities/{nzbn}/statuses) gave for the status an
-- entity has now: the published EntityStatus carries both. When the status changes again they go with
-- the ended period into nzbn_entity_history (its item), and the new request's take their place here.
CREATE TABLE nzbn_entity_status_notes (
  nzbn text PRIMARY KEY REFERENCES nzbn_entities ON DELETE CASCADE,
  status_reason_code text,
  comment text
);

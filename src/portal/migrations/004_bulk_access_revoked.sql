-- Approved bulk data access can be revoked by an operator (with a reason; the user is mailed). A revoked
-- grant stops every download link at once (each download checks for an approved grant) and, like a
-- declined request, lets the user ask again.
ALTER TABLE portal_bulk_access DROP CONSTRAINT portal_bulk_access_state_check;
ALTER TABLE portal_bulk_access ADD CONSTRAINT portal_bulk_access_state_check
  CHECK (state IN ('requested', 'approved', 'declined', 'revoked'));
CREATE INDEX portal_bulk_access_approved ON portal_bulk_access (decided_at) WHERE state = 'approved';

-- A case's history holds two kinds of event: a status change (as before) and a renewal (a renewal or
-- maintenance fee paid: the day it was made, the expiry it renewed and the new expiry), so a renewal is
-- no longer written as a status row repeating the status. A renewal row keeps the status the case had
-- after it (`status` stays NOT NULL) and `status_date` is the renewal's date. Rows before this
-- migration stay status rows.
ALTER TABLE iponz_status_history
  ADD COLUMN event text NOT NULL DEFAULT 'status' CHECK (event IN ('status', 'renewal')),
  ADD COLUMN renewed_expiry_date date,
  ADD COLUMN new_expiry_date date,
  ADD CONSTRAINT iponz_status_history_renewal_dates CHECK (
    (event = 'renewal') = (renewed_expiry_date IS NOT NULL AND new_expiry_date IS NOT NULL)
    AND (new_expiry_date IS NULL OR new_expiry_date > renewed_expiry_date)
  );

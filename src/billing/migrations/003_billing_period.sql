-- The billing month of a fee is decided when the fee is written and never changes: `billing_period`. A month
-- end no longer marks every fee it invoices (one UPDATE rewriting a million ledger rows and their indexes was
-- 90% of its time); it closes the month first (a `month_end_runs` row in state 'closed', committed under the
-- charge barrier), after which no fee can enter that month, then sums the month's fees into invoices and sets
-- the run 'invoiced'. A fee is invoiced exactly when its month's run is 'invoiced', on its organisation's
-- invoice of that month (see store/month-end.ts and the README's "Month end").

-- The month a fee dated in `p` goes to: `p`, or when `p` is not after every closed month (a fee whose clock
-- reads a month already closed: a sandbox clock moved back), the month after the last closed one. Open
-- months are therefore always after every closed month, and months close in order.
CREATE FUNCTION billing_open_period(p text) RETURNS text LANGUAGE sql STABLE AS $$
  SELECT CASE WHEN last IS NULL OR p > last THEN p
              ELSE to_char(to_date(last || '-01', 'YYYY-MM-DD') + interval '1 month', 'YYYY-MM') END
    FROM (SELECT max(period) AS last FROM month_end_runs) closed
$$;

-- A run is 'closed' (no fee may enter the month any more) before it is 'invoiced' (its invoices issued).
ALTER TABLE month_end_runs
  ADD COLUMN state text NOT NULL DEFAULT 'invoiced' CHECK (state IN ('closed', 'invoiced'));

DROP TRIGGER fee_records_invoiced_immutable ON fee_records;
DROP FUNCTION billing_keep_invoiced_fee();

ALTER TABLE fee_records ADD COLUMN billing_period text;
UPDATE fee_records f SET billing_period = i.period FROM invoices i WHERE i.id = f.invoice_id;
UPDATE fee_records SET billing_period = billing_open_period(to_char(charged_at AT TIME ZONE 'Pacific/Auckland', 'YYYY-MM'))
 WHERE billing_period IS NULL;
ALTER TABLE fee_records
  ALTER COLUMN billing_period SET NOT NULL,
  ADD CONSTRAINT fee_records_billing_period CHECK (billing_period ~ '^\d{4}-(0[1-9]|1[0-2])$');

DROP INDEX fee_records_unbilled;
DROP INDEX fee_records_invoice;
ALTER TABLE fee_records DROP CONSTRAINT fee_records_invoice;
ALTER TABLE fee_records DROP COLUMN invoice_id;
CREATE INDEX fee_records_period ON fee_records (billing_period, organisation_id);

-- A fee's month is its clock's month in New Zealand time (domain/invoice-month.ts draws the same
-- boundaries; the daylight-saving tests check both agree), moved on when that month is closed: a new fee
-- never enters a closed month, and a fee of a closed month never changes or goes.
CREATE FUNCTION billing_fee_period() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    NEW.billing_period := billing_open_period(to_char(NEW.charged_at AT TIME ZONE 'Pacific/Auckland', 'YYYY-MM'));
    RETURN NEW;
  END IF;
  IF EXISTS (SELECT 1 FROM month_end_runs WHERE period = OLD.billing_period) THEN
    RAISE EXCEPTION 'fee record % belongs to the closed month %: it cannot change', OLD.id, OLD.billing_period
      USING ERRCODE = 'integrity_constraint_violation';
  END IF;
  IF TG_OP = 'DELETE' THEN
    RETURN OLD;
  END IF;
  NEW.billing_period := billing_open_period(to_char(NEW.charged_at AT TIME ZONE 'Pacific/Auckland', 'YYYY-MM'));
  RETURN NEW;
END $$;
CREATE TRIGGER fee_records_period BEFORE INSERT OR UPDATE OR DELETE ON fee_records
  FOR EACH ROW EXECUTE FUNCTION billing_fee_period();

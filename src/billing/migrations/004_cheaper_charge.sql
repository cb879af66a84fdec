-- A cheaper charge (issue 12: charging adds at most 1 ms at p99 to a fee-bearing call). Measured on the
-- charge statement alone (docs/benchmarks.md, "Fees"): two of the ledger's six indexes served no write and
-- next to no read, a third scattered new fees over its pages, and the ledger's trigger planned its
-- closed-month query afresh for every fee.

-- No query reads fees by their object.
DROP INDEX fee_records_object;
-- Request ids are random (UUIDs), so nearly every fee went to a leaf page of this index that no fee had
-- touched since the last checkpoint: a full-page image in the WAL with almost every charge (3.9 KB of WAL
-- per charge with it, 0.8 KB without). The one query filtering by request id is an organisation's
-- (listFeeRecords), which fee_records_organisation serves.
DROP INDEX fee_records_request;
-- The month's index by month alone: within a month its entries were ordered by organisation, so with many
-- organisations the fees of a month scattered over its leaf pages as the request ids did (a page image
-- every other charge, measured with 1,000 organisations); by month alone a new fee goes after the month's
-- last. Its readers take the month's rows (the month end: a bitmap or sequential scan, the rows then
-- sorted, as before) or its least month (nextMonthToClose); neither read the organisations in its order.
DROP INDEX fee_records_period;
CREATE INDEX fee_records_period ON fee_records (billing_period);

-- The rule of migration 003, unchanged: a fee's billing month is the month of charged_at in New Zealand
-- time, or, when that month is closed, the month after the last closed one; a fee of a closed month never
-- changes or goes. The closed months are now read by the trigger's own statement, whose plan PL/pgSQL keeps
-- for the session (the SQL function billing_open_period was planned anew on every call). Each statement
-- still takes a fresh snapshot, so a month closed while the charge waited at the barrier is seen.
CREATE OR REPLACE FUNCTION billing_fee_period() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    IF EXISTS (SELECT 1 FROM month_end_runs r WHERE r.period = OLD.billing_period) THEN
      RAISE EXCEPTION 'fee record % belongs to the closed month %: it cannot change', OLD.id, OLD.billing_period
        USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    IF TG_OP = 'DELETE' THEN
      RETURN OLD;
    END IF;
  END IF;
  SELECT CASE WHEN closed.last IS NULL OR charged.month > closed.last THEN charged.month
              ELSE to_char(to_date(closed.last || '-01', 'YYYY-MM-DD') + interval '1 month', 'YYYY-MM') END
    INTO NEW.billing_period
    FROM (SELECT to_char(NEW.charged_at AT TIME ZONE 'Pacific/Auckland', 'YYYY-MM') AS month) charged,
         (SELECT max(r.period) AS last FROM month_end_runs r) closed;
  RETURN NEW;
END $$;

-- Its rule now lives in the trigger alone.
DROP FUNCTION billing_open_period(text);

-- Invoices and credit notes of one environment, the month-end runs, and which invoices were mailed.
-- Numbers come from a counter row per kind, taken in the same transaction as the documents they number
-- (the row lock orders writers; a rolled-back transaction gives its numbers back): no gaps, no
-- duplicates. Issued documents are immutable (triggers below); a correction is a credit note.
CREATE TABLE invoice_counters (
  kind text PRIMARY KEY CHECK (kind IN ('invoice', 'credit_note')),
  last_number bigint NOT NULL CHECK (last_number >= 0)
);
INSERT INTO invoice_counters (kind, last_number) VALUES ('invoice', 0), ('credit_note', 0);

CREATE TABLE invoices (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  kind text NOT NULL CHECK (kind IN ('invoice', 'credit_note')),
  number bigint NOT NULL CHECK (number > 0),
  organisation_id uuid NOT NULL,
  -- As it was when issued (the document does not change when the organisation is renamed).
  organisation_name text NOT NULL,
  -- The billing month (New Zealand time), `YYYY-MM`; a credit note carries its invoice's.
  period text NOT NULL CHECK (period ~ '^\d{4}-(0[1-9]|1[0-2])$'),
  period_start timestamptz NOT NULL,
  period_end timestamptz NOT NULL,
  -- The environment's clock (the sandbox's may be virtual).
  issued_at timestamptz NOT NULL,
  currency text NOT NULL DEFAULT 'NZD' CHECK (currency = 'NZD'),
  net_cents bigint NOT NULL CHECK (net_cents >= 0),
  gst_cents bigint NOT NULL CHECK (gst_cents >= 0),
  total_cents bigint NOT NULL CHECK (total_cents = net_cents + gst_cents),
  -- A credit note: the invoice it corrects, and why.
  credits_invoice_id bigint REFERENCES invoices (id),
  reason text,
  UNIQUE (kind, number),
  CHECK ((kind = 'credit_note') = (credits_invoice_id IS NOT NULL))
);
CREATE UNIQUE INDEX invoices_one_per_month ON invoices (organisation_id, period) WHERE kind = 'invoice';
CREATE INDEX invoices_organisation ON invoices (organisation_id, issued_at DESC);
CREATE INDEX invoices_credits ON invoices (credits_invoice_id) WHERE credits_invoice_id IS NOT NULL;

CREATE TABLE invoice_lines (
  invoice_id bigint NOT NULL REFERENCES invoices (id),
  line_number integer NOT NULL CHECK (line_number > 0),
  service text NOT NULL,
  fee_code text NOT NULL,
  description text NOT NULL,
  channel text NOT NULL,
  quantity integer NOT NULL CHECK (quantity > 0),
  unit_cents bigint NOT NULL CHECK (unit_cents >= 0),
  net_cents bigint NOT NULL CHECK (net_cents >= 0),
  gst_cents bigint NOT NULL CHECK (gst_cents >= 0),
  total_cents bigint NOT NULL CHECK (total_cents = net_cents + gst_cents),
  PRIMARY KEY (invoice_id, line_number)
);

-- One row per closed month: the month end ran for it (with no invoice when nothing was charged).
CREATE TABLE month_end_runs (
  period text PRIMARY KEY,
  period_end timestamptz NOT NULL,
  ran_at timestamptz NOT NULL,
  invoices integer NOT NULL,
  fees integer NOT NULL
);

-- Invoices handed to the mail outbox (kept apart, so the invoices themselves never change).
CREATE TABLE invoice_mailings (
  invoice_id bigint PRIMARY KEY REFERENCES invoices (id),
  sent_to text NOT NULL,
  mailed_at timestamptz NOT NULL DEFAULT now()
);

ALTER TABLE fee_records
  ADD CONSTRAINT fee_records_invoice FOREIGN KEY (invoice_id) REFERENCES invoices (id);

-- Immutability: an issued invoice, credit note or line is never updated or deleted, and a fee stays on
-- the invoice it went to.
CREATE FUNCTION billing_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'issued % are immutable: a correction is a credit note', TG_TABLE_NAME
    USING ERRCODE = 'integrity_constraint_violation';
END $$;
CREATE TRIGGER invoices_immutable BEFORE UPDATE OR DELETE ON invoices
  FOR EACH ROW EXECUTE FUNCTION billing_refuse_change();
CREATE TRIGGER invoices_no_truncate BEFORE TRUNCATE ON invoices
  FOR EACH STATEMENT EXECUTE FUNCTION billing_refuse_change();
CREATE TRIGGER invoice_lines_immutable BEFORE UPDATE OR DELETE ON invoice_lines
  FOR EACH ROW EXECUTE FUNCTION billing_refuse_change();
CREATE TRIGGER invoice_lines_no_truncate BEFORE TRUNCATE ON invoice_lines
  FOR EACH STATEMENT EXECUTE FUNCTION billing_refuse_change();

CREATE FUNCTION billing_keep_invoiced_fee() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'fee record % is invoiced (invoice id %): it cannot change', OLD.id, OLD.invoice_id
    USING ERRCODE = 'integrity_constraint_violation';
END $$;
CREATE TRIGGER fee_records_invoiced_immutable BEFORE UPDATE OR DELETE ON fee_records
  FOR EACH ROW WHEN (OLD.invoice_id IS NOT NULL) EXECUTE FUNCTION billing_keep_invoiced_fee();

-- The fee ledger of one environment (each environment database holds its own): one row per fee,
-- written by the service in the transaction of the operation that incurs it, so a fee exists exactly
-- when its operation committed. Organisations, users and subscriptions live in the gateway database;
-- they are kept here by value (no foreign key across databases).
CREATE TABLE fee_records (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  organisation_id uuid NOT NULL,
  user_id uuid,
  subscription_id uuid,
  service text NOT NULL,
  operation text NOT NULL,
  fee_code text NOT NULL,
  description text NOT NULL,
  amount_cents integer NOT NULL CHECK (amount_cents >= 0),
  gst_cents integer NOT NULL CHECK (gst_cents >= 0),
  currency text NOT NULL DEFAULT 'NZD' CHECK (currency = 'NZD'),
  channel text NOT NULL CHECK (channel IN ('API', 'Web')),
  request_id text,
  billing_reference text,
  object_kind text,
  object_id text,
  charged_at timestamptz NOT NULL,
  -- Set when the fee is invoiced; the foreign key comes with the invoices table (002).
  invoice_id bigint
);
CREATE INDEX fee_records_organisation ON fee_records (organisation_id, charged_at, id);
CREATE INDEX fee_records_unbilled ON fee_records (charged_at) WHERE invoice_id IS NULL;
CREATE INDEX fee_records_invoice ON fee_records (invoice_id) WHERE invoice_id IS NOT NULL;
CREATE INDEX fee_records_request ON fee_records (request_id) WHERE request_id IS NOT NULL;
CREATE INDEX fee_records_billing_reference ON fee_records (organisation_id, billing_reference)
  WHERE billing_reference IS NOT NULL;
CREATE INDEX fee_records_object ON fee_records (service, object_kind, object_id) WHERE object_id IS NOT NULL;

-- Who pays: one billing account per organisation and environment (the billing contact for invoices).
CREATE TABLE billing_accounts (
  organisation_id uuid PRIMARY KEY,
  billing_email text,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Direct debit authorities: requested -> approved | declined; approved -> cancelled. At most one
-- requested-or-approved authority per organisation; declined and cancelled rows stay for the record.
CREATE TABLE direct_debit_authorities (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organisation_id uuid NOT NULL,
  state text NOT NULL CHECK (state IN ('requested', 'approved', 'declined', 'cancelled')),
  account_name text,
  account_number_masked text,
  requested_by uuid,
  requested_at timestamptz NOT NULL,
  decided_by uuid,
  decided_at timestamptz,
  decision_note text,
  cancelled_by uuid,
  cancelled_at timestamptz,
  CHECK ((state = 'requested') = (decided_at IS NULL)),
  CHECK ((state = 'cancelled') = (cancelled_at IS NOT NULL))
);
CREATE UNIQUE INDEX direct_debit_authorities_current ON direct_debit_authorities (organisation_id)
  WHERE state IN ('requested', 'approved');
CREATE INDEX direct_debit_authorities_organisation ON direct_debit_authorities (organisation_id, requested_at);

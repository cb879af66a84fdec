-- Direct credit: a prepaid account per organisation, topped up by an operator and charged per fee by the
-- registers whose rules accept it (the IP office). The balance never goes below zero (a charge it cannot
-- cover is refused and its operation rolls back); every top-up and charge is a movement, a charge tied to
-- its fee record, so the invoice of a month shows what the account paid of it.
CREATE TABLE direct_credit_accounts (
  organisation_id uuid PRIMARY KEY,
  balance_cents bigint NOT NULL CHECK (balance_cents >= 0),
  opened_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);

CREATE TABLE direct_credit_movements (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  organisation_id uuid NOT NULL REFERENCES direct_credit_accounts,
  kind text NOT NULL CHECK (kind IN ('top-up', 'charge')),
  -- Positive: a top-up adds it, a charge (the fee and its GST) takes it.
  amount_cents bigint NOT NULL CHECK (amount_cents > 0),
  balance_after_cents bigint NOT NULL CHECK (balance_after_cents >= 0),
  fee_record_id bigint UNIQUE REFERENCES fee_records,
  -- A charge's fee's billing month (the invoice that shows it).
  billing_period text CHECK (billing_period ~ '^[0-9]{4}-[0-9]{2}$'),
  note text,
  -- Who topped up (an operator's email, or "cli").
  made_by text,
  made_at timestamptz NOT NULL,
  CHECK ((kind = 'charge') = (fee_record_id IS NOT NULL AND billing_period IS NOT NULL))
);
CREATE INDEX direct_credit_movements_organisation ON direct_credit_movements (organisation_id, made_at, id);
CREATE INDEX direct_credit_movements_period ON direct_credit_movements (organisation_id, billing_period)
  WHERE kind = 'charge';

-- Organisation parts: physical, functional or digital locations of a business, each with its own
-- organisation part number (a 13-digit GLN), and the fee records for parts beyond an entity's second.

-- Organisation part numbers: bodies 80,001,000–99,999,999 (80,000,000–80,000,999 are the fixtures').
CREATE SEQUENCE nzbn_opn_body_seq START 80001000 MINVALUE 80001000 MAXVALUE 99999999;

-- Numbers handed out by GET /entities/{nzbn}/organisation-parts/allocation, reserved for that entity.
CREATE TABLE nzbn_opn_allocations (
  opn text PRIMARY KEY CHECK (opn ~ '^[0-9]{13}$'),
  nzbn text NOT NULL REFERENCES nzbn_entities ON DELETE CASCADE,
  allocated_at timestamptz NOT NULL,
  used_at timestamptz
);
CREATE INDEX nzbn_opn_allocations_entity ON nzbn_opn_allocations (nzbn);

CREATE TABLE nzbn_organisation_parts (
  opn text PRIMARY KEY CHECK (opn ~ '^[0-9]{13}$'),
  parent_nzbn text NOT NULL REFERENCES nzbn_entities ON DELETE CASCADE,
  parent_gln text NOT NULL,
  name text NOT NULL,
  function text,
  status text NOT NULL CHECK (status IN ('Active', 'Inactive')),
  privacy text NOT NULL CHECK (privacy IN ('public', 'private', 'shared')),
  -- Business numbers a shared part is shared with.
  nzbn_list text[] NOT NULL DEFAULT '{}',
  last_updated timestamptz NOT NULL,
  etag text NOT NULL,
  version integer NOT NULL DEFAULT 1,
  -- The published representation (json: key order kept).
  document json NOT NULL
);
CREATE INDEX nzbn_organisation_parts_parent ON nzbn_organisation_parts (parent_nzbn);
CREATE INDEX nzbn_organisation_parts_name ON nzbn_organisation_parts USING gin (lower(name) gin_trgm_ops);
CREATE INDEX nzbn_organisation_parts_shared ON nzbn_organisation_parts USING gin (nzbn_list);

-- One record per fee-bearing event (see domain/fees.ts for the schedule); invoices read the records not
-- yet invoiced. Amounts in cents, GST exclusive, with the GST beside them.
CREATE TABLE nzbn_fee_records (
  id bigserial PRIMARY KEY,
  nzbn text NOT NULL,
  opn text,
  fee_code text NOT NULL,
  description text NOT NULL,
  amount_cents integer NOT NULL CHECK (amount_cents >= 0),
  gst_cents integer NOT NULL CHECK (gst_cents >= 0),
  currency text NOT NULL DEFAULT 'NZD',
  charged_at timestamptz NOT NULL,
  invoice_id text,
  UNIQUE (fee_code, opn)
);
CREATE INDEX nzbn_fee_records_entity ON nzbn_fee_records (nzbn, charged_at);
CREATE INDEX nzbn_fee_records_uninvoiced ON nzbn_fee_records (charged_at) WHERE invoice_id IS NULL;

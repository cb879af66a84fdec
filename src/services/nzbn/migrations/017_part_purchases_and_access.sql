-- Purchases of organisation parts and requests for access to private ones.

-- Part numbers from 90,000,000 up are the sandbox's generated parts' (sandbox/numbers.ts).
ALTER SEQUENCE nzbn_opn_body_seq MAXVALUE 89999999;

-- A purchase: the transaction of a part created beyond an entity's free ones (POST
-- …/organisation-parts with the published purchaserDetails), read at GET
-- /entities/organisation-parts-purchase/{transaction_id} by the subscription that made it and by the
-- paying organisation. APPROVED when its fee was charged (fee_record_id, a row of billing's ledger)
-- and the part made (issued_opn); DECLINED, with nothing made or charged, when the payment was refused.
CREATE TABLE nzbn_part_purchases (
  purchase_id uuid PRIMARY KEY,
  nzbn text NOT NULL REFERENCES nzbn_entities ON DELETE CASCADE,
  subscription_id text NOT NULL,
  -- The paying organisation (identity's organisation id, as billing names it).
  organisation_id text NOT NULL,
  user_id text,
  -- The request that made it (the published paymentTransactionId).
  request_id text NOT NULL,
  status text NOT NULL CHECK (status IN ('PENDING', 'APPROVED', 'DECLINED')),
  purchaser_name text NOT NULL,
  purchaser_email text NOT NULL,
  purchaser_phone text NOT NULL,
  redirect_url text NOT NULL,
  -- The fee and its GST.
  amount_cents integer NOT NULL CHECK (amount_cents >= 0),
  response_code text NOT NULL,
  fee_record_id bigint,
  issued_opn text,
  ordered_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  CHECK ((status = 'APPROVED') = (issued_opn IS NOT NULL))
);
CREATE INDEX nzbn_part_purchases_entity ON nzbn_part_purchases (nzbn);

-- Requests to create a part kept under the caller's request id (api-business-govt-nz-Request-Id), per
-- subscription: a retry answers the first answer, so nothing is made or charged twice.
CREATE TABLE nzbn_part_requests (
  subscription_id text NOT NULL,
  request_id text NOT NULL,
  request_hash bytea NOT NULL,
  answer json NOT NULL,
  kept_at timestamptz NOT NULL,
  PRIMARY KEY (subscription_id, request_id)
);

-- A request by an entity (requesting_nzbn) to see an organisation part that is not public; the part's
-- owner decides. An APPROVED request lets the requesting entity's holders of authority see the part.
CREATE TABLE nzbn_part_access_requests (
  opn text NOT NULL REFERENCES nzbn_organisation_parts ON DELETE CASCADE,
  requesting_nzbn text NOT NULL REFERENCES nzbn_entities ON DELETE CASCADE,
  status text NOT NULL CHECK (status IN ('PENDING', 'APPROVED', 'DECLINED')),
  requested_at timestamptz NOT NULL,
  requested_by text,
  decided_at timestamptz,
  decided_by text,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (opn, requesting_nzbn)
);
CREATE INDEX nzbn_part_access_requests_granted ON nzbn_part_access_requests (requesting_nzbn)
  WHERE status = 'APPROVED';

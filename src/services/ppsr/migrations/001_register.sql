-- Secured interests register (service D): financing statements with their versions, the keys searches
-- find them by, customer organisations, secured party groups, transactions and searches. One set of
-- tables per environment database (sandbox and production accounts are separate, as published).

-- The customer organisation (PPSR_44/45): identity's organisation of this environment, by value (it
-- lives in the gateway database), with what the register keeps of it.
CREATE TABLE ppsr_customer_organisations (
  organisation_id uuid PRIMARY KEY,
  name text NOT NULL,
  email text,
  version integer NOT NULL DEFAULT 1,
  updated_at timestamptz NOT NULL
);

-- Secured party groups (PPSR_34): a named set of secured parties an organisation registers under.
CREATE TABLE ppsr_secured_party_groups (
  id text PRIMARY KEY CHECK (id ~ '^SPG[0-9]{8}$'),
  organisation_id uuid NOT NULL,
  name text NOT NULL,
  email text NOT NULL,
  secured_parties jsonb NOT NULL,
  version integer NOT NULL DEFAULT 1,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX ppsr_secured_party_groups_organisation ON ppsr_secured_party_groups (organisation_id);
CREATE SEQUENCE ppsr_secured_party_group_numbers;

-- The current version of each financing statement. `document` holds debtors, secured parties and
-- collaterals as the API shows them; the columns beside it are what lists, paging and status read.
CREATE TABLE ppsr_financing_statements (
  registration_number text PRIMARY KEY CHECK (registration_number ~ '^[A-Z0-9]{16}$'),
  -- The customer organisation that registered it; null for the sandbox's generated register.
  organisation_id uuid,
  secured_party_group_id text REFERENCES ppsr_secured_party_groups (id),
  registered_at timestamptz NOT NULL,
  -- New Zealand calendar date; in force to its end (domain/dates.ts).
  expiry_date date NOT NULL,
  discharged_at timestamptz,
  version integer NOT NULL DEFAULT 1,
  changed_at timestamptz NOT NULL,
  -- SHA-256 of the PINs issued at registration (shown once, in the registration's answer).
  pin_hash bytea NOT NULL,
  debtor_pin_hash bytea NOT NULL,
  document jsonb NOT NULL
);
CREATE INDEX ppsr_statements_discharged ON ppsr_financing_statements (discharged_at, registration_number)
  WHERE discharged_at IS NOT NULL;
CREATE INDEX ppsr_statements_group ON ppsr_financing_statements (secured_party_group_id, registration_number)
  WHERE secured_party_group_id IS NOT NULL;

-- Every version (PPSR_55), the first included; kept whole, never changed.
CREATE TABLE ppsr_financing_statement_versions (
  registration_number text NOT NULL REFERENCES ppsr_financing_statements (registration_number),
  version integer NOT NULL,
  change text NOT NULL CHECK (change IN ('Registered', 'Amended', 'Renewed', 'Discharged')),
  changed_at timestamptz NOT NULL,
  expiry_date date NOT NULL,
  transaction_id bigint,
  document jsonb NOT NULL,
  PRIMARY KEY (registration_number, version)
);

-- What searches find statements in force by, one row per key of the current version: folded
-- organisation names, business and incorporation numbers, persons ("LAST FIRST" folded, with the date of
-- birth), VINs, chassis numbers, plates, aircraft serial numbers. Collation "C" so a starts-with search is
-- a range scan of the index. A discharged statement has no keys (searches never find it); each key
-- carries its statement's expiry date (renewals update it), in the index too, so a search reads the index
-- alone, in key order, and stops at the limit.
CREATE TABLE ppsr_search_keys (
  kind text NOT NULL CHECK (kind IN ('organisationName', 'nzbn', 'incorporationNumber', 'person', 'vin',
    'chassisNumber', 'registrationPlate', 'aircraftSerialNumber')),
  key text COLLATE "C" NOT NULL,
  registration_number text NOT NULL REFERENCES ppsr_financing_statements (registration_number),
  date_of_birth date,
  expiry_date date NOT NULL
);
-- One row per key and statement, and per date of birth: two debtors of one statement may share a name
-- and differ in their dates of birth (a search narrowed by date of birth must find either).
CREATE UNIQUE INDEX ppsr_search_keys_key ON ppsr_search_keys (kind, key, registration_number, date_of_birth)
  INCLUDE (expiry_date) NULLS NOT DISTINCT;
CREATE INDEX ppsr_search_keys_statement ON ppsr_search_keys (registration_number);

-- Every write and search is a transaction, found by the caller's request id or billing reference
-- (SEC_56) once it has ended: `status_code` is null while processing, then 200, 400 or 500 (published).
-- A repeat of a request id returns the first outcome; the same id with another body is refused.
CREATE TABLE ppsr_transactions (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  organisation_id uuid NOT NULL,
  request_id text NOT NULL,
  billing_reference text,
  operation text NOT NULL,
  -- SHA-256 of the operation and its canonical request (method, path, body).
  request_hash bytea NOT NULL,
  channel text NOT NULL DEFAULT 'API' CHECK (channel IN ('API', 'Web')),
  correlation_id uuid NOT NULL,
  payment_session_id text,
  received_at timestamptz NOT NULL,
  completed_at timestamptz,
  status_code smallint CHECK (status_code IN (200, 400, 500)),
  -- The HTTP status and body the caller got (or would have got), replayed for a repeat.
  http_status smallint,
  -- json, not jsonb: kept byte for byte, so a repeat and SEC_56 give the first answer's keys in its order.
  response json,
  registration_number text,
  spg_id text,
  UNIQUE (organisation_id, request_id),
  CHECK ((status_code IS NULL) = (completed_at IS NULL))
);
CREATE INDEX ppsr_transactions_billing_reference ON ppsr_transactions (organisation_id, billing_reference)
  WHERE billing_reference IS NOT NULL;
CREATE INDEX ppsr_transactions_processing ON ppsr_transactions (received_at) WHERE status_code IS NULL;

-- Searches (PPSR_02): the certificate and the snapshot of what was found (at most 300), so later pages
-- of the same searchId show the same results and cost nothing (published).
CREATE TABLE ppsr_searches (
  search_id uuid PRIMARY KEY,
  organisation_id uuid NOT NULL,
  certificate_number text NOT NULL UNIQUE,
  search_by text NOT NULL,
  criterion jsonb NOT NULL,
  searched_at timestamptz NOT NULL,
  results text[] NOT NULL,
  transaction_id bigint REFERENCES ppsr_transactions (id)
);
CREATE INDEX ppsr_searches_organisation ON ppsr_searches (organisation_id, searched_at);
CREATE SEQUENCE ppsr_search_certificate_numbers;

-- The sandbox seed's progress: a chunk of generated statements is loaded whole or not at all, so an
-- interrupted seed resumes and two seeders never load a chunk twice.
CREATE TABLE ppsr_seed_chunks (
  seed text NOT NULL,
  chunk integer NOT NULL,
  statements integer NOT NULL,
  loaded_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (seed, chunk)
);

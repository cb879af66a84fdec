-- The IP office (iponz v5): clients, and patents, trade marks and designs with their status history,
-- parties by role, documents and (trade marks) goods and services by class. REST (issue 14) and SOAP
-- (issue 15) read and write these same tables.
--
-- Client search (GET /clients) runs `name_folded LIKE <pattern> ESCAPE '\'` and the same on each
-- address's folded text (its non-empty lines and city joined with ', ', see domain/client-search.ts
-- addressText). Both are folded by the store with the same toLowerCase() as the domain's reference
-- matcher, and the pattern too, so LIKE on them is the case-insensitive search; trigram GIN indexes serve
-- LIKE with wildcards anywhere (ILIKE on the unfolded text chose whole scans and was many times slower).
CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE TABLE iponz_clients (
  client_id integer PRIMARY KEY CHECK (client_id > 0),
  name text NOT NULL CHECK (name <> ''),
  -- The name case-folded (toLowerCase), what the name term is matched against.
  name_folded text NOT NULL,
  client_type text NOT NULL CHECK (client_type IN ('Organisation', 'Person')),
  -- Business clients: their number in the business number register (same name there).
  nzbn text CHECK (nzbn ~ '^[0-9]{13}$'),
  updated_at timestamptz NOT NULL
);
CREATE INDEX iponz_clients_name_trgm ON iponz_clients USING gin (name_folded gin_trgm_ops);

CREATE TABLE iponz_client_addresses (
  client_id integer NOT NULL REFERENCES iponz_clients ON DELETE CASCADE,
  address_type text NOT NULL CHECK (address_type IN ('physical', 'postal', 'service')),
  line1 text,
  line2 text,
  line3 text,
  city text,
  -- The non-empty lines and city joined with ', ', case-folded (what the address term is matched against).
  search_text text NOT NULL,
  PRIMARY KEY (client_id, address_type)
);
CREATE INDEX iponz_client_addresses_trgm ON iponz_client_addresses USING gin (search_text gin_trgm_ops);

CREATE TABLE iponz_cases (
  kind text NOT NULL CHECK (kind IN ('patent', 'trademark', 'design')),
  case_number integer NOT NULL CHECK (case_number > 0),
  -- Patent title, mark title (MarkTitle) or design title (DesignTitle).
  title text NOT NULL,
  status text NOT NULL,
  status_date date NOT NULL,
  -- ApplicationDate (a patent: the complete specification's filing date, CompleteFiledDate).
  application_date date NOT NULL,
  -- The date renewals count from (domain/renewals.ts RenewalCase.filingDate).
  term_date date NOT NULL,
  registration_date date,
  -- The due date of the last renewal or maintenance fee paid; NULL: none yet.
  last_renewal_due_date date,
  international_application_number text,
  international_publication_number text,
  international_registration_number text,
  priority_country_code text CHECK (priority_country_code ~ '^[A-Z]{2}$'),
  mark_image_name text,
  novelty_statement text,
  -- Counts changes: the ETag of the case.
  version integer NOT NULL DEFAULT 1,
  -- TransactionDateTime: the last change; updated_on its New Zealand date (the date-range lists).
  updated_at timestamptz NOT NULL,
  updated_on date NOT NULL,
  PRIMARY KEY (kind, case_number),
  CHECK (registration_date IS NULL OR registration_date >= application_date),
  CHECK (kind = 'patent' OR (international_application_number IS NULL AND international_publication_number IS NULL)),
  CHECK (kind = 'trademark' OR (international_registration_number IS NULL AND mark_image_name IS NULL)),
  CHECK (kind = 'design' OR novelty_statement IS NULL)
);
CREATE INDEX iponz_cases_updated ON iponz_cases (kind, updated_on, case_number);
CREATE INDEX iponz_cases_registered ON iponz_cases (kind, registration_date, case_number)
  WHERE registration_date IS NOT NULL;

CREATE TABLE iponz_status_history (
  kind text NOT NULL,
  case_number integer NOT NULL,
  seq integer NOT NULL CHECK (seq > 0),
  status text NOT NULL,
  status_date date NOT NULL,
  recorded_at timestamptz NOT NULL,
  PRIMARY KEY (kind, case_number, seq),
  FOREIGN KEY (kind, case_number) REFERENCES iponz_cases ON DELETE CASCADE
);

CREATE TABLE iponz_case_parties (
  kind text NOT NULL,
  case_number integer NOT NULL,
  role text NOT NULL CHECK (role IN ('Applicant', 'Owner', 'Agent', 'Inventor', 'Address for Service')),
  position smallint NOT NULL CHECK (position > 0),
  client_id integer NOT NULL REFERENCES iponz_clients,
  PRIMARY KEY (kind, case_number, role, position),
  FOREIGN KEY (kind, case_number) REFERENCES iponz_cases ON DELETE CASCADE
);
CREATE INDEX iponz_case_parties_client ON iponz_case_parties (client_id);

CREATE TABLE iponz_case_documents (
  document_identifier text PRIMARY KEY CHECK (document_identifier ~ '^[0-9a-f]{16}$'),
  kind text NOT NULL,
  case_number integer NOT NULL,
  document_name text NOT NULL,
  object_format text NOT NULL CHECK (object_format IN ('pdf', 'jpeg', 'gif')),
  created_on date NOT NULL,
  FOREIGN KEY (kind, case_number) REFERENCES iponz_cases ON DELETE CASCADE
);
CREATE INDEX iponz_case_documents_case ON iponz_case_documents (kind, case_number);

-- Trade marks' goods and services, by Nice class (1–45).
CREATE TABLE iponz_goods_services (
  kind text NOT NULL DEFAULT 'trademark' CHECK (kind = 'trademark'),
  case_number integer NOT NULL,
  class_number smallint NOT NULL CHECK (class_number BETWEEN 1 AND 45),
  description text NOT NULL,
  PRIMARY KEY (kind, case_number, class_number),
  FOREIGN KEY (kind, case_number) REFERENCES iponz_cases ON DELETE CASCADE
);

-- Renewals paid through the API: one per (subscription, request id), so a repeat answers the first
-- answer again and charges nothing.
CREATE TABLE iponz_renewals (
  subscription_id text NOT NULL,
  request_id text NOT NULL,
  kind text NOT NULL,
  case_number integer NOT NULL,
  renewed_due_date date NOT NULL,
  -- json, not jsonb: a repeat answers the first answer byte for byte (key order kept).
  answer json NOT NULL,
  paid_at timestamptz NOT NULL,
  PRIMARY KEY (subscription_id, request_id),
  FOREIGN KEY (kind, case_number) REFERENCES iponz_cases ON DELETE CASCADE
);

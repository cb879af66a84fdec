-- Offers register (A): schemes, offers and funds with every version, their participants, documents and
-- filing history, fund holdings, and the compliance activities of funds. Organisations' authority over a
-- fund is identity's (`authorities`, kind `fund`), asked through the service context, never here.
--
-- A version row holds the whole record as it was (`document`, the answer's own fields in the register's
-- vocabulary); the record's own row holds what searches and new-or-changed read. Version identifiers are
-- `<number>-v<n>` (ours).

CREATE TABLE disclose_schemes (
  scheme_number text PRIMARY KEY CHECK (scheme_number ~ '^SCH[0-9]{5,}$'),
  name text NOT NULL,
  status text NOT NULL,
  scheme_type text NOT NULL,
  manager_nzbn text,
  manager_name text NOT NULL,
  supervisor_nzbn text,
  supervisor_name text,
  version integer NOT NULL CHECK (version >= 1),
  first_registered timestamptz NOT NULL,
  last_changed timestamptz NOT NULL
);
CREATE INDEX disclose_schemes_changed ON disclose_schemes (last_changed, scheme_number);

CREATE TABLE disclose_scheme_versions (
  scheme_number text NOT NULL REFERENCES disclose_schemes,
  version integer NOT NULL,
  changed_at timestamptz NOT NULL,
  change text NOT NULL,
  document jsonb NOT NULL,
  PRIMARY KEY (scheme_number, version)
);

CREATE TABLE disclose_offers (
  offer_number text PRIMARY KEY CHECK (offer_number ~ '^OFR[0-9]{5,}$'),
  scheme_number text REFERENCES disclose_schemes,
  name text NOT NULL,
  status text NOT NULL,
  product_type text NOT NULL,
  issuer_nzbn text,
  issuer_name text NOT NULL,
  open_date date,
  close_date date,
  version integer NOT NULL CHECK (version >= 1),
  first_registered timestamptz NOT NULL,
  last_changed timestamptz NOT NULL
);
CREATE INDEX disclose_offers_changed ON disclose_offers (last_changed, offer_number);
CREATE INDEX disclose_offers_scheme ON disclose_offers (scheme_number);

CREATE TABLE disclose_offer_versions (
  offer_number text NOT NULL REFERENCES disclose_offers,
  version integer NOT NULL,
  changed_at timestamptz NOT NULL,
  change text NOT NULL,
  document jsonb NOT NULL,
  PRIMARY KEY (offer_number, version)
);

CREATE TABLE disclose_funds (
  fund_number text PRIMARY KEY CHECK (fund_number ~ '^FND[0-9]{5,}$'),
  offer_number text NOT NULL REFERENCES disclose_offers,
  name text NOT NULL,
  fund_type text NOT NULL,
  -- Compliance periods are looked for from this day (activities).
  registered_on date NOT NULL,
  -- Whether full portfolio holdings are due (not for restricted schemes, nor outside a scheme).
  fph_required boolean NOT NULL,
  version integer NOT NULL CHECK (version >= 1),
  last_changed timestamptz NOT NULL
);
CREATE INDEX disclose_funds_offer ON disclose_funds (offer_number, fund_number);

-- A fund version records the version of its parent offer current when it was made, so the fund as it
-- was at offer version n is the latest fund version whose offer_version <= n.
CREATE TABLE disclose_fund_versions (
  fund_number text NOT NULL REFERENCES disclose_funds,
  version integer NOT NULL,
  offer_version integer NOT NULL,
  changed_at timestamptz NOT NULL,
  change text NOT NULL,
  document jsonb NOT NULL,
  -- The full portfolio holdings of this version: the version whose holdings rows hold them.
  holdings_version integer,
  holdings_period_end date,
  PRIMARY KEY (fund_number, version)
);
CREATE INDEX disclose_fund_versions_offer ON disclose_fund_versions (fund_number, offer_version);

-- Holdings rows belong to the fund version that filed them; later versions point at them. No foreign
-- key: a filing writes the version and its rows in one transaction, and 50,000 per-row checks would
-- cost more than the rows themselves.
CREATE TABLE disclose_fund_holdings (
  fund_number text NOT NULL,
  fund_version integer NOT NULL,
  line integer NOT NULL,
  asset_name text NOT NULL,
  asset_type text NOT NULL,
  isin text,
  value numeric(20, 2) NOT NULL,
  percentage_of_fund numeric(9, 4) NOT NULL,
  currency text NOT NULL,
  PRIMARY KEY (fund_number, fund_version, line)
);

-- People and organisations named on an offer or a scheme (offerors, manager, supervisor, custodian …).
CREATE TABLE disclose_participants (
  subject_kind text NOT NULL CHECK (subject_kind IN ('offer', 'scheme')),
  subject_number text NOT NULL,
  position integer NOT NULL,
  role text NOT NULL,
  name text NOT NULL,
  nzbn text,
  PRIMARY KEY (subject_kind, subject_number, position)
);

CREATE TABLE disclose_documents (
  document_rec_id text PRIMARY KEY CHECK (document_rec_id ~ '^DOC[0-9]{6,}$'),
  subject_kind text NOT NULL CHECK (subject_kind IN ('offer', 'scheme', 'fund')),
  subject_number text NOT NULL,
  document_type text NOT NULL,
  -- The notice a financial-markets-authority-notice document belongs to (its recid in the path).
  notice_rec_id text,
  title text NOT NULL,
  file_name text NOT NULL,
  content_type text NOT NULL,
  size_bytes integer NOT NULL CHECK (size_bytes BETWEEN 1 AND 20971520),
  -- The key of the bytes in the document store.
  storage_key text NOT NULL,
  added_at timestamptz NOT NULL
);
CREATE INDEX disclose_documents_subject ON disclose_documents (subject_kind, subject_number, document_type, added_at);

CREATE TABLE disclose_filing_history (
  id bigserial PRIMARY KEY,
  subject_kind text NOT NULL CHECK (subject_kind IN ('offer', 'scheme')),
  subject_number text NOT NULL,
  fund_number text,
  filed_at timestamptz NOT NULL,
  filing_type text NOT NULL,
  description text NOT NULL,
  late boolean NOT NULL DEFAULT false,
  -- The register organisation that filed it (its identifier); null for the register's own entries.
  filed_by text
);
CREATE INDEX disclose_filing_history_subject ON disclose_filing_history (subject_kind, subject_number, filed_at DESC, id DESC);

-- Compliance activities of a fund: one per kind and period. `filed_at` is set once, with the fund
-- version and history entry the filing wrote, in one transaction.
CREATE TABLE disclose_compliance_activities (
  fund_number text NOT NULL REFERENCES disclose_funds,
  kind text NOT NULL CHECK (kind IN ('FUND_UPDATE', 'FULL_PORTFOLIO_HOLDINGS')),
  period_end date NOT NULL,
  due_date date NOT NULL,
  filed_at timestamptz,
  late boolean,
  fund_version integer,
  filed_by text,
  PRIMARY KEY (fund_number, kind, period_end)
);
CREATE INDEX disclose_compliance_due ON disclose_compliance_activities (due_date);

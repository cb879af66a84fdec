-- The IP office's applications (SOAP /patent, /trademark), the examination simulator's state (sandbox),
-- and the correspondence of cases: tasks (/taskcorrespondence) and discussions (/discussioncorrespondence)
-- with their documents. The cases themselves are rows of iponz_cases (migration 001), so REST reads an
-- application filed by SOAP at once.

-- Application numbers: one counter row per kind. Allocation is `UPDATE … SET next_number = next_number + 1
-- RETURNING` inside the filing's transaction: the row lock serialises filings of one kind until commit,
-- so numbers never collide, and a filing that fails returns its number (no gaps). Numbers already used
-- (an imported case) are skipped by the store. Ours: filed numbers start above every generated range
-- (sandbox/generator.ts: patents from 500000, trade marks from 1000000, full scale up to 750051 and
-- 1600051), at 900000 and 1900000. Applicants given by their details become clients numbered from
-- 800000000 (generated clients end at 400007 at full scale).
CREATE TABLE iponz_case_numbers (
  kind text PRIMARY KEY CHECK (kind IN ('patent', 'trademark', 'client')),
  next_number integer NOT NULL CHECK (next_number > 0),
  last_number integer NOT NULL,
  CHECK (next_number <= last_number + 1)
);
INSERT INTO iponz_case_numbers (kind, next_number, last_number) VALUES
  ('patent', 900000, 999999),
  ('trademark', 1900000, 1999999),
  ('client', 800000000, 999999999);

-- Published international (PCT) applications that may enter the New Zealand national phase (ours: the
-- register of the international bureau is not part of this API; the sandbox seeds a documented set,
-- production imports them). A national phase application names one of these by its number.
CREATE TABLE iponz_international_applications (
  international_application_number text PRIMARY KEY CHECK (international_application_number ~ '^PCT/[A-Z]{2}[0-9]{4}/[0-9]{6}$'),
  international_publication_number text NOT NULL UNIQUE CHECK (international_publication_number ~ '^WO/[0-9]{4}/[0-9]{6}$'),
  international_filing_date date NOT NULL,
  -- The earliest priority date (the international filing date when none is claimed).
  priority_date date NOT NULL,
  priority_country_code text NOT NULL CHECK (priority_country_code ~ '^[A-Z]{2}$'),
  title text NOT NULL CHECK (title <> '')
);

-- One row per case filed through the API: who filed it (the registered user: their id is the
-- RequestorIdentifier, their email gets the discussions), and where the examination simulator stands.
CREATE TABLE iponz_applications (
  kind text NOT NULL CHECK (kind IN ('patent', 'trademark')),
  case_number integer NOT NULL,
  requestor_id text NOT NULL,
  requestor_email text,
  subscription_id text NOT NULL,
  -- ApplicationReference / PatentApplicationReference (the client's reference, AssociatedCaseClientReference).
  client_reference text NOT NULL,
  examination_requested boolean NOT NULL,
  filed_at timestamptz NOT NULL,
  -- The simulator's stage (domain/examination.ts) and the New Zealand date of its next step (NULL: none).
  stage text NOT NULL CHECK (stage IN ('awaiting-request', 'examination', 'report-issued', 'accepted', 'registered', 'abandoned')),
  next_step_on date,
  PRIMARY KEY (kind, case_number),
  FOREIGN KEY (kind, case_number) REFERENCES iponz_cases ON DELETE CASCADE
);
CREATE INDEX iponz_applications_due ON iponz_applications (next_step_on) WHERE next_step_on IS NOT NULL;
CREATE INDEX iponz_applications_requestor ON iponz_applications (requestor_id, client_reference);

-- Filings kept per requestor and TransactionIdentifier: a repeat answers the first answer (json: byte for
-- byte) and charges nothing.
CREATE TABLE iponz_filings (
  requestor_id text NOT NULL,
  transaction_identifier text NOT NULL,
  kind text NOT NULL,
  case_number integer NOT NULL,
  answer json NOT NULL,
  filed_at timestamptz NOT NULL,
  PRIMARY KEY (requestor_id, transaction_identifier),
  FOREIGN KEY (kind, case_number) REFERENCES iponz_cases ON DELETE CASCADE
);

-- Tasks: what the office asks the applicant to do (an examination report to answer), by case.
CREATE TABLE iponz_tasks (
  task_id bigint GENERATED ALWAYS AS IDENTITY (START WITH 70000001) PRIMARY KEY,
  kind text NOT NULL,
  case_number integer NOT NULL,
  requestor_id text NOT NULL,
  task_type text NOT NULL,
  title text NOT NULL,
  description text NOT NULL,
  created_on date NOT NULL,
  due_on date NOT NULL,
  status text NOT NULL CHECK (status IN ('open', 'completed', 'expired')),
  response_text text,
  completed_at timestamptz,
  FOREIGN KEY (kind, case_number) REFERENCES iponz_cases ON DELETE CASCADE
);
CREATE INDEX iponz_tasks_requestor ON iponz_tasks (requestor_id, due_on, task_id);
CREATE INDEX iponz_tasks_case ON iponz_tasks (kind, case_number);

-- Discussions: every formal step of a case, sent to the filer. `open`: the user may reply (a task waits);
-- `closed`: for information. `mailed_at` NULL: the email to the filer is still to be sent (the job).
CREATE TABLE iponz_discussions (
  discussion_id bigint GENERATED ALWAYS AS IDENTITY (START WITH 80000001) PRIMARY KEY,
  kind text NOT NULL,
  case_number integer NOT NULL,
  requestor_id text NOT NULL,
  task_id bigint REFERENCES iponz_tasks,
  subject text NOT NULL,
  body text NOT NULL,
  status text NOT NULL CHECK (status IN ('open', 'closed')),
  created_on date NOT NULL,
  created_at timestamptz NOT NULL,
  recipient_email text,
  mailed_at timestamptz,
  FOREIGN KEY (kind, case_number) REFERENCES iponz_cases ON DELETE CASCADE
);
CREATE INDEX iponz_discussions_requestor ON iponz_discussions (requestor_id, created_on, discussion_id);
CREATE INDEX iponz_discussions_unmailed ON iponz_discussions (discussion_id)
  WHERE mailed_at IS NULL AND recipient_email IS NOT NULL;

-- The documents of tasks and discussions (rows of iponz_case_documents, so they are downloadable by
-- ObjectIdentifier and listed with the case).
CREATE TABLE iponz_correspondence_documents (
  document_identifier text PRIMARY KEY REFERENCES iponz_case_documents ON DELETE CASCADE,
  task_id bigint REFERENCES iponz_tasks ON DELETE CASCADE,
  discussion_id bigint REFERENCES iponz_discussions ON DELETE CASCADE,
  CHECK ((task_id IS NULL) <> (discussion_id IS NULL))
);
CREATE INDEX iponz_correspondence_documents_task ON iponz_correspondence_documents (task_id);
CREATE INDEX iponz_correspondence_documents_discussion ON iponz_correspondence_documents (discussion_id);

-- Verification statements (published: each registration, amendment, renewal and discharge is confirmed
-- to the secured parties by email). Written in the change's own transaction, so a change never commits
-- without its statement nor the other way round; the service's job mails them (JobContext.mail, which
-- keeps every message in the gateway's outbox) and marks them sent.
CREATE TABLE ppsr_verification_statements (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  registration_number text NOT NULL REFERENCES ppsr_financing_statements (registration_number),
  version integer NOT NULL,
  change text NOT NULL CHECK (change IN ('Registered', 'Amended', 'Renewed', 'Discharged')),
  "to" text NOT NULL,
  subject text NOT NULL,
  text text NOT NULL,
  created_at timestamptz NOT NULL,
  sent_at timestamptz
);
CREATE INDEX ppsr_verification_statements_unsent ON ppsr_verification_statements (id) WHERE sent_at IS NULL;

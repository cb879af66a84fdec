-- Only a request id the caller sent is an idempotency key. A transaction sent without one is kept under
-- the id the gateway made for it (SEC_56 finds it by the id the answer carried), but that id is no key: a
-- later request that sends the same id explicitly is a request of its own, not a repeat. Rows kept
-- before this migration are taken as sent by their callers (what they were treated as).
ALTER TABLE ppsr_transactions ADD COLUMN request_id_supplied boolean NOT NULL DEFAULT true;
ALTER TABLE ppsr_transactions DROP CONSTRAINT ppsr_transactions_organisation_id_request_id_key;
CREATE UNIQUE INDEX ppsr_transactions_request_id ON ppsr_transactions (organisation_id, request_id)
  WHERE request_id_supplied;
CREATE INDEX ppsr_transactions_generated_request_id ON ppsr_transactions (organisation_id, request_id)
  WHERE NOT request_id_supplied;

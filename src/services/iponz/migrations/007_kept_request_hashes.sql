-- Renewals and filings are kept under their idempotency key (a renewal's request id, a filing's
-- TransactionIdentifier) by the platform's one implementation (platform/http/idempotency.ts), which tells
-- a repeat from a reuse of the key by the request's hash: the operation, the path and the canonical body.
-- Rows kept before have none: their repeat is recognised as before (a renewal by its case, a filing by
-- its kind of application).
ALTER TABLE iponz_renewals ADD COLUMN request_hash bytea;
ALTER TABLE iponz_filings ADD COLUMN request_hash bytea;

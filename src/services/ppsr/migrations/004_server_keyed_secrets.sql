-- PIN verifiers keyed by the server secret and kept answers encrypted with it (domain/pin-verifiers.ts,
-- domain/sealed-answers.ts). The secret is not in the database, so the rows of the old forms (an unkeyed
-- SHA-256 of the PIN; the answer in clear) are converted by the service when it starts
-- (store/key-conversion.ts), not here: these columns say which rows are converted.

-- The ids of the keys a verifier is made with, outermost first; null: the unkeyed SHA-256 of old (to be
-- converted); 'none': no PIN matches it (the sandbox's generated statements).
ALTER TABLE ppsr_financing_statements
  ADD COLUMN pin_key_ids text,
  ADD COLUMN debtor_pin_key_ids text;
COMMENT ON COLUMN ppsr_financing_statements.pin_hash IS
  'HMAC-SHA-256 of the PIN''s SHA-256 with the server keys pin_key_ids names (null ids: the old unkeyed SHA-256)';

-- The kept answer sealed (nonce, ciphertext, tag) with the server key response_key_id names; `response`
-- (in clear) is left only for rows not converted yet and for the fixed message of an abandoned transaction.
ALTER TABLE ppsr_transactions
  ADD COLUMN response_sealed bytea,
  ADD COLUMN response_key_id text,
  ADD CONSTRAINT ppsr_transactions_one_response CHECK (response IS NULL OR response_sealed IS NULL),
  ADD CONSTRAINT ppsr_transactions_sealed_key CHECK ((response_sealed IS NULL) = (response_key_id IS NULL));

-- The sandbox's seeded statements (no organisation) have verifiers of values no one holds, but for the
-- fixed test cases' (`FIX…`) published financing statement PIN: marked as matching no PIN here, so the
-- start's conversion has only the rest to rewrite.
UPDATE ppsr_financing_statements
   SET debtor_pin_key_ids = 'none',
       pin_key_ids = CASE WHEN registration_number LIKE 'FIX%' THEN NULL ELSE 'none' END
 WHERE organisation_id IS NULL;

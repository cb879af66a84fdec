-- Organisation-part fees move to the platform's ledger (billing's fee_records, created by billing's
-- migrations, which run before every service's). The register never recorded who made the call, so
-- the rows carried over belong to no organisation: the nil UUID, which no invoice takes. Their fee
-- code gains the register's prefix, as every code in the fee schedule has. Runs once (schema_migrations).
INSERT INTO fee_records
  (organisation_id, service, operation, fee_code, description, amount_cents, gst_cents, currency, channel,
   object_kind, object_id, charged_at)
SELECT '00000000-0000-0000-0000-000000000000', 'nzbn', 'createOrganisationPart', 'NZBN_' || fee_code,
       description, amount_cents, gst_cents, currency, 'API', 'organisation-part', opn, charged_at
  FROM nzbn_fee_records
 ORDER BY id;

DROP TABLE nzbn_fee_records;

-- PPSR_38 lists the caller's organisation's discharged statements only: its index leads with the
-- organisation, so one organisation's list never walks another's discharges.
DROP INDEX IF EXISTS ppsr_statements_discharged;
CREATE INDEX ppsr_statements_discharged_by_organisation
  ON ppsr_financing_statements (organisation_id, discharged_at, registration_number)
  WHERE discharged_at IS NOT NULL;

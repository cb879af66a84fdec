-- Change notices for the rendered-answer cache (store/answer-cache.ts): every statement that writes a
-- table an offer's or scheme's detail answer is made from sends `*` on `rsg_disclose_records`, delivered
-- at commit to every process listening on this database (never for a change that rolled back; identical
-- notices of one transaction are sent once). Statement triggers, so a filing or a seed costs one notice,
-- whoever writes: the register's code, the seed, an operator's SQL.
CREATE FUNCTION disclose_notice_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('rsg_disclose_records', '*');
  RETURN NULL;
END
$$;

CREATE TRIGGER disclose_schemes_notice AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON disclose_schemes
  FOR EACH STATEMENT EXECUTE FUNCTION disclose_notice_change();
CREATE TRIGGER disclose_scheme_versions_notice AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON disclose_scheme_versions
  FOR EACH STATEMENT EXECUTE FUNCTION disclose_notice_change();
CREATE TRIGGER disclose_offers_notice AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON disclose_offers
  FOR EACH STATEMENT EXECUTE FUNCTION disclose_notice_change();
CREATE TRIGGER disclose_offer_versions_notice AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON disclose_offer_versions
  FOR EACH STATEMENT EXECUTE FUNCTION disclose_notice_change();
CREATE TRIGGER disclose_funds_notice AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON disclose_funds
  FOR EACH STATEMENT EXECUTE FUNCTION disclose_notice_change();
CREATE TRIGGER disclose_fund_versions_notice AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON disclose_fund_versions
  FOR EACH STATEMENT EXECUTE FUNCTION disclose_notice_change();
CREATE TRIGGER disclose_participants_notice AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON disclose_participants
  FOR EACH STATEMENT EXECUTE FUNCTION disclose_notice_change();
CREATE TRIGGER disclose_documents_notice AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON disclose_documents
  FOR EACH STATEMENT EXECUTE FUNCTION disclose_notice_change();

-- Business ethnicity identifiers in the published values: Ethnicity MAORI or OTHER (PASIFIKA becomes
-- OTHER) and Factor, how much of the business is owned (OWNERSHIP becomes OWNERSHIP_50_PERCENT_OR_MORE,
-- the other factors the register form once listed OWNERSHIP_UNSPECIFIED, their description kept). The
-- documents are json kept byte for byte, so the text is rewritten where it stands, with a new version
-- and ETag (as migration 009 does).
CREATE FUNCTION nzbn_published_ethnicity(document text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT regexp_replace(
    regexp_replace(
      replace(document, '"ethnicity":"PASIFIKA"', '"ethnicity":"OTHER"'),
      '"identifyingFactor":"OWNERSHIP"', '"identifyingFactor":"OWNERSHIP_50_PERCENT_OR_MORE"', 'g'),
    '"identifyingFactor":"(DIRECTORS|EMPLOYEES|PHILOSOPHY_PRINCIPLES_GOALS_TIKANGA|MANAGEMENT_PRACTICES|BRANDING_MARKETING|TANGIBLE_ASSETS_TOANGA|INTANGIBLE_ASSETS_KAUPAPA_MAORI|OTHER_PLEASE_SPECIFY)"',
    '"identifyingFactor":"OWNERSHIP_UNSPECIFIED"', 'g')
$$;

-- store/rows.ts `documentEtag`: the first 27 characters of the document's SHA-256 in base64url.
CREATE FUNCTION nzbn_document_etag(document text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT left(translate(encode(sha256(convert_to(document, 'UTF8')), 'base64'), '+/=', '-_'), 27)
$$;

UPDATE nzbn_entities
   SET document = nzbn_published_ethnicity(document::text)::json,
       etag = nzbn_document_etag(nzbn_published_ethnicity(document::text)),
       version = version + 1
 WHERE document IS NOT NULL AND nzbn_published_ethnicity(document::text) <> document::text;

DROP FUNCTION nzbn_published_ethnicity(text);
DROP FUNCTION nzbn_document_etag(text);

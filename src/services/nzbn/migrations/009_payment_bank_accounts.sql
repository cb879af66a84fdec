-- Payment bank accounts in the published shape (PaymentBankAccountNumber): the written account
-- `"bankAccountNumber":"01-0902-0068389-00"` becomes its four parts beside `accountName` and `purpose`
-- (both unknown: null), in the published key order. The documents are json kept byte for byte (key order
-- is part of the answer), so the text is rewritten where it stands; every document changed gets a new
-- version and ETag, so no client keeps a copy of the old shape as current. Stored versions, history and
-- change events keep what they recorded at the time.
CREATE FUNCTION nzbn_published_bank_accounts(document text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT regexp_replace(
    document,
    '"bankAccountNumber":"([0-9]{2})-([0-9]{4})-([0-9]{7,8})-([0-9]{2,4})"',
    '"accountName":null,"bankId":"\1","bankBranch":"\2","accountBase":"\3","accountSuffix":"\4","purpose":null',
    'g'
  )
$$;

-- store/rows.ts `documentEtag`: the first 27 characters of the document's SHA-256 in base64url.
CREATE FUNCTION nzbn_document_etag(document text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT left(translate(encode(sha256(convert_to(document, 'UTF8')), 'base64'), '+/=', '-_'), 27)
$$;

UPDATE nzbn_entities
   SET document = nzbn_published_bank_accounts(document::text)::json,
       etag = nzbn_document_etag(nzbn_published_bank_accounts(document::text)),
       version = version + 1
 WHERE document IS NOT NULL AND strpos(document::text, '"bankAccountNumber"') > 0;

DROP FUNCTION nzbn_published_bank_accounts(text);
DROP FUNCTION nzbn_document_etag(text);

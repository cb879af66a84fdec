-- Organisation parts in the published shape (OrganisationPart): status, privacy and function in their
-- published values (ACTIVE/INACTIVE, PUBLIC/SHARED/PRIVATE, FUNCTION/PHYSICAL_LOCATION/DIGITAL_LOCATION),
-- purposes as items (E_INVOICING for invoicing, else OTHER with the old name as its description), part
-- addresses with the part address types (POSTAL, PHYSICAL, DELIVERY, INVOICE) and no end date, email
-- purposes INVOICE_ADDRESS or OTHER, `customData` as the `custom-data` list of key and value items and
-- `nzbnList` as `nzbn-list` ({nzbn} each). Each document is rebuilt in the published key order (a new
-- version; a part's ETag is the hash of the document as sent, made when it is read). Numbers handed out
-- by the old allocation operation stay reserved (they count in the allocation summary); nothing reserves
-- new ones.

CREATE FUNCTION nzbn_part_address_type(value text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN upper(value) IN ('POSTAL', 'PHYSICAL', 'DELIVERY', 'INVOICE') THEN upper(value)
              ELSE 'PHYSICAL' END
$$;

CREATE FUNCTION nzbn_published_part(d json) RETURNS json LANGUAGE sql AS $$
  SELECT json_build_object(
    'opn', d->'opn',
    'parentNzbn', d->'parentNzbn',
    'parentNzbnName', d->'parentNzbnName',
    'parentGln', d->'parentGln',
    'name', d->'name',
    'purposes', coalesce((
      SELECT json_agg(json_build_object(
               'uniqueIdentifier', nextval('nzbn_item_id_seq')::text,
               'purpose', CASE WHEN upper(p.value) IN ('E_INVOICING', 'OTHER', 'LOCATIONARRIVAL') THEN upper(p.value)
                               WHEN lower(p.value) LIKE '%invoic%' THEN 'E_INVOICING' ELSE 'OTHER' END,
               'purposeDescription', p.value) ORDER BY p.ordinality)
        FROM json_array_elements_text(d->'purposes') WITH ORDINALITY p), '[]'::json),
    'function', CASE WHEN d->>'function' IS NULL THEN NULL
                     WHEN upper(d->>'function') IN ('FUNCTION', 'PHYSICAL_LOCATION', 'DIGITAL_LOCATION')
                       THEN upper(d->>'function')
                     ELSE 'PHYSICAL_LOCATION' END,
    'organisationPartStatus', upper(d->>'organisationPartStatus'),
    'addresses', coalesce((
      SELECT json_agg(json_build_object(
               'uniqueIdentifier', a.value->'uniqueIdentifier', 'startDate', a.value->'startDate',
               'careOf', a.value->'careOf', 'address1', a.value->'address1', 'address2', a.value->'address2',
               'address3', a.value->'address3', 'address4', a.value->'address4', 'postCode', a.value->'postCode',
               'countryCode', a.value->'countryCode',
               'addressType', nzbn_part_address_type(a.value->>'addressType'),
               'pafId', a.value->'pafId') ORDER BY a.ordinality)
        FROM json_array_elements(d->'addresses') WITH ORDINALITY a), '[]'::json),
    'phoneNumbers', d->'phoneNumbers',
    'emailAddresses', coalesce((
      SELECT json_agg(json_build_object(
               'uniqueIdentifier', e.value->'uniqueIdentifier', 'emailAddress', e.value->'emailAddress',
               'emailPurpose', CASE WHEN e.value->>'emailPurpose' IS NULL THEN NULL
                                    WHEN upper(e.value->>'emailPurpose') = 'INVOICE_ADDRESS' THEN 'INVOICE_ADDRESS'
                                    ELSE 'OTHER' END,
               'emailPurposeDescription', e.value->'emailPurposeDescription',
               'startDate', e.value->'startDate') ORDER BY e.ordinality)
        FROM json_array_elements(d->'emailAddresses') WITH ORDINALITY e), '[]'::json),
    'gstNumber', d->'gstNumber',
    'paymentBankAccountNumber', d->'paymentBankAccountNumber',
    'custom-data', coalesce((
      SELECT json_agg(json_build_object(
               'uniqueIdentifier', nextval('nzbn_item_id_seq')::text, 'key', c.key, 'value', c.value,
               'startDate', d->'startDate') ORDER BY c.ordinality)
        FROM json_each_text(CASE WHEN json_typeof(d->'customData') = 'object' THEN d->'customData'
                                 ELSE '{}'::json END) WITH ORDINALITY c), '[]'::json),
    'privacy', upper(d->>'privacy'),
    'nzbn-list', coalesce((
      SELECT json_agg(json_build_object('nzbn', n.value) ORDER BY n.ordinality)
        FROM json_array_elements_text(d->'nzbnList') WITH ORDINALITY n), '[]'::json),
    'startDate', d->'startDate',
    'statusDate', d->'statusDate'
  )
$$;

ALTER TABLE nzbn_organisation_parts DROP CONSTRAINT nzbn_organisation_parts_status_check;
ALTER TABLE nzbn_organisation_parts DROP CONSTRAINT nzbn_organisation_parts_privacy_check;

WITH rebuilt AS (
  SELECT opn, nzbn_published_part(document) AS document
    FROM nzbn_organisation_parts WHERE document->'nzbnList' IS NOT NULL
)
UPDATE nzbn_organisation_parts p
   SET document = r.document,
       status = r.document->>'organisationPartStatus',
       privacy = r.document->>'privacy',
       function = r.document->>'function',
       version = p.version + 1
  FROM rebuilt r WHERE r.opn = p.opn;

ALTER TABLE nzbn_organisation_parts
  ADD CONSTRAINT nzbn_organisation_parts_status_check CHECK (status IN ('ACTIVE', 'INACTIVE')),
  ADD CONSTRAINT nzbn_organisation_parts_privacy_check CHECK (privacy IN ('PUBLIC', 'SHARED', 'PRIVATE'));

DROP FUNCTION nzbn_published_part(json);
DROP FUNCTION nzbn_part_address_type(text);

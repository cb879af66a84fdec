-- Overseas clients: every address has a country (ISO 3166-1 alpha-2; the register's clients so far are
-- all in New Zealand) and a postcode (optional: not every country has them). The client search's
-- address term keeps matching the three lines and the city only (spec part C, rule 5).
ALTER TABLE iponz_client_addresses
  ADD COLUMN postcode text CHECK (postcode ~ '^[A-Za-z0-9][A-Za-z0-9 -]{0,11}$'),
  ADD COLUMN country_code text NOT NULL DEFAULT 'NZ' CHECK (country_code ~ '^[A-Z]{2}$');

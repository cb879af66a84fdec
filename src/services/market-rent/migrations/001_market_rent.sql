-- Rental statistics (market-rent v2): the bonds, and the monthly histograms that answer /statistics.
--
-- A bond belongs to the month its tenancy started; it counts once it is lodged (lodged <= the day the
-- statistics are asked "as of"). The three *_cells tables hold every bond in the table, lodged or not;
-- the few bonds lodged after the as-of day are subtracted at query time (see the service README). All three are maintained in the same transaction as the bonds (import and seed).

CREATE TABLE market_rent_bonds (
  bond_id text PRIMARY KEY,
  tenancy_start date NOT NULL,
  lodged date NOT NULL,
  closed date,
  sa2_code integer NOT NULL,
  -- A bond recorded without a dwelling type is taken as a House (spec part B).
  dwelling_type text NOT NULL
    CHECK (dwelling_type IN ('Apartment', 'Boarding House', 'Flat', 'House', 'Room')),
  -- NULL: not available (published as NA).
  bedrooms smallint CHECK (bedrooms BETWEEN 1 AND 99),
  weekly_rent integer NOT NULL CHECK (weekly_rent > 0),
  bond_amount integer NOT NULL CHECK (bond_amount >= 0),
  CHECK (closed IS NULL OR closed >= tenancy_start)
);
CREATE INDEX market_rent_bonds_start ON market_rent_bonds (tenancy_start);
CREATE INDEX market_rent_bonds_lodged ON market_rent_bonds (lodged);

-- Position of a dwelling type in Apartment, Boarding House, Flat, House, Room (domain/factors.ts).
CREATE FUNCTION market_rent_dwelling_code(dwelling text) RETURNS smallint
  LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT (CASE dwelling WHEN 'Apartment' THEN 0 WHEN 'Boarding House' THEN 1 WHEN 'Flat' THEN 2
      WHEN 'House' THEN 3 WHEN 'Room' THEN 4 END)::smallint $$;

-- Position of a bedroom count in 1, 2, 3, 4, 5+, NA.
CREATE FUNCTION market_rent_bedrooms_code(bedrooms smallint) RETURNS smallint
  LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT (CASE WHEN bedrooms IS NULL THEN 5 WHEN bedrooms >= 5 THEN 4 ELSE bedrooms - 1 END)::smallint $$;

-- Histogram of weekly rents of the bonds whose tenancy started in `month`, per SA2 × dwelling × bedrooms:
-- for each rent, the number of bonds and the sum of their bond amounts.
CREATE TABLE market_rent_rent_cells (
  month date NOT NULL,
  sa2_code integer NOT NULL,
  dwelling smallint NOT NULL,
  bedrooms smallint NOT NULL,
  weekly_rent integer NOT NULL,
  bonds integer NOT NULL,
  bond_sum bigint NOT NULL,
  PRIMARY KEY (month, sa2_code, dwelling, bedrooms, weekly_rent)
);

-- Bonds closed in `month`.
CREATE TABLE market_rent_closed_cells (
  month date NOT NULL,
  sa2_code integer NOT NULL,
  dwelling smallint NOT NULL,
  bedrooms smallint NOT NULL,
  bonds integer NOT NULL,
  PRIMARY KEY (month, sa2_code, dwelling, bedrooms)
);

-- Bonds active at the end of `month` (started by then, not closed by then), for every month from a
-- cell's first tenancy up to the horizon: the last month in which any tenancy starts or closes, after
-- which nothing changes.
CREATE TABLE market_rent_active_cells (
  month date NOT NULL,
  sa2_code integer NOT NULL,
  dwelling smallint NOT NULL,
  bedrooms smallint NOT NULL,
  bonds integer NOT NULL,
  PRIMARY KEY (month, sa2_code, dwelling, bedrooms)
);

-- Each month of each cell table packed into one value, as /statistics reads it: entries sorted by cell
-- (and rent), each `sa2_code·64 + dwelling·8 + bedrooms` as int4, then for `rent` the rent (int4), the
-- bonds (int4) and the bond sum (float8), for `closed` and `active` the bonds (int4); big-endian. Kept in
-- step with the cell tables in the same transaction (store/aggregates.ts), so the first query after a
-- start reads a few megabytes instead of aggregating hundreds of thousands of rows.
CREATE TABLE market_rent_blocks (
  kind text NOT NULL CHECK (kind IN ('rent', 'closed', 'active')),
  month date NOT NULL,
  data bytea NOT NULL,
  PRIMARY KEY (kind, month)
);
-- Uncompressed: the values are dense binary, and reading them back is the first query's critical path.
ALTER TABLE market_rent_blocks ALTER COLUMN data SET STORAGE EXTERNAL;

-- One row. `revision` changes with every change to the bonds, so a process can tell whether the month
-- blocks it keeps in memory are still current; `seed_scale` records what the sandbox generator made.
CREATE TABLE market_rent_state (
  singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  revision bigint NOT NULL DEFAULT 0,
  horizon date,
  seed_scale text,
  seed_bonds bigint,
  seeded_at timestamptz
);
INSERT INTO market_rent_state DEFAULT VALUES;

-- Incremental maintenance adds and subtracts; cells that fall to zero are found through these and removed.
CREATE INDEX market_rent_rent_cells_empty ON market_rent_rent_cells (month) WHERE bonds = 0;
CREATE INDEX market_rent_closed_cells_empty ON market_rent_closed_cells (month) WHERE bonds = 0;
CREATE INDEX market_rent_active_cells_empty ON market_rent_active_cells (month) WHERE bonds = 0;

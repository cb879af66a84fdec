import { readFileSync } from 'node:fs';
import path from 'node:path';
import { REFERENCE_DATA_DIR } from '../../../platform/paths.ts';
import { buildGeography, type Geography } from '../domain/areas.ts';
import { GEO_FILES, type GeoTables, parseGeoTables } from '../domain/geo-csv.ts';

/** The Stats NZ 2019 geography shipped in reference-data/geo (CC BY 4.0). */
export const GEO_DIR = path.join(REFERENCE_DATA_DIR, 'geo');

/** Reads the geography tables from a directory holding the files of GEO_FILES. */
export function readGeoTables(directory: string): GeoTables {
  const read = (file: string) => readFileSync(path.join(directory, file), 'utf8');
  return parseGeoTables({ sa2: read(GEO_FILES.sa2), ta: read(GEO_FILES.ta), regc: read(GEO_FILES.regc) });
}

/** Loads the geography from a directory holding the CSV files of `reference-data/geo`. */
export function loadGeography(directory: string): Geography {
  return buildGeography(readGeoTables(directory));
}

let loaded: Geography | undefined;

/** The geography of GEO_DIR, loaded once per process (and once in the report thread). */
export function marketRentGeography(): Geography {
  loaded ??= loadGeography(GEO_DIR);
  return loaded;
}

import path from 'node:path';
import { REFERENCE_DATA_DIR } from '../../../platform/paths.ts';
import { type Geography, loadGeography } from './areas.ts';

/** The Stats NZ 2019 geography shipped in reference-data/geo (CC BY 4.0), loaded once per process. */
export const GEO_DIR = path.join(REFERENCE_DATA_DIR, 'geo');

let loaded: Geography | undefined;

export function marketRentGeography(): Geography {
  loaded ??= loadGeography(GEO_DIR);
  return loaded;
}

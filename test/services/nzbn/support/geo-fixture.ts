import path from 'node:path';
import { loadGeography } from '../../../../src/platform/geography.ts';
import { REFERENCE_DATA_DIR } from '../../../../src/platform/paths.ts';

/** The project's copy of the Stats NZ 2019 geographies (CC BY 4.0). */
export const GEO_DIRECTORY = path.join(REFERENCE_DATA_DIR, 'geo');

export const geography = loadGeography(GEO_DIRECTORY);

import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The project folder, whichever directory the process was started from. */
export const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Reference data kept in the repository (Stats NZ geography, CC BY 4.0). */
export const REFERENCE_DATA_DIR = path.join(PROJECT_ROOT, 'reference-data');

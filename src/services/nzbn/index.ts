import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ServiceDefinition } from '../registry.ts';
import { nzbnRoutes } from './routes/index.ts';
import { seedNzbn } from './store/seed.ts';

const here = path.dirname(fileURLToPath(import.meta.url));

/** The business number register (spec part E, `/nzbn/v5`): routes, migrations and the sandbox seed. */
export const nzbnService: ServiceDefinition = {
  id: 'nzbn',
  title: 'Business number register',
  path: '/nzbn/v5',
  version: '5',
  dialect: 'nzbn',
  routes: nzbnRoutes,
  migrations: path.join(here, 'migrations'),
  seed: (context) => seedNzbn(context),
};

import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { notFound } from '../errors.ts';

/**
 * The typed TypeScript client, packed (`npm run client:pack`: `npm pack` of packages/client, offline),
 * for `npm install <gateway>/portal/downloads/client.tgz` until it is published to a registry. Read from
 * the file on each request, so a repack is served at once; absent until packed.
 */
export const PACKED_CLIENT = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  '..',
  'packages',
  'client',
  'pack',
  'client.tgz',
);

export function downloadRoutes(scope: FastifyInstance, packed = PACKED_CLIENT): void {
  scope.get('/downloads/client.tgz', async (_request, reply) => {
    const bytes = await readFile(packed).catch(() => undefined);
    if (!bytes) throw notFound('The client is not packed on this server (npm run client:pack).');
    return reply
      .type('application/gzip')
      .header('Content-Disposition', 'attachment; filename="register-services-client.tgz"')
      .header('Cache-Control', 'no-cache')
      .send(bytes);
  });
}

import { readFile } from 'node:fs/promises';
import type { FastifyInstance } from 'fastify';
import { PLATFORM_ERRORS } from '../../platform/http/error-codes.ts';
import { HttpError } from '../../platform/http/errors.ts';
import { notFound } from '../errors.ts';
import { type ClientPackage, clientPackage } from '../operations/client-package.ts';

/** How long a download asks to wait while the client is being packed. */
const PACKING_RETRY_AFTER_SECONDS = 30;

/**
 * The typed TypeScript client, packed, for `npm install <gateway>/portal/downloads/client.tgz` until it
 * is published to a registry (operations/client-package.ts). Read from the file on each request, so a
 * repack is served at once. While it is being packed (missing or older than its sources), or when
 * packing failed, the answer is a 503 that says so; a server without the package at all answers 404.
 */
export function downloadRoutes(scope: FastifyInstance, packed: ClientPackage = clientPackage): void {
  scope.get('/downloads/client.tgz', async (_request, reply) => {
    const found = await packed.state();
    if (found.state === 'unavailable')
      throw notFound(`The typed client is not available here. ${found.reason}`);
    if (found.state === 'packing') {
      throw new HttpError(
        PLATFORM_ERRORS.serviceUnavailable,
        `The typed client is being packed on this server (it was missing or older than its sources). Try again in ${PACKING_RETRY_AFTER_SECONDS} seconds.`,
        [],
        { 'Retry-After': String(PACKING_RETRY_AFTER_SECONDS) },
      );
    }
    if (found.state === 'failed') {
      throw new HttpError(
        PLATFORM_ERRORS.serviceUnavailable,
        `The typed client could not be packed on this server: ${found.reason}. An operator runs "npm run client:pack" to see why; the server tries again in a few minutes.`,
        [],
        { 'Retry-After': '300' },
      );
    }
    const bytes = await readFile(found.file).catch(() => undefined);
    if (!bytes) {
      throw new HttpError(
        PLATFORM_ERRORS.serviceUnavailable,
        `The typed client is being replaced on this server. Try again in ${PACKING_RETRY_AFTER_SECONDS} seconds.`,
        [],
        { 'Retry-After': String(PACKING_RETRY_AFTER_SECONDS) },
      );
    }
    return reply
      .type('application/gzip')
      .header('Content-Disposition', 'attachment; filename="register-services-client.tgz"')
      .header('Cache-Control', 'no-cache')
      .send(bytes);
  });
}

import type { FastifyInstance, FastifyReply } from 'fastify';
import { FAVICON, SCRIPT, STYLE } from '../pages/assets.ts';
import { REFERENCE_SCRIPT, SWAGGER_VERSION, swaggerAsset } from '../pages/reference.ts';

/**
 * The portal's assets, from memory: its stylesheet, script and icon and the script that starts the
 * reference (a day's caching; the pages name them with a hash of their text), Swagger UI's bundle and
 * stylesheet under their version (cached for good; read from the package on first use).
 */
const DAY = 'public, max-age=86400';
const IMMUTABLE = 'public, max-age=31536000, immutable';

const send = (reply: FastifyReply, asset: { body: string | Buffer; type: string }, cache: string) =>
  reply.type(asset.type).header('Cache-Control', cache).send(asset.body);

export function assetRoutes(scope: FastifyInstance): void {
  const serve = (body: string, type: string) => async (_request: unknown, reply: FastifyReply) =>
    send(reply, { body, type }, DAY);
  scope.get('/assets/portal.css', serve(STYLE, 'text/css; charset=utf-8'));
  scope.get('/assets/portal.js', serve(SCRIPT, 'text/javascript; charset=utf-8'));
  scope.get('/assets/favicon.svg', serve(FAVICON, 'image/svg+xml'));
  scope.get('/assets/reference.js', serve(REFERENCE_SCRIPT, 'text/javascript; charset=utf-8'));
  scope.get(`/assets/swagger-ui/${SWAGGER_VERSION}/swagger-ui-bundle.js`, async (_request, reply) =>
    send(reply, swaggerAsset('swagger-ui-bundle.js'), IMMUTABLE),
  );
  scope.get(`/assets/swagger-ui/${SWAGGER_VERSION}/swagger-ui.css`, async (_request, reply) =>
    send(reply, swaggerAsset('swagger-ui.css'), IMMUTABLE),
  );
}

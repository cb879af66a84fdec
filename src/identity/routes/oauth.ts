import { createHmac } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type Provider from 'oidc-provider';
import { isDatabaseUnavailable } from '../../platform/db/faults.ts';
import { bodyTooLarge, sendError, toHttpError } from '../../platform/http/errors.ts';
import { findInvalidFormText } from '../../platform/http/input-text.ts';
import type { Runtime } from '../../runtime.ts';
import { DATABASE_AWAY, OAUTH_PREFIX } from '../oauth/prefix.ts';
import { loadSigningKeys } from '../operations/signing-keys.ts';
import { interactionRoutes } from './interaction.ts';

/**
 * Mounts the authorization server at /oauth2 (the provider rebuilt when the signing keys change) and
 * its login and consent pages (interaction.ts). The provider, and its library, are loaded at the first
 * request that needs them: most processes that build the app (a test suite's, a command's) serve none.
 */
const TOKEN_PATHS = new Set(['/token', '/token/introspection', '/token/revocation']);
/** The most a token request's form may hold (the provider's own limit for the bodies it reads). */
const TOKEN_FORM_LIMIT = 56 * 1024;

/**
 * Public documents any web page may read: discovery and the signing keys. They are answered with
 * `Access-Control-Allow-Origin: *` and never with `Access-Control-Allow-Credentials` (the provider's own
 * handling echoes the origin instead; a header set first makes it stand aside).
 */
const OPEN_DOCUMENTS = new Set(['/.well-known/openid-configuration', '/jwks']);

function openDocument(path: string): boolean {
  return OPEN_DOCUMENTS.has(path.split('?')[0]!.replace(/\/+$/, ''));
}

/**
 * A client may send its secret in the form body (client_secret_post) or in the Authorization header
 * (client_secret_basic); oidc-provider holds each client to one method, so a posted secret is moved into
 * the header before the provider reads the request, which gets a fresh stream with the rewritten body.
 */
function withClientSecretInHeader(
  raw: IncomingMessage & { originalUrl?: string },
  body: string,
): IncomingMessage {
  const params = new URLSearchParams(body);
  const secret = params.get('client_secret');
  const clientId = params.get('client_id');
  const headers = { ...raw.headers };
  if (secret !== null && clientId && !headers.authorization) {
    const encode = (value: string) => encodeURIComponent(value).replace(/%20/g, '+');
    headers.authorization = `Basic ${Buffer.from(`${encode(clientId)}:${encode(secret)}`).toString('base64')}`;
    params.delete('client_secret');
    params.delete('client_id');
  }
  const rewritten = Buffer.from(params.toString());
  headers['content-length'] = String(rewritten.length);
  const stream = Readable.from([rewritten]);
  return Object.assign(stream, {
    headers,
    rawHeaders: raw.rawHeaders,
    method: raw.method,
    url: raw.url,
    originalUrl: raw.originalUrl,
    httpVersion: raw.httpVersion,
    httpVersionMajor: raw.httpVersionMajor,
    httpVersionMinor: raw.httpVersionMinor,
    socket: raw.socket,
    connection: raw.socket,
  }) as unknown as IncomingMessage;
}

export async function oauthRoutes(app: FastifyInstance, runtime: Runtime): Promise<void> {
  const pool = runtime.gateway.pool;
  const publishedFor = Math.max(runtime.config.oauth.accessTokenTtl, runtime.config.oauth.refreshTokenTtl);
  const cookieSecret = createHmac('sha256', runtime.secret).update('oidc-cookies').digest('base64url');
  const build = async () => {
    const { createProvider } = await import('../oauth/provider.ts');
    const built = createProvider({
      config: runtime.config,
      pool,
      issuer: runtime.issuer,
      keys: await loadSigningKeys(pool, publishedFor),
      cookieSecret,
      services: runtime.services,
    });
    // The provider answers its own faults (500 in the OAuth shape) and only emits them: log them, through
    // the app's logger, whose error serializer censors secrets a message might quote. A database outage
    // is answered 503 by the provider's own listener and logged where the outage is noticed.
    built.on('server_error', (_ctx: unknown, error: Error) => {
      if (!isDatabaseUnavailable(error)) app.log.error({ err: error }, 'authorization server error');
    });
    return built;
  };
  let provider: Promise<Provider> | undefined;
  // Built at its first use; a build that failed (the database away) is tried again by the next request.
  const current = (): Promise<Provider> => {
    if (provider) return provider;
    const building = build();
    provider = building;
    building.catch(() => {
      if (provider === building) provider = undefined;
    });
    return building;
  };
  // A rotated key must sign new tokens in every process: rebuild the provider when keys change.
  runtime.feed.on((notice) => {
    if (notice.kind === 'signing-keys' && provider) {
      build().then(
        (fresh) => {
          provider = Promise.resolve(fresh);
        },
        () => {},
      );
    }
  });

  const pass = async (request: FastifyRequest, reply: FastifyReply) => {
    // Before anything is changed or hijacked: a provider that cannot be built is this request's error.
    const answering = await current();
    const raw = request.raw as IncomingMessage & { originalUrl?: string };
    const original = raw.url ?? '/';
    // `/oauth2?x` is the root with a query: the provider needs a path that starts with a slash.
    const rest = original.slice(OAUTH_PREFIX.length);
    const path = rest.startsWith('/') ? rest : `/${rest}`;
    if (openDocument(path)) {
      if (request.method === 'OPTIONS') {
        const asked = request.headers['access-control-request-headers'];
        reply.code(204).header('Access-Control-Allow-Origin', '*');
        reply.header('Access-Control-Allow-Methods', 'GET, HEAD').header('Access-Control-Max-Age', '3600');
        if (typeof asked === 'string' && asked.trim()) reply.header('Access-Control-Allow-Headers', asked);
        return reply.send();
      }
      reply.raw.setHeader('Access-Control-Allow-Origin', '*');
    }
    raw.originalUrl = original;
    raw.url = path;
    // A hijacked reply skips the onSend hook that names the request (app.ts): named here.
    reply.raw.setHeader('api-business-govt-nz-Request-Id', request.id);
    reply.hijack();
    const body = request.body;
    answering.callback()(typeof body === 'string' ? withClientSecretInHeader(raw, body) : raw, reply.raw);
  };

  await app.register(
    async (scope) => {
      scope.removeAllContentTypeParsers();
      // Token requests are read here, to accept client_secret_post; everything else stays in the stream.
      scope.addContentTypeParser('application/x-www-form-urlencoded', (request, payload, done) => {
        const path = (request.url.slice(OAUTH_PREFIX.length) || '/').split('?')[0]!;
        if (!TOKEN_PATHS.has(path)) return done(null);
        // Over the limit (declared or as it arrives): 413 at once, and nothing more is kept.
        if (Number(request.headers['content-length']) > TOKEN_FORM_LIMIT) {
          return done(bodyTooLarge(TOKEN_FORM_LIMIT));
        }
        const chunks: Buffer[] = [];
        let size = 0;
        const collect = (chunk: Buffer) => {
          size += chunk.length;
          if (size <= TOKEN_FORM_LIMIT) return void chunks.push(chunk);
          payload.removeListener('data', collect);
          chunks.length = 0;
          payload.resume();
          done(bodyTooLarge(TOKEN_FORM_LIMIT));
        };
        payload.on('data', collect);
        // A raw NUL byte decodes to the same value as %00: written so, the request reaches the provider,
        // which answers a NUL in any parameter in the OAuth error shape (the gateway's own text check
        // would refuse the raw body in problem+json, a dialect OAuth clients do not read).
        payload.on('end', () => {
          if (size > TOKEN_FORM_LIMIT) return;
          const body = Buffer.concat(chunks);
          // Bytes that are not UTF-8 would reach the provider as U+FFFD, a different value from the one
          // sent: refused here, naming the parameter, in the OAuth error shape (below).
          const invalid = findInvalidFormText(body);
          if (invalid) return done(invalid);
          done(null, body.toString('utf8').replaceAll('\u0000', '%00'));
        });
        payload.on('error', (error) => {
          if (size <= TOKEN_FORM_LIMIT) done(error);
        });
      });
      // What the token parser refuses is answered as the authorization server answers (RFC 6749 §5.2);
      // what the gateway refuses elsewhere here (%00 in a query, say) stays problem+json.
      scope.setErrorHandler((error, request, reply) => {
        const failure = toHttpError(error, request);
        // The provider's first build (its signing keys read) met a database outage: answered as the
        // provider answers one (provider.ts), in its JSON. (A client that went away is not an outage:
        // toHttpError tells the two apart and logs that one.)
        if (failure.status === 503 && isDatabaseUnavailable(error)) {
          return reply
            .code(DATABASE_AWAY.status)
            .header('Retry-After', String(DATABASE_AWAY.retryAfter))
            .header('Cache-Control', 'no-store')
            .send({ error: DATABASE_AWAY.error, error_description: DATABASE_AWAY.description });
        }
        if (failure.status >= 500) request.log.error({ err: error }, 'request failed');
        const path = (request.url.slice(OAUTH_PREFIX.length) || '/').split('?')[0]!;
        if (!TOKEN_PATHS.has(path)) return sendError(request, reply, failure);
        return reply
          .code(failure.status)
          .header('Cache-Control', 'no-store')
          .send({ error: 'invalid_request', error_description: failure.message });
      });
      // Anything else (JSON for registration, say) is left in the stream for the provider to read.
      scope.addContentTypeParser('*', (_request, _payload, done) => done(null));
      scope.all('/*', pass);
      scope.all('/', pass);
    },
    { prefix: OAUTH_PREFIX },
  );

  await interactionRoutes(app, runtime, current);
}

import cookie from '@fastify/cookie';
import type { FastifyInstance } from 'fastify';
import { statusTitle, toHttpError } from '../platform/http/errors.ts';
import { html } from '../platform/http/html.ts';
import { installFormParser } from '../platform/http/input-text.ts';
import type { MailSettings } from '../platform/mail.ts';
import type { Runtime } from '../runtime.ts';
import { notFound, SignInRequired } from './errors.ts';
import { sendPage } from './pages/layout.ts';
import { approvalRoutes } from './routes/approvals.ts';
import { assetRoutes } from './routes/assets.ts';
import { authRoutes } from './routes/auth.ts';
import { billingRoutes } from './routes/billing.ts';
import { bulkDataRoutes } from './routes/bulk-data.ts';
import { clientRoutes } from './routes/clients.ts';
import { dataRequestRoutes } from './routes/data-requests.ts';
import { downloadRoutes } from './routes/downloads.ts';
import { inspectorRoutes } from './routes/inspector.ts';
import { landingRoutes } from './routes/landing.ts';
import { myMailRoutes } from './routes/my-mail.ts';
import { productRoutes } from './routes/products.ts';
import { sandboxRoutes } from './routes/sandbox.ts';
import { subscriptionRoutes } from './routes/subscriptions.ts';
import { tryRoutes } from './routes/try-it.ts';
import { usageRoutes } from './routes/usage.ts';
import { PortalSessions, portalContext } from './session.ts';

/**
 * The developer portal at /portal: server-rendered pages (see README.md in this folder). Every POST
 * carries the session's CSRF token; errors are rendered as pages, never as 500s for bad input.
 */
export const PORTAL_PREFIX = '/portal';
const FORM_LIMIT = 64 * 1024;

export interface PortalDeps {
  app: FastifyInstance;
  runtime: Runtime;
  sessions: PortalSessions;
  mail: MailSettings;
}

const SECURITY_HEADERS = {
  'Cache-Control': 'no-store',
  'Content-Security-Policy':
    "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'same-origin',
};

export async function portalRoutes(app: FastifyInstance, runtime: Runtime): Promise<void> {
  // The site's front door leads to the portal.
  app.get('/', { schema: { hide: true } }, async (_request, reply) => reply.redirect(PORTAL_PREFIX, 302));
  const pool = runtime.gateway.pool;
  const secure = runtime.config.publicUrl?.startsWith('https:') ?? false;
  const deps: PortalDeps = {
    app,
    runtime,
    sessions: new PortalSessions(pool, runtime.secret, runtime.config.oauth.sessionTtl, secure),
    mail: { pool, smtpUrl: runtime.config.smtpUrl, from: runtime.config.mailFrom },
  };

  await app.register(
    async (scope) => {
      scope.addHook('onRoute', (route) => {
        // The operators' data-request answer sets its own limit (200 MB, streamed to disk).
        if (!(route.config as { upload?: boolean } | undefined)?.upload) route.bodyLimit = FORM_LIMIT;
      });
      await scope.register(cookie);
      installFormParser(scope);
      scope.addHook('onRequest', async (request, reply) => {
        request.dialect = 'problem';
        reply.headers(SECURITY_HEADERS);
      });
      scope.addHook('preHandler', async (request) => {
        if (request.url.startsWith('/portal/assets/')) return;
        await deps.sessions.load(request);
        if (request.method !== 'GET' && request.method !== 'HEAD') deps.sessions.verifyCsrf(request);
      });
      scope.setErrorHandler((error, request, reply) => {
        if (error instanceof SignInRequired) {
          return reply.redirect(`/portal/signin?next=${encodeURIComponent(error.next)}`, 303);
        }
        const failure = toHttpError(error, request);
        if (failure.status >= 500) request.log.error({ err: error }, 'portal request failed');
        for (const [name, value] of Object.entries(failure.headers)) reply.header(name, value);
        return sendPage(
          request,
          reply,
          statusTitle(failure.status),
          html`<section class="card"><h1>${statusTitle(failure.status)}</h1><p role="alert">${failure.message}</p>
<p><a href="/portal">Back to the portal</a></p></section>`,
          failure.status,
        );
      });
      scope.setNotFoundHandler(async (request) => {
        if (!portalContext(request).sessionHash) await deps.sessions.load(request).catch(() => undefined);
        throw notFound('There is no such page in the portal.');
      });

      assetRoutes(scope);
      downloadRoutes(scope);
      landingRoutes(scope, deps);
      authRoutes(scope, deps);
      productRoutes(scope, deps);
      subscriptionRoutes(scope, deps);
      usageRoutes(scope, deps);
      inspectorRoutes(scope, deps);
      approvalRoutes(scope, deps);
      clientRoutes(scope, deps);
      tryRoutes(scope, deps);
      billingRoutes(scope, deps);
      sandboxRoutes(scope, deps);
      bulkDataRoutes(scope, deps);
      dataRequestRoutes(scope, deps);
      myMailRoutes(scope, deps);
    },
    { prefix: PORTAL_PREFIX },
  );
}

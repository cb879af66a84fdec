import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type Provider from 'oidc-provider';
import { PROBLEM_ERRORS } from '../../platform/http/error-codes.ts';
import { HttpError } from '../../platform/http/errors.ts';
import { installFormParser } from '../../platform/http/input-text.ts';
import type { Runtime } from '../../runtime.ts';
import { csrfMatches, csrfToken } from '../domain/csrf.ts';
import { OAUTH_PREFIX } from '../oauth/prefix.ts';
import { signIn } from '../operations/users.ts';
import { consentPage, loginPage } from './pages.ts';

/**
 * The authorization server's login and consent pages at /oauth2/interaction/{uid}, which stand in for
 * the national identity provider (see src/identity/README.md for federating a real one): each form with
 * a CSRF token bound to the interaction, login throttled per email and address.
 */
function pageSecurityPolicy(redirectUri?: string): string {
  let formAction = "'self'";
  try {
    if (redirectUri) {
      const url = new URL(redirectUri);
      // Only web origins can be named in CSP; a custom-scheme app redirect is named by its scheme.
      formAction +=
        url.protocol === 'http:' || url.protocol === 'https:' ? ` ${url.origin}` : ` ${url.protocol}`;
    }
  } catch {
    // The provider refuses a malformed redirect URI before any page is shown.
  }
  return `default-src 'none'; style-src 'unsafe-inline'; form-action ${formAction}; frame-ancestors 'none'`;
}

export async function interactionRoutes(
  app: FastifyInstance,
  runtime: Runtime,
  current: () => Promise<Provider>,
): Promise<void> {
  const pool = runtime.gateway.pool;
  await app.register(
    async (scope) => {
      installFormParser(scope);
      scope.addHook('onRequest', async (request, reply) => {
        request.dialect = 'problem';
        reply.header('Cache-Control', 'no-store');
        reply.header('Content-Security-Policy', pageSecurityPolicy());
        reply.header('X-Frame-Options', 'DENY');
      });
      const details = async (request: FastifyRequest, reply: FastifyReply) =>
        (await current()).interactionDetails(request.raw, reply.raw).catch(() => {
          throw new HttpError(
            PROBLEM_ERRORS.interactionExpired,
            'This sign-in has expired or was already used. Start again from the application.',
          );
        });

      scope.get<{ Params: { uid: string } }>('/:uid', async (request, reply) => {
        const interaction = await details(request, reply);
        const csrf = csrfToken(runtime.secret, interaction.uid);
        // Browsers apply form-action to the redirects that follow a submitted form, and this one ends at
        // the client's redirect URI (already matched exactly against its registration by the provider).
        reply.header(
          'Content-Security-Policy',
          pageSecurityPolicy(String(interaction.params.redirect_uri ?? '')),
        );
        if (interaction.prompt.name === 'login')
          return reply.type('text/html').send(loginPage({ uid: interaction.uid, csrf }));
        const client = await (await current()).Client.find(String(interaction.params.client_id));
        return reply.type('text/html').send(
          consentPage({
            uid: interaction.uid,
            csrf,
            clientName: String(client?.clientName ?? interaction.params.client_id),
            scopes: String(interaction.params.scope ?? '')
              .split(' ')
              .filter(Boolean),
            resource: String(interaction.params.resource ?? ''),
          }),
        );
      });

      scope.post<{ Params: { uid: string }; Body: Record<string, string> }>(
        '/:uid/login',
        async (request, reply) => {
          const interaction = await details(request, reply);
          const csrf = csrfToken(runtime.secret, interaction.uid);
          if (!csrfMatches(runtime.secret, interaction.uid, request.body?.csrf)) {
            throw new HttpError(PROBLEM_ERRORS.csrf, 'The form has expired; go back and try again.');
          }
          const email = String(request.body?.email ?? '')
            .trim()
            .toLowerCase();
          const password = String(request.body?.password ?? '');
          const throttle = await runtime.limits.check({
            key: `login:${email}|${request.ip}`,
            rate: { limit: 10, windowMs: 15 * 60_000 },
          });
          if (!throttle.allowed) {
            const minutes = Math.ceil(throttle.retryAfterMs / 60_000);
            reply.header('Retry-After', String(Math.ceil(throttle.retryAfterMs / 1000)));
            const error = `Too many attempts. Try again in ${minutes} minutes.`;
            return sendLoginPage(reply, 429, { uid: interaction.uid, csrf, email, error });
          }
          const user = await signIn(pool, email, password);
          if (!user) {
            const error = 'The email or password is wrong.';
            return sendLoginPage(reply, 401, { uid: interaction.uid, csrf, email, error });
          }
          const redirect = await (await current()).interactionResult(
            request.raw,
            reply.raw,
            { login: { accountId: user.id } },
            { mergeWithLastSubmission: false },
          );
          return reply.redirect(redirect, 303);
        },
      );

      scope.post<{ Params: { uid: string }; Body: Record<string, string> }>(
        '/:uid/confirm',
        async (request, reply) => {
          const interaction = await details(request, reply);
          if (!csrfMatches(runtime.secret, interaction.uid, request.body?.csrf)) {
            throw new HttpError(PROBLEM_ERRORS.csrf, 'The form has expired; go back and try again.');
          }
          if (interaction.prompt.name !== 'consent' || !interaction.session?.accountId) {
            throw new HttpError(PROBLEM_ERRORS.interactionState, 'Sign in first.');
          }
          const result =
            request.body?.decision === 'approve'
              ? { consent: { grantId: await grantFor(await current(), interaction) } }
              : { error: 'access_denied', error_description: 'The user declined.' };
          const redirect = await (await current()).interactionResult(request.raw, reply.raw, result, {
            mergeWithLastSubmission: true,
          });
          return reply.redirect(redirect, 303);
        },
      );
    },
    { prefix: `${OAUTH_PREFIX}/interaction` },
  );
}

type Interaction = Awaited<ReturnType<Provider['interactionDetails']>>;

async function grantFor(provider: Provider, interaction: Interaction): Promise<string> {
  const accountId = interaction.session!.accountId;
  const clientId = String(interaction.params.client_id);
  const existing = interaction.grantId ? await provider.Grant.find(interaction.grantId) : undefined;
  const grant = existing ?? new provider.Grant({ accountId, clientId });
  const details = interaction.prompt.details as {
    missingOIDCScope?: string[];
    missingOIDCClaims?: string[];
    missingResourceScopes?: Record<string, string[]>;
  };
  if (details.missingOIDCScope) grant.addOIDCScope(details.missingOIDCScope.join(' '));
  if (details.missingOIDCClaims) grant.addOIDCClaims(details.missingOIDCClaims);
  for (const [indicator, scopes] of Object.entries(details.missingResourceScopes ?? {})) {
    grant.addResourceScope(indicator, scopes.join(' '));
  }
  return grant.save();
}

/** The sign-in page again, with what went wrong, under the answer's status. */
function sendLoginPage(
  reply: FastifyReply,
  status: number,
  state: Parameters<typeof loginPage>[0],
): FastifyReply {
  return reply.code(status).type('text/html').send(loginPage(state));
}

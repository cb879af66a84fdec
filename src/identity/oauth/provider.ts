import Provider, { type Configuration, errors, type KoaContextWithOIDC } from 'oidc-provider';
import type { Pool } from 'pg';
import type { Config } from '../../config.ts';
import { isDatabaseUnavailable } from '../../platform/db/faults.ts';
import { html, page } from '../../platform/http/html.ts';
import type { Environment, ServiceDefinition } from '../../services/contract.ts';
import { MAX_AUTHORITY_CLAIMS } from '../domain/authorities.ts';
import { secretMatches } from '../domain/clients.ts';
import { defaultScope, environmentOfResource, resourceFor, serviceScopes } from '../domain/scopes.ts';
import { SIGNING_ALG, type SigningKeys } from '../domain/signing-keys.ts';
import { authorityClaims } from '../store/authorities.ts';
import { findUserById } from '../store/users.ts';
import { postgresAdapter } from './adapter.ts';
import { DATABASE_AWAY, OAUTH_PREFIX } from './prefix.ts';

/**
 * The authorization server, on oidc-provider (a certified OpenID Provider), mounted at /oauth2:
 * discovery, JWKS (keys from the database), client credentials, authorization code with PKCE through
 * our own login and consent pages, refresh tokens, and JWT access tokens whose audience is the
 * environment.
 */

export interface ProviderOptions {
  config: Config;
  pool: Pool;
  issuer: string;
  keys: SigningKeys;
  cookieSecret: string;
  /** The services whose scopes the authorization server grants. */
  services: readonly ServiceDefinition[];
}

/** Addresses a browser is sent to (authorization, sign-out): their errors are pages, never JSON. */
const BROWSER_PATHS: ReadonlySet<string> = new Set(['/auth', '/session/end']);

/** The provider's error page (and ours, for requests it does not route). */
const renderError: NonNullable<Configuration['renderError']> = async (ctx, out) => {
  ctx.type = 'html';
  ctx.body = page(
    'Sign-in error',
    html`<section class="card"><h1>Sign-in could not continue</h1>
<p><strong>${out.error}</strong>: ${out.error_description ?? ''}</p></section>`,
  );
};

export function createProvider(options: ProviderOptions): Provider {
  const provider = new Provider(options.issuer, configurationOf(options));
  provider.proxy = true;
  answerUnroutedRequests(provider);
  answerDatabaseAway(provider);
  compareHashedClientSecrets(provider);
  return provider;
}

/** The provider's configuration: adapter, keys, cookies, scopes, grants, lifetimes and token claims. */
function configurationOf(options: ProviderOptions): Configuration {
  const { config, pool } = options;
  const base = config.oauth.resourceBase;
  return {
    adapter: postgresAdapter(pool),
    jwks: { keys: options.keys.privateKeys as never },
    cookies: {
      keys: [options.cookieSecret],
      long: { httpOnly: true, sameSite: 'lax' },
      short: { httpOnly: true, sameSite: 'lax' },
    },
    scopes: [
      'openid',
      'offline_access',
      'email',
      'profile',
      defaultScope(base, 'sandbox'),
      defaultScope(base, 'production'),
      ...serviceScopes(options.services),
    ],
    claims: { openid: ['sub'], email: ['email'], profile: ['name'] },
    extraClientMetadata: { properties: ['urn:rsg:environment'] },
    clientAuthMethods: ['client_secret_basic', 'client_secret_post', 'none'],
    enabledJWA: {
      idTokenSigningAlgValues: [SIGNING_ALG],
      requestObjectSigningAlgValues: [SIGNING_ALG],
      userinfoSigningAlgValues: [SIGNING_ALG],
      introspectionSigningAlgValues: [SIGNING_ALG],
      authorizationSigningAlgValues: [SIGNING_ALG],
    },
    responseTypes: ['code'],
    clientDefaults: {
      grant_types: ['authorization_code'],
      id_token_signed_response_alg: SIGNING_ALG,
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
    },
    pkce: { required: () => true },
    ttl: {
      AccessToken: config.oauth.accessTokenTtl,
      ClientCredentials: config.oauth.accessTokenTtl,
      AuthorizationCode: config.oauth.authorizationCodeTtl,
      RefreshToken: config.oauth.refreshTokenTtl,
      IdToken: config.oauth.accessTokenTtl,
      Grant: config.oauth.refreshTokenTtl,
      Session: config.oauth.sessionTtl,
      Interaction: 3600,
    },
    issueRefreshToken: async (_ctx, client, code) =>
      client.grantTypeAllowed('refresh_token') &&
      (code.scopes.has('offline_access') || code.resource !== undefined),
    interactions: { url: (_ctx, interaction) => `${OAUTH_PREFIX}/interaction/${interaction.uid}` },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      introspection: { enabled: true },
      revocation: { enabled: true },
      resourceIndicators: resourceIndicators(options),
    },
    findAccount: async (_ctx, id) => {
      const user = await findUserById(pool, id);
      if (!user) return undefined;
      return {
        accountId: user.id,
        claims: async () => ({ sub: user.id, email: user.email, name: user.name }),
      };
    },
    // A three-legged token carries the authorities its user holds in the token's environment (capped);
    // services still ask identity/ at request time, so a revoked authority stops working at once.
    extraTokenClaims: async (ctx: KoaContextWithOIDC, token) => {
      const accountId = (token as { accountId?: string }).accountId;
      const audience = (token as { aud?: string; resourceServer?: { audience?: string } }).resourceServer
        ?.audience;
      const environment = audience ? environmentOfResource(base, audience) : undefined;
      const clientId = (token as { clientId?: string }).clientId ?? ctx.oidc.client?.clientId;
      const claims: Record<string, unknown> = { client_id: clientId };
      if (accountId && environment) {
        claims.authorities = await authorityClaims(pool, environment, accountId, MAX_AUTHORITY_CLAIMS);
      }
      return claims;
    },
    renderError,
  };
}

/** Resource indicators: a token's audience is its environment, and a client's environment is its only one. */
function resourceIndicators(
  options: ProviderOptions,
): NonNullable<Configuration['features']>['resourceIndicators'] {
  const { config } = options;
  const base = config.oauth.resourceBase;
  const scopesOf = (environment: Environment) =>
    [defaultScope(base, environment), ...serviceScopes(options.services)].join(' ');
  return {
    enabled: true,
    // A request that names no resource gets its client's environment, or the one its `.default` scope names.
    defaultResource: (ctx, client) => {
      const requested = String(ctx.oidc.params?.scope ?? '');
      for (const environment of ['sandbox', 'production'] as const) {
        if (requested.split(' ').includes(defaultScope(base, environment)))
          return resourceFor(base, environment);
      }
      const environment = (client?.metadata() as Record<string, unknown>)?.['urn:rsg:environment'] as
        | Environment
        | undefined;
      return resourceFor(base, environment ?? 'sandbox');
    },
    useGrantedResource: () => true,
    getResourceServerInfo: (_ctx, resourceIndicator, client) => {
      const environment = environmentOfResource(base, resourceIndicator);
      const clientEnvironment = (client.metadata() as Record<string, unknown>)['urn:rsg:environment'];
      if (!environment) throw new errors.InvalidTarget(`unknown resource ${resourceIndicator}`);
      if (clientEnvironment !== environment) {
        throw new errors.InvalidTarget(`this client is registered for the ${clientEnvironment} environment`);
      }
      return {
        scope: scopesOf(environment),
        audience: resourceIndicator,
        accessTokenFormat: 'jwt',
        accessTokenTTL: config.oauth.accessTokenTtl,
        jwt: { sign: { alg: SIGNING_ALG } },
      };
    },
  };
}

// Since oidc-provider 9 a request that matches none of its routes (an unknown path, or POST to the
// authorization endpoint, which is GET only now that session cookies are SameSite=Lax) falls through
// to Koa's bare text 404. Answer it as the provider answers its own errors: the OAuth shape as JSON,
// or the error page for a browser (one that asks for HTML, or any request to a browser-facing path).
function answerUnroutedRequests(provider: Provider): void {
  provider.use(async (ctx, next) => {
    await next();
    if ((ctx as { routerName?: string }).routerName !== undefined) return;
    if (ctx.status !== 404 || ctx.body != null) return;
    const out = {
      error: 'invalid_request',
      error_description: `no ${ctx.method} endpoint at this address`,
    };
    ctx.status = 404;
    ctx.set('Cache-Control', 'no-store');
    if (BROWSER_PATHS.has(ctx.path.replace(/\/+$/, '')) || ctx.accepts('json', 'html') === 'html') {
      await renderError(
        ctx as unknown as KoaContextWithOIDC,
        out,
        new errors.InvalidRequest(out.error_description),
      );
    } else {
      ctx.body = out;
    }
  });
}

// The database is away (restarting, unreachable, out of connections): not a server error but a
// temporary one. RFC 6749's `temporarily_unavailable` with 503 and Retry-After, as JSON or as a page.
function answerDatabaseAway(provider: Provider): void {
  provider.on(
    'server_error',
    (ctx: { status: number; body: unknown; set(n: string, v: string): void }, error: unknown) => {
      if (!isDatabaseUnavailable(error)) return;
      ctx.status = DATABASE_AWAY.status;
      ctx.set('Retry-After', String(DATABASE_AWAY.retryAfter));
      ctx.body =
        typeof ctx.body === 'string'
          ? page(
              'Sign-in error',
              html`<section class="card"><h1>Sign-in could not continue</h1>
<p><strong>${DATABASE_AWAY.error}</strong>: ${DATABASE_AWAY.description}</p></section>`,
            )
          : { error: DATABASE_AWAY.error, error_description: DATABASE_AWAY.description };
    },
  );
}

/** Client secrets are stored as SHA-256 hashes: hash what the client presents before comparing. */
function compareHashedClientSecrets(provider: Provider): void {
  const clientPrototype = (
    provider as unknown as {
      Client: {
        prototype: { compareClientSecret(this: { clientSecret?: string }, actual: string): boolean };
      };
    }
  ).Client.prototype;
  clientPrototype.compareClientSecret = function compare(actual: string) {
    return secretMatches(this.clientSecret, actual);
  };
}

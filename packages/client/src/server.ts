/**
 * `@register-services/client/server`: what only a server may hold. Two-legged OAuth (client credentials)
 * needs the client's secret, which must never reach a browser: this entry point is exported for Node.js
 * only (`exports` has no browser condition for it), so a browser bundle that imports it fails to build.
 */
import { cachedToken, resourceOf, type TokenSource, tokenRequest } from './core/oauth.ts';
import type { Environment } from './core/transport.ts';

export interface ClientCredentialsOptions {
  /** The gateway's address. */
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  environment: Environment;
  /** Scopes to ask for; the environment's `.default` (every scope the client may have) by default. */
  scope?: string;
  fetch?: typeof fetch;
}

/** A token source for an application acting for itself: tokens cached until shortly before expiry. */
export function clientCredentials(options: ClientCredentialsOptions): TokenSource {
  const basic = btoa(`${encodeURIComponent(options.clientId)}:${encodeURIComponent(options.clientSecret)}`);
  return cachedToken(() =>
    tokenRequest(
      options.baseUrl,
      {
        grant_type: 'client_credentials',
        scope: options.scope ?? `${resourceOf(options.environment)}/.default`,
      },
      { authorization: `Basic ${basic}`, ...(options.fetch ? { fetch: options.fetch } : {}) },
    ),
  );
}

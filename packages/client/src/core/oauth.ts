/**
 * Bearer tokens. A `TokenSource` is what a client asks for a token before each call; this file has the
 * three-legged one (a user signs in through the gateway's authorization server: PKCE for public clients
 * in browsers, refresh tokens), built on `fetch` and Web Crypto only, so it runs in browsers. The
 * two-legged one (client credentials, which needs the client's secret) is in `../server.ts`, an entry
 * point a browser bundle cannot resolve.
 */
import type { Environment } from './transport.ts';

export interface TokenSource {
  /** A token that is valid now (cached until shortly before it expires). */
  token(): Promise<string>;
  /** Forget the cached token (the gateway refused it): the next `token()` gets another. */
  invalidate?(): void;
}

/** The gateway's authorization server, under its address. */
export const OAUTH_PATH = '/oauth2';

/** The audience (resource indicator) of an environment's tokens. */
export const resourceOf = (environment: Environment): string =>
  `https://api.business.govt.nz/${environment === 'sandbox' ? 'sandbox' : 'gateway'}`;

/** What the token endpoint answers. */
export interface TokenAnswer {
  access_token: string;
  token_type: string;
  expires_in: number;
  refresh_token?: string;
  scope?: string;
}

export class OAuthError extends Error {
  override readonly name = 'OAuthError';
  constructor(
    readonly status: number,
    readonly error: string,
    description: string,
  ) {
    super(`${status} ${error}: ${description}`);
  }
}

/** Posts a form to the token endpoint; the answer, or an `OAuthError` with the server's `error`. */
export async function tokenRequest(
  baseUrl: string,
  form: Record<string, string>,
  options: { fetch?: typeof fetch; authorization?: string } = {},
): Promise<TokenAnswer> {
  const send = options.fetch ?? globalThis.fetch.bind(globalThis);
  const response = await send(`${baseUrl.replace(/\/+$/, '')}${OAUTH_PATH}/token`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/x-www-form-urlencoded',
      Accept: 'application/json',
      ...(options.authorization ? { Authorization: options.authorization } : {}),
    },
    body: new URLSearchParams(form).toString(),
  });
  const text = await response.text();
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text);
  } catch {
    // not JSON: reported below
  }
  if (!response.ok || typeof json.access_token !== 'string') {
    throw new OAuthError(
      response.status,
      String(json.error ?? 'invalid_response'),
      String(json.error_description ?? text.slice(0, 200)),
    );
  }
  return json as unknown as TokenAnswer;
}

/** Seconds before expiry at which a cached token is replaced, so none expires on its way. */
const EARLY_SECONDS = 30;

/**
 * A cache of one token: `fetchToken` is asked when there is none or it is about to expire; concurrent
 * callers share one request.
 */
export function cachedToken(
  fetchToken: () => Promise<TokenAnswer>,
  now: () => number = Date.now,
): TokenSource {
  let current: { token: string; expiresAt: number } | undefined;
  let pending: Promise<string> | undefined;
  return {
    token() {
      if (current && now() < current.expiresAt) return Promise.resolve(current.token);
      pending ??= fetchToken()
        .then((answer) => {
          current = {
            token: answer.access_token,
            expiresAt: now() + Math.max(0, answer.expires_in - EARLY_SECONDS) * 1000,
          };
          return answer.access_token;
        })
        .finally(() => {
          pending = undefined;
        });
      return pending;
    },
    invalidate() {
      current = undefined;
    },
  };
}

const base64Url = (bytes: Uint8Array): string =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');

/** A PKCE pair (RFC 7636, S256): keep the verifier until the code comes back; send the challenge. */
export async function pkcePair(): Promise<{ verifier: string; challenge: string }> {
  const verifier = base64Url(crypto.getRandomValues(new Uint8Array(32)));
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier));
  return { verifier, challenge: base64Url(new Uint8Array(digest)) };
}

export interface AuthorizationStart {
  /** Where to send the user's browser. */
  url: string;
  /** Keep both until the redirect comes back (`state` must match; `verifier` exchanges the code). */
  state: string;
  verifier: string;
}

/**
 * The first leg of a three-legged sign-in with PKCE: the authorization URL to open, with a fresh state
 * and code verifier. `scope` is the register's (e.g. `ppsr:read ppsr:write`); `offline_access` asks for
 * a refresh token.
 */
export async function startAuthorization(options: {
  baseUrl: string;
  clientId: string;
  redirectUri: string;
  environment: Environment;
  scope: string;
}): Promise<AuthorizationStart> {
  const { verifier, challenge } = await pkcePair();
  const state = base64Url(crypto.getRandomValues(new Uint8Array(16)));
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: options.clientId,
    redirect_uri: options.redirectUri,
    scope: options.scope,
    state,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    resource: resourceOf(options.environment),
  });
  return { url: `${options.baseUrl.replace(/\/+$/, '')}${OAUTH_PATH}/auth?${query}`, state, verifier };
}

/** A user's tokens: the access token cached until expiry, renewed with the refresh token. */
export interface UserTokens extends TokenSource {
  /** The refresh token held now (it may be replaced at each refresh): keep it to resume later. */
  readonly refreshToken: string | undefined;
}

/**
 * The last leg: exchanges the authorization code (with the PKCE verifier) for the user's tokens, and
 * answers a token source that refreshes them as they expire.
 */
export async function finishAuthorization(options: {
  baseUrl: string;
  clientId: string;
  redirectUri: string;
  code: string;
  verifier: string;
  environment: Environment;
  fetch?: typeof fetch;
}): Promise<UserTokens> {
  const first = await tokenRequest(
    options.baseUrl,
    {
      grant_type: 'authorization_code',
      code: options.code,
      redirect_uri: options.redirectUri,
      client_id: options.clientId,
      code_verifier: options.verifier,
      resource: resourceOf(options.environment),
    },
    options.fetch ? { fetch: options.fetch } : {},
  );
  return userTokens({ ...options, answer: first });
}

/** A token source from tokens already held (an access token and its refresh token). */
export function userTokens(options: {
  baseUrl: string;
  clientId: string;
  environment: Environment;
  answer: TokenAnswer;
  fetch?: typeof fetch;
}): UserTokens {
  let refreshToken = options.answer.refresh_token;
  let first: TokenAnswer | undefined = options.answer;
  const source = cachedToken(async () => {
    if (first) {
      const answer = first;
      first = undefined;
      return answer;
    }
    if (!refreshToken)
      throw new OAuthError(401, 'invalid_grant', 'the token expired and no refresh token is held');
    const answer = await tokenRequest(
      options.baseUrl,
      {
        grant_type: 'refresh_token',
        refresh_token: refreshToken,
        client_id: options.clientId,
        resource: resourceOf(options.environment),
      },
      options.fetch ? { fetch: options.fetch } : {},
    );
    refreshToken = answer.refresh_token ?? refreshToken;
    return answer;
  });
  return {
    token: () => source.token(),
    invalidate: () => source.invalidate?.(),
    get refreshToken() {
      return refreshToken;
    },
  };
}

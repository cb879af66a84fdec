import { DATABASE_RETRY_AFTER_SECONDS } from '../../platform/db/faults.ts';

/**
 * What the authorization server's mount (routes/oauth.ts) needs of it without loading any OAuth library
 * (the provider, oauth/provider.ts, is built at the first request): where it is mounted, and its
 * answer to a database outage, which the mount gives when that first build meets one.
 */
export const OAUTH_PREFIX = '/oauth2';

/**
 * The database is away (restarting, unreachable, out of connections): RFC 6749's
 * `temporarily_unavailable`, answered 503 with `Retry-After: retryAfter`.
 */
export const DATABASE_AWAY = {
  status: 503,
  retryAfter: DATABASE_RETRY_AFTER_SECONDS,
  error: 'temporarily_unavailable',
  description: `The authorization server is temporarily unavailable. Try again in ${DATABASE_RETRY_AFTER_SECONDS} seconds.`,
} as const;

import { checkSignature, derivedSigningKey, signedQuery } from '../../platform/signed-url.ts';
import { DOWNLOAD_LINK_SECONDS } from '../domain/downloads.ts';
import type { PortalDeps } from '../index.ts';

/**
 * The portal's download links: `platform/signed-url.ts`, the same signing as the offers register's
 * document URLs, keyed by a key derived from the server's secret (never stored), bound to the path and
 * the user (`caller`), valid DOWNLOAD_LINK_SECONDS of real time.
 */
const downloadKey = (deps: PortalDeps): Buffer =>
  derivedSigningKey(deps.runtime.keyedUniform, 'portal|download');

/** A link to `path` for `caller` (a user id). */
export const signedLink = (deps: PortalDeps, path: string, caller: string): string =>
  `${path}?${signedQuery(downloadKey(deps), path, caller, Date.now(), DOWNLOAD_LINK_SECONDS)}`;

/** A link's check: the user it was made for, or why it is refused. */
export type LinkCheck = { caller: string } | { refused: 'expired' | 'invalid' };

export function checkLink(deps: PortalDeps, path: string, query: Record<string, unknown>): LinkCheck {
  const check = checkSignature(downloadKey(deps), path, query, Date.now());
  if (check === 'valid') return { caller: String(query.caller) };
  return { refused: check === 'expired' ? 'expired' : 'invalid' };
}

import { createLocalJWKSet, errors, type JWTPayload, jwtVerify } from 'jose';
import type { Pool } from 'pg';
import { resourceFor } from '../../identity/domain/scopes.ts';
import { SIGNING_ALG } from '../../identity/domain/signing-keys.ts';
import { loadSigningKeys } from '../../identity/operations/signing-keys.ts';
import type { ChangeFeed } from '../../platform/db/notify.ts';
import { APIM_ERRORS } from '../../platform/http/error-codes.ts';
import { HttpError } from '../../platform/http/errors.ts';
import type { Environment } from '../../services/contract.ts';

/**
 * Bearer token checks at the gateway, with `jose`: an allow-listed algorithm, a known key (from the
 * database, reloaded when keys rotate), the issuer, the environment's audience (a sandbox token is
 * refused on /gateway), expiry and not-before with a small leeway. Each refusal says which check failed.
 */
export const CLOCK_LEEWAY_SECONDS = 30;

export interface VerifiedToken {
  clientId: string;
  /** The end user of a three-legged token. */
  userId: string | undefined;
  scopes: string[];
  authorities: string[];
  claims: JWTPayload;
}

const invalid = (reason: string) =>
  new HttpError(APIM_ERRORS.invalidToken, `Invalid JWT: ${reason}`, [], {
    'WWW-Authenticate': `Bearer error="invalid_token", error_description="${reason.replace(/"/g, "'")}"`,
  });

export class TokenVerifier {
  private jwks: ReturnType<typeof createLocalJWKSet> | undefined;

  constructor(
    private readonly pool: Pool,
    private readonly issuer: string,
    private readonly resourceBase: string,
    private readonly publishedForSeconds: number,
    feed?: ChangeFeed,
  ) {
    feed?.on((notice) => {
      if (notice.kind === 'signing-keys' || notice.kind === 'reset') this.reload().catch(() => {});
    });
  }

  async reload(): Promise<void> {
    const keys = await loadSigningKeys(this.pool, this.publishedForSeconds);
    this.jwks = createLocalJWKSet({ keys: keys.publicKeys });
  }

  async verify(token: string, environment: Environment): Promise<VerifiedToken> {
    if (!this.jwks) await this.reload();
    const audience = resourceFor(this.resourceBase, environment);
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, this.jwks!, {
        algorithms: [SIGNING_ALG],
        issuer: this.issuer,
        audience,
        clockTolerance: CLOCK_LEEWAY_SECONDS,
        requiredClaims: ['exp', 'iat'],
      }));
    } catch (error) {
      throw this.explain(error, audience);
    }
    const scopes = typeof payload.scope === 'string' ? payload.scope.split(' ').filter(Boolean) : [];
    const authorities = Array.isArray(payload.authorities) ? payload.authorities.map(String) : [];
    const clientId = String(payload.client_id ?? payload.azp ?? '');
    // A client-credentials token's subject is the client itself; a user's token names the user.
    const userId = payload.sub && payload.sub !== clientId ? payload.sub : undefined;
    return { clientId, userId, scopes, authorities, claims: payload };
  }

  private explain(error: unknown, audience: string): HttpError {
    if (error instanceof errors.JWTExpired) return invalid('the token has expired');
    if (error instanceof errors.JWTClaimValidationFailed) {
      switch (error.claim) {
        case 'nbf':
          return invalid('the token is not yet valid');
        case 'iat':
          return invalid('the token was issued in the future');
        case 'aud':
          return invalid(`the token's audience is not this environment (${audience})`);
        case 'iss':
          return invalid("the token was not issued by this gateway's authorization server");
        default:
          return invalid(`the ${error.claim} claim is invalid`);
      }
    }
    if (error instanceof errors.JOSEAlgNotAllowed || error instanceof errors.JOSENotSupported) {
      return invalid(`its signing algorithm is not allowed (only ${SIGNING_ALG})`);
    }
    if (error instanceof errors.JWKSNoMatchingKey) return invalid('it was signed with an unknown key');
    if (error instanceof errors.JWSSignatureVerificationFailed)
      return invalid('the signature does not verify');
    return invalid('the token is malformed');
  }
}

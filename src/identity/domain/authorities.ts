/**
 * Who may act on a register object. Services ask identity — never the tables — "may this caller act on
 * this object?". A user acts on an object when they hold authority over it themselves, or when an
 * organisation they belong to (in that environment) holds it, or when the calling organisation does.
 */
import type { Environment } from '../../services/contract.ts';
import { AuthorityError, IDENTITY_ERRORS } from '../errors.ts';

export interface RegisterObject {
  environment: Environment;
  service: string;
  /** e.g. `entity` (a business number), `fund`, `secured-party-group`. */
  kind: string;
  id: string;
}

export type Holder = { userId: string } | { organisationId: string };

export interface Actor {
  userId?: string | undefined;
  organisationId?: string | undefined;
}

export interface Authority {
  id: string;
  environment: Environment;
  service: string;
  objectKind: string;
  objectId: string;
  userId: string | null;
  organisationId: string | null;
  holderName: string;
  role: string;
  grantedAt: Date;
}

/** The most authorities a three-legged access token lists (for display; services ask live). */
export const MAX_AUTHORITY_CLAIMS = 100;

/** An organisation holds authority only over objects of its own environment. */
export function checkHolderEnvironment(
  organisationEnvironment: Environment | undefined,
  object: RegisterObject,
): void {
  if (organisationEnvironment === object.environment) return;
  const rule = `does not belong to the ${object.environment} environment`;
  throw new AuthorityError(
    IDENTITY_ERRORS.organisationEnvironment,
    'organisation',
    rule,
    `the organisation ${rule}`,
  );
}

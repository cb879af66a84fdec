/**
 * What the operations on users, organisations, organisation users and authorities share: the signed-in
 * caller as identity knows them (operators may do everything), the refusals in this API's dialect, and
 * an organisation with the caller's role in it.
 */

import type { Caller } from '../../../gateway/service-context.ts';
import type { MembershipRole } from '../../../identity/domain/organisations.ts';
import {
  administers,
  type OrganisationProfile,
  type UserProfile,
} from '../../../identity/domain/register-profiles.ts';
import { HttpError } from '../../../platform/http/errors.ts';
import { NZBN_ERRORS } from '../errors.ts';
import type { NzbnContext } from './support.ts';

export const forbidden = (field: string, message: string): HttpError =>
  new HttpError(NZBN_ERRORS.forbidden, `Forbidden: ${message}`, [{ field, message }]);

export const notFound = (what: string): HttpError =>
  new HttpError(NZBN_ERRORS.notFound, `Object Not Found: ${what}`);

/** The signed-in user (a three-legged token's), with their register profile. */
export async function signedIn(context: NzbnContext, caller: Caller | undefined): Promise<UserProfile> {
  const user = caller?.userId ? await context.identity.directory.user(caller.userId) : undefined;
  if (!user) throw forbidden('userId', 'the operation needs a signed-in user of this gateway');
  return user;
}

export interface OrganisationSeen {
  organisation: OrganisationProfile;
  /** The caller's role in it (undefined: not a member). */
  role: MembershipRole | undefined;
  /** The caller administers it, or is an operator. */
  administers: boolean;
}

/** The organisation with this identifier and the caller's standing in it; 404 when there is none. */
export async function organisationSeen(
  context: NzbnContext,
  viewer: UserProfile,
  identifier: string,
): Promise<OrganisationSeen> {
  const organisation = await context.identity.directory.organisation(identifier);
  if (!organisation) throw notFound(`no organisation has the identifier ${identifier}`);
  const role = await context.identity.directory.roleIn(organisation.id, viewer.id);
  return { organisation, role, administers: viewer.isOperator || administers(role) };
}

/** 403 unless the caller belongs to the organisation (or is an operator). */
export function requireMember(seen: OrganisationSeen, viewer: UserProfile): void {
  if (!viewer.isOperator && seen.role === undefined) {
    throw forbidden('organisationId', 'the signed-in user does not belong to this organisation');
  }
}

/** 403 unless the caller administers the organisation (or is an operator). */
export function requireAdministrator(seen: OrganisationSeen): void {
  if (!seen.administers) {
    throw forbidden('organisationId', 'only the organisation’s administrators may do this');
  }
}

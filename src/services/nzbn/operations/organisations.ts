/**
 * The register's organisations and organisation users (published Organisation and OrganisationUser):
 * identity's organisations of this environment and their memberships, with the organisation's register
 * profile. Members see their organisation; its administrators (owners and admins) change it and manage
 * its users; operators do everything. A user joins only by activating an invitation mailed to their
 * address (`activateOrganisationUser`); removing a user ends the authorities they held through it.
 */

import type { Caller } from '../../../gateway/service-context.ts';
import type {
  OrganisationMemberPatch,
  OrganisationProfilePatch,
} from '../../../identity/domain/register-profiles.ts';
import { strongEtag } from '../../../platform/http/conditional.ts';
import { badRequest } from '../../../platform/http/errors.ts';
import type { Preconditions } from '../../../platform/http/operation.ts';
import { formatNzDateTime } from '../../../platform/nz-time.ts';
import {
  contactPatch,
  given,
  profilePhone,
  publishedOrganisation,
  publishedOrganisationUser,
} from '../domain/directory.ts';
import type {
  Organisation,
  OrganisationChange,
  OrganisationInput,
  OrganisationUser,
  OrganisationUserChange,
  OrganisationUserInput,
} from '../schemas/directory.ts';
import {
  forbidden,
  notFound,
  organisationSeen,
  requireAdministrator,
  requireMember,
  signedIn,
} from './directory-support.ts';
import { baseUrl, type NzbnContext } from './support.ts';

const now = (context: NzbnContext) => formatNzDateTime(context.clock.now().getTime());

function organisationPatch(context: NzbnContext, body: OrganisationChange): OrganisationProfilePatch {
  return {
    ...given(body, ['name', 'email', 'categoryCode']),
    ...contactPatch(body, now(context)),
  } as OrganisationProfilePatch;
}

/** NZBN_102_1: the caller's organisations in this environment; every one, for an operator. */
export async function listOrganisations(
  context: NzbnContext,
  input: { caller: Caller | undefined },
): Promise<{ items: Organisation[]; links: unknown[] }> {
  const viewer = await signedIn(context, input.caller);
  const found = await context.identity.directory.organisations(viewer.isOperator ? null : viewer.id);
  const base = baseUrl(context);
  return { items: found.map((o) => publishedOrganisation(base, o)), links: [] };
}

/** NZBN_102_2: a new organisation, the caller its owner (and first administrator). */
export async function addOrganisation(
  context: NzbnContext,
  input: { caller: Caller | undefined; body: OrganisationInput },
): Promise<Organisation> {
  const viewer = await signedIn(context, input.caller);
  const { organisationId, name } = input.body;
  const made = await context.identity.directory.addOrganisation(
    { identifier: organisationId, name, profile: organisationPatch(context, input.body) },
    viewer.id,
  );
  return publishedOrganisation(baseUrl(context), made);
}

/** NZBN_102_3: an organisation the caller belongs to. */
export async function getOrganisation(
  context: NzbnContext,
  input: { caller: Caller | undefined; organisationId: string },
): Promise<Organisation> {
  const viewer = await signedIn(context, input.caller);
  const seen = await organisationSeen(context, viewer, input.organisationId);
  requireMember(seen, viewer);
  return publishedOrganisation(baseUrl(context), seen.organisation);
}

/** NZBN_102_4: changes the organisation's profile (its administrators); If-Modified-Since → 412. */
export async function changeOrganisation(
  context: NzbnContext,
  input: {
    caller: Caller | undefined;
    organisationId: string;
    body: OrganisationChange;
    preconditions: Preconditions;
  },
): Promise<Organisation> {
  const viewer = await signedIn(context, input.caller);
  const seen = await organisationSeen(context, viewer, input.organisationId);
  requireAdministrator(seen);
  const base = baseUrl(context);
  const changed = await context.identity.directory.changeOrganisation(
    input.organisationId,
    organisationPatch(context, input.body),
    (current) =>
      input.preconditions({
        etag: strongEtag(publishedOrganisation(base, current)),
        lastModified: current.updatedAt,
      }),
  );
  if (!changed) throw notFound(`no organisation has the identifier ${input.organisationId}`);
  return publishedOrganisation(base, changed);
}

/** NZBN_104_1: the organisation's users and invitations (its administrators); a member sees themselves. */
export async function listOrganisationUsers(
  context: NzbnContext,
  input: { caller: Caller | undefined; organisationId: string },
): Promise<{ items: OrganisationUser[]; links: unknown[] }> {
  const viewer = await signedIn(context, input.caller);
  const seen = await organisationSeen(context, viewer, input.organisationId);
  requireMember(seen, viewer);
  const members = await context.identity.directory.members(seen.organisation.id);
  const base = baseUrl(context);
  return {
    items: members
      .filter((member) => seen.administers || member.userId === viewer.id)
      .map((member) => publishedOrganisationUser(base, member)),
    links: [],
  };
}

/** NZBN_104_2: invites a person by email to the organisation (its administrators). */
export async function addOrganisationUser(
  context: NzbnContext,
  input: { caller: Caller | undefined; organisationId: string; body: OrganisationUserInput },
): Promise<OrganisationUser> {
  const viewer = await signedIn(context, input.caller);
  const seen = await organisationSeen(context, viewer, input.organisationId);
  requireAdministrator(seen);
  const { body } = input;
  const base = baseUrl(context);
  const invited = await context.identity.directory.invite(
    seen.organisation,
    {
      email: body.email.emailAddress,
      role: body.role === 'ADMINISTRATOR' ? 'admin' : 'member',
      firstName: body.firstName ?? null,
      middleNames: body.middleNames ?? null,
      lastName: body.lastName ?? null,
      phone: body.phone ? profilePhone(body.phone) : null,
    },
    viewer.id,
    `${base}/organisations/activateOrganisationUser`,
  );
  return publishedOrganisationUser(base, invited);
}

/** NZBN_104_3: the signed-in user accepts an invitation mailed to their address. */
export async function activateOrganisationUser(
  context: NzbnContext,
  input: { caller: Caller | undefined; activationCode: string },
): Promise<OrganisationUser> {
  const viewer = await signedIn(context, input.caller);
  const outcome = await context.identity.directory.activate(input.activationCode, viewer.id);
  if ('activated' in outcome) return publishedOrganisationUser(baseUrl(context), outcome.activated);
  if (outcome.refused === 'unknown') throw notFound('no open invitation has this activation code');
  if (outcome.refused === 'another-address') {
    throw forbidden(
      'activationCode',
      'the invitation was sent to another email address than the signed-in user’s',
    );
  }
  throw badRequest('activationCode', 'the signed-in user belongs to the organisation already');
}

/** NZBN_104_4: one user of the organisation (its administrators; a member themselves). */
export async function getOrganisationUser(
  context: NzbnContext,
  input: { caller: Caller | undefined; organisationId: string; organisationUserId: string },
): Promise<OrganisationUser> {
  const viewer = await signedIn(context, input.caller);
  const seen = await organisationSeen(context, viewer, input.organisationId);
  requireMember(seen, viewer);
  const member = await context.identity.directory.member(seen.organisation.id, input.organisationUserId);
  if (!member) throw notFound(`the organisation has no user ${input.organisationUserId}`);
  if (!seen.administers && member.userId !== viewer.id) {
    throw forbidden('organisationUserId', 'a member sees only themselves');
  }
  return publishedOrganisationUser(baseUrl(context), member);
}

/**
 * NZBN_104_5: changes an organisation user: its role (administrators), names (of an invitation) and
 * phone (administrators, or the user themselves). The status follows the invitation; If-Modified-Since → 412.
 */
export async function changeOrganisationUser(
  context: NzbnContext,
  input: {
    caller: Caller | undefined;
    organisationId: string;
    organisationUserId: string;
    body: OrganisationUserChange;
    preconditions: Preconditions;
  },
): Promise<void> {
  const viewer = await signedIn(context, input.caller);
  const seen = await organisationSeen(context, viewer, input.organisationId);
  requireMember(seen, viewer);
  const { body } = input;
  const patch: OrganisationMemberPatch = {
    ...given(body, ['firstName', 'middleNames', 'lastName']),
    ...(body.role === undefined ? {} : { role: body.role === 'ADMINISTRATOR' ? 'admin' : 'member' }),
    ...(body.phone === undefined ? {} : { phone: body.phone === null ? null : profilePhone(body.phone) }),
  } as OrganisationMemberPatch;
  const base = baseUrl(context);
  const changed = await context.identity.directory.changeMember(
    seen.organisation.id,
    input.organisationUserId,
    patch,
    (current) => {
      const self = current.userId === viewer.id;
      if (!seen.administers && !(self && patch.role === undefined)) {
        throw forbidden('organisationUserId', 'only the organisation’s administrators change its users');
      }
      if (body.status !== undefined && body.status !== current.status) {
        throw badRequest('status', 'follows the invitation: INACTIVE until it is activated, then ACTIVE');
      }
      if (current.role === 'owner' && patch.role === 'admin') delete patch.role;
      input.preconditions({
        etag: strongEtag(publishedOrganisationUser(base, current)),
        lastModified: current.updatedAt,
      });
    },
  );
  if (!changed) throw notFound(`the organisation has no user ${input.organisationUserId}`);
}

/**
 * NZBN_104_6: ends a membership or withdraws an invitation (administrators, or the user leaving), and
 * the authorities the user held through the membership; If-Modified-Since → 412.
 */
export async function removeOrganisationUser(
  context: NzbnContext,
  input: {
    caller: Caller | undefined;
    organisationId: string;
    organisationUserId: string;
    preconditions: Preconditions;
  },
): Promise<void> {
  const viewer = await signedIn(context, input.caller);
  const seen = await organisationSeen(context, viewer, input.organisationId);
  requireMember(seen, viewer);
  const base = baseUrl(context);
  const removed = await context.identity.directory.removeMember(
    seen.organisation.id,
    input.organisationUserId,
    (current) => {
      if (!seen.administers && current.userId !== viewer.id) {
        throw forbidden('organisationUserId', 'only the organisation’s administrators remove its users');
      }
      input.preconditions({
        etag: strongEtag(publishedOrganisationUser(base, current)),
        lastModified: current.updatedAt,
      });
    },
  );
  if (!removed) throw notFound(`the organisation has no user ${input.organisationUserId}`);
}

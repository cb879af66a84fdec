/**
 * The register's users (published User): identity's users with their register profile, so a user
 * registered or changed here is the same user the portal and the authorization server know. A user sees
 * and changes themselves; an organisation's administrators see its users; operators see and change
 * everyone, and register users by email.
 */

import type { Caller } from '../../../gateway/service-context.ts';
import type { UserProfile, UserProfilePatch } from '../../../identity/domain/register-profiles.ts';
import { administers } from '../../../identity/domain/register-profiles.ts';
import { strongEtag } from '../../../platform/http/conditional.ts';
import { badRequest } from '../../../platform/http/errors.ts';
import type { Preconditions } from '../../../platform/http/operation.ts';
import { formatNzDateTime } from '../../../platform/nz-time.ts';
import { contactPatch, given, publishedUser } from '../domain/directory.ts';
import type { User, UserInput } from '../schemas/directory.ts';
import { forbidden, notFound, signedIn } from './directory-support.ts';
import type { NzbnContext } from './support.ts';

const now = (context: NzbnContext) => formatNzDateTime(context.clock.now().getTime());

/** What a body changes of a user's profile. */
function userPatch(context: NzbnContext, body: UserInput): UserProfilePatch {
  return {
    ...given(body, ['email', 'acceptTerms', 'status', 'firstName', 'middleNames', 'lastName']),
    ...contactPatch(body, now(context)),
  } as UserProfilePatch;
}

/** Whether the viewer may see the user: themselves, an operator, or an administrator of one of their organisations. */
async function maySee(context: NzbnContext, viewer: UserProfile, user: UserProfile): Promise<boolean> {
  if (viewer.id === user.id || viewer.isOperator) return true;
  for (const organisation of await context.identity.directory.organisations(user.id)) {
    if (administers(await context.identity.directory.roleIn(organisation.id, viewer.id))) return true;
  }
  return false;
}

/** NZBN_101_1: the signed-in user; every user, for an operator. */
export async function listUsers(
  context: NzbnContext,
  input: { caller: Caller | undefined },
): Promise<{ users: User[] }> {
  const viewer = await signedIn(context, input.caller);
  const users = viewer.isOperator ? await context.identity.directory.users() : [viewer];
  return { users: users.map(publishedUser) };
}

/** NZBN_101_2: one user the caller may see. */
export async function getUser(
  context: NzbnContext,
  input: { caller: Caller | undefined; userId: string },
): Promise<User> {
  const viewer = await signedIn(context, input.caller);
  const user = await context.identity.directory.user(input.userId);
  if (!user) throw notFound(`no user has the id ${input.userId}`);
  if (!(await maySee(context, viewer, user))) {
    throw forbidden('userId', 'a user sees only themselves and the users of organisations they administer');
  }
  return publishedUser(user);
}

/**
 * NZBN_101_4: the signed-in user registers with the register (accepting its terms), with their profile;
 * an operator may register another person by email (a new user of the gateway, who signs in once a
 * password is set).
 */
export async function registerUser(
  context: NzbnContext,
  input: { caller: Caller | undefined; body: UserInput },
): Promise<User> {
  const viewer = await signedIn(context, input.caller);
  const { body } = input;
  if (body.acceptTerms !== true)
    throw badRequest('acceptTerms', 'must be true: the register’s terms are accepted');
  const patch = userPatch(context, body);
  const self = body.email === undefined || body.email.trim().toLowerCase() === viewer.email.toLowerCase();
  if (self) {
    const { email: _email, ...rest } = patch;
    return publishedUser((await context.identity.directory.changeUser(viewer.id, rest, () => {}))!);
  }
  if (!viewer.isOperator) throw forbidden('email', 'a user registers only themselves');
  return publishedUser(
    await context.identity.directory.addUser({ email: body.email!, profile: { ...patch, email: undefined } }),
  );
}

/** NZBN_101_3: changes the user's profile (themselves, or anyone for an operator); If-Modified-Since → 412. */
export async function changeUser(
  context: NzbnContext,
  input: { caller: Caller | undefined; userId: string; body: UserInput; preconditions: Preconditions },
): Promise<User> {
  const viewer = await signedIn(context, input.caller);
  const patch = userPatch(context, input.body);
  const changed = await context.identity.directory.changeUser(input.userId, patch, (current) => {
    if (current.id !== viewer.id && !viewer.isOperator) {
      throw forbidden('userId', 'a user changes only themselves');
    }
    input.preconditions({ etag: strongEtag(publishedUser(current)), lastModified: current.updatedAt });
  });
  if (!changed) throw notFound(`no user has the id ${input.userId}`);
  return publishedUser(changed);
}

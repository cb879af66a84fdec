/**
 * The registered requestor: the applications and the correspondence act for a user registered with the
 * office (a three-legged token of that user), in both environments, as renewals do
 * (domain/registration.ts); anyone else is refused before any work (HTTP 403, `not-registered-user`).
 */
import type { Caller, ServiceContext } from '../../../gateway/service-context.ts';
import { APIM_ERRORS } from '../../../platform/http/error-codes.ts';
import { HttpError } from '../../../platform/http/errors.ts';
import { REGISTERED_USER } from '../domain/registration.ts';
import { IPONZ_ERRORS } from '../errors.ts';

/** The user an application or a correspondence operation acts for, and where their emails go. */
export interface Requestor {
  userId: string;
  email: string | null;
}

/**
 * A registered user acting (three-legged token), or the refusal. Resolves to their id and (unless
 * `email: false`) their email address, where the discussions of their cases are sent.
 */
export async function registeredRequestor(
  context: ServiceContext,
  caller: Caller | undefined,
  options: { email?: boolean } = {},
): Promise<Requestor> {
  const userId = caller?.userId;
  if (!userId)
    throw new HttpError(
      APIM_ERRORS.threeLeggedTokenRequired,
      'This operation acts for a registered user: it needs a token from the authorization-code grant',
    );
  if (!(await context.identity.mayAct(caller, REGISTERED_USER.kind, REGISTERED_USER.objectId)))
    throw new HttpError(
      IPONZ_ERRORS.notRegisteredUser,
      'Applications and correspondence are for users registered with the office; this user is not registered',
    );
  if (options.email === false) return { userId, email: null };
  // The user's own registration record holds their email (granted idempotently: a user registered
  // through an organisation gets their own record the first time they file).
  const held = await context.identity.grantAuthority(REGISTERED_USER.kind, REGISTERED_USER.objectId, {
    userId,
  });
  return { userId, email: held?.userEmail ?? null };
}

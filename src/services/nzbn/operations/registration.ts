/**
 * Registration of a sole trader, partnership or trust (the types that opt in): a new business number,
 * the entity and its NEW change event, and business authority over it for the applicant, granted in
 * the same transaction (store/register.ts).
 */
import type { Caller } from '../../../gateway/service-context.ts';
import { RuleError } from '../../../platform/errors.ts';
import { badRequest } from '../../../platform/http/errors.ts';
import type { ResourceValidators } from '../../../platform/http/operation.ts';
import { formatNzDateTime } from '../../../platform/nz-time.ts';
import { fromPostable, type PostableLike } from '../domain/postable.ts';
import {
  newEntity,
  type RegistrationLike,
  registrableType,
  registrationIdentifiers,
} from '../domain/registration.ts';
import { registerEntity } from '../store/register.ts';
import { baseUrl, type NzbnContext, viewEtag } from './support.ts';

export interface Registered {
  nzbn: string;
  /** The entity as the register stored it: the published JSON document. */
  document: string;
  /** The authorised view's validators: the applicant acts for the new entity. */
  validators: ResourceValidators;
  /** The new entity's address. */
  location: string;
}

/**
 * Registers the entity the applicant (a signed-in user) describes in the published PostableEntity; a
 * broken rule names the field as the applicant sent it.
 */
export async function registerNewEntity(
  context: NzbnContext,
  input: { caller: Caller | undefined; application: PostableLike },
): Promise<Registered> {
  const { application, publishedField } = fromPostable(input.application);
  try {
    return await register(context, input.caller, application);
  } catch (error) {
    if (!(error instanceof RuleError)) throw error;
    throw new RuleError(publishedField(error.field), error.rule, { code: error.code });
  }
}

async function register(
  context: NzbnContext,
  caller: Caller | undefined,
  application: RegistrationLike,
): Promise<Registered> {
  registrableType(application.entityTypeCode);
  const userId = caller?.userId;
  // The gateway requires a user's token for this operation; a tool must name the applicant too.
  if (!userId) throw badRequest('userId', 'registration needs the signed-in applicant');
  const now = context.clock.now();
  const { stored } = await registerEntity(
    context.database.pool,
    now,
    registrationIdentifiers(application),
    (nzbn, newId) => newEntity(application, nzbn, formatNzDateTime(now.getTime()), newId),
    async (entity) => {
      await context.identity.grantAuthority('entity', entity.nzbn, { userId });
    },
  );
  return {
    nzbn: stored.nzbn,
    document: stored.document,
    validators: { etag: viewEtag(stored, true), lastModified: stored.lastUpdated },
    location: `${baseUrl(context)}/entities/${stored.nzbn}`,
  };
}

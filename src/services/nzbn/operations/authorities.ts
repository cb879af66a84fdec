/**
 * Business authorities: who may act for an entity (update its Primary Business Data, see its private
 * data, manage its organisation parts and its authorities). Each operation needs a signed-in user who
 * already holds authority over the entity. Holders are users of this gateway (by email) or
 * organisations of this environment (by their register identifier); they live in the gateway's
 * database (identity/), and revoking takes effect at once: services ask identity/ on every call.
 */
import type { Caller, HeldAuthority } from '../../../gateway/service-context.ts';
import { strongEtag } from '../../../platform/http/conditional.ts';
import { badRequest, HttpError } from '../../../platform/http/errors.ts';
import type { Preconditions } from '../../../platform/http/operation.ts';
import { formatNzDateTime } from '../../../platform/nz-time.ts';
import { NZBN_ERRORS } from '../errors.ts';
import type { Authority, AuthorityGrant } from '../schemas/operations.ts';
import { loadEntity, type NzbnContext, requireAuthority } from './support.ts';

const published = (nzbn: string, authority: HeldAuthority): Authority => ({
  authorityId: authority.id,
  nzbn,
  userEmail: authority.userEmail,
  organisationId: authority.organisationIdentifier,
  role: authority.role,
  startDate: formatNzDateTime(authority.grantedAt.getTime()),
});

/** A valid, existing entity the signed-in user acts for: its business number. */
async function entityActedFor(
  context: NzbnContext,
  caller: Caller | undefined,
  nzbn: string,
): Promise<string> {
  const stored = await loadEntity(context, nzbn);
  await requireAuthority(context, caller, stored.nzbn);
  return stored.nzbn;
}

/** The current holders of business authority over the entity. */
export async function listAuthorities(
  context: NzbnContext,
  input: { caller: Caller | undefined; nzbn: string },
): Promise<Authority[]> {
  const nzbn = await entityActedFor(context, input.caller, input.nzbn);
  return (await context.identity.listAuthorities('entity', nzbn)).map((a) => published(nzbn, a));
}

/** Grants business authority to a user (by email) or an organisation (by identifier): exactly one. */
export async function grantAuthority(
  context: NzbnContext,
  input: { caller: Caller | undefined; nzbn: string; grant: AuthorityGrant },
): Promise<Authority> {
  const nzbn = await entityActedFor(context, input.caller, input.nzbn);
  const { userEmail, organisationId, role } = input.grant;
  if ((userEmail === undefined) === (organisationId === undefined)) {
    throw badRequest('userEmail', 'give exactly one of userEmail and organisationId');
  }
  const holder = userEmail !== undefined ? { email: userEmail } : { organisation: organisationId! };
  const granted = await context.identity.grantAuthority('entity', nzbn, holder, {
    role: role ?? 'authority',
    ...(input.caller?.userId ? { grantedBy: input.caller.userId } : {}),
  });
  if (!granted) {
    throw userEmail !== undefined
      ? badRequest('userEmail', 'no user has this email address')
      : badRequest('organisationId', `no ${context.environment} organisation has this identifier`);
  }
  return published(nzbn, granted);
}

/** Revokes one authority, held against the authority as listed (its ETag and grant time). */
export async function revokeAuthority(
  context: NzbnContext,
  input: { caller: Caller | undefined; nzbn: string; authorityId: string; preconditions: Preconditions },
): Promise<void> {
  const nzbn = await entityActedFor(context, input.caller, input.nzbn);
  const { authorityId } = input;
  const notFound = () =>
    new HttpError(NZBN_ERRORS.notFound, 'Object Not Found: no such authority over this entity');
  // The authority as listed (its bytes make the ETag; its grant is its last modification). The
  // holders live in the gateway's database, outside this register's transactions: a revocation
  // between this check and the revoke below is answered 404, as a second revoke is.
  const held = (await context.identity.listAuthorities('entity', nzbn)).find((a) => a.id === authorityId);
  if (!held) throw notFound();
  input.preconditions({ etag: strongEtag(published(nzbn, held)), lastModified: held.grantedAt });
  if (!(await context.identity.revokeAuthority('entity', nzbn, authorityId))) throw notFound();
}

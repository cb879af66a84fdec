/**
 * Business authorities (published Authority, NZBN_103): who may act for an entity (update its Primary
 * Business Data, see its private data, manage its organisation parts). They live in the gateway's
 * database (identity/), and services ask identity on every call, so a decision takes effect at once.
 *
 * - A signed-in user requests authority over an entity for themselves, or for an organisation they
 *   administer, with its `approvalType` and supporting documents: PENDING until an operator accepts or
 *   rejects it (the API, the portal's approvals or `rsg users authorities decide`). A holder of authority
 *   over the entity (or an operator) grants it to another user at once with `approvalType: USER`.
 * - Its holder withdraws a pending request (REMOVED) or surrenders an accepted authority (SURRENDERED);
 *   an operator or another holder of the entity revokes it (REVOKED); it ends (REMOVED) with the
 *   membership it was held through.
 * - The search shows a user their own authorities, their organisations' and those over the entities they
 *   act for; an operator every one.
 */

import type { Caller } from '../../../gateway/service-context.ts';
import {
  AUTHORITY_STATUSES,
  type AuthoritySearch,
  type AuthorityStatus,
  administers,
  type RegisterAuthority,
  type UserProfile,
} from '../../../identity/domain/register-profiles.ts';
import { strongEtag } from '../../../platform/http/conditional.ts';
import { badRequest } from '../../../platform/http/errors.ts';
import type { Preconditions } from '../../../platform/http/operation.ts';
import type { PageRequest } from '../../../platform/http/pagination.ts';
import { evidence, publishedAuthority } from '../domain/directory.ts';
import type {
  Authority,
  AuthorityChangeBody,
  AuthorityRequestBody,
  AuthoritySearchQuery,
} from '../schemas/directory.ts';
import { forbidden, notFound, signedIn } from './directory-support.ts';
import { answeredDocuments, keptDocuments } from './document-links.ts';
import { actsFor, choice, entityView, loadEntity, type NzbnContext, nzbnParam } from './support.ts';

const KIND = 'entity';

/** The published facts of the entity an authority is over (null when the register has no such entity). */
async function entityFacts(context: NzbnContext, nzbn: string) {
  try {
    const entity = entityView(await loadEntity(context, nzbn), false);
    return {
      entityName: entity.entityName,
      entityStatusCode: entity.entityStatusCode,
      entityTypeCode: entity.entityTypeCode,
    };
  } catch {
    return undefined;
  }
}

/** An authority as published, its uploaded documents with signed URLs made for `caller`. */
const published = async (
  context: NzbnContext,
  authority: RegisterAuthority,
  caller: Caller | undefined,
): Promise<Authority> => ({
  ...publishedAuthority(authority, await entityFacts(context, authority.objectId)),
  documents: await answeredDocuments(context, caller, authority.documents),
});

const SORTS = { authorityStartDate: 'authorityStartDate', nzbn: 'nzbn', authorityStatus: 'status' } as const;

/** The statuses asked for: repeated or comma-joined, any case. */
function statusesOf(values: readonly string[] | undefined): AuthorityStatus[] {
  return (values ?? [])
    .flatMap((value) => value.split(','))
    .map((value) => value.trim())
    .filter(Boolean)
    .map((value) => {
      const status = choice(value, AUTHORITY_STATUSES);
      if (!status) throw badRequest('authority-status', `must be one of ${AUTHORITY_STATUSES.join(', ')}`);
      return status;
    });
}

/** NZBN_103_1: a page of the authorities the caller may see, by the published filters. */
export async function searchAuthorities(
  context: NzbnContext,
  input: { caller: Caller | undefined; query: AuthoritySearchQuery; page: PageRequest },
): Promise<{ total: number; items: Authority[]; sortBy: string; sortOrder: 'ASC' | 'DESC' }> {
  const viewer = await signedIn(context, input.caller);
  const { query, page } = input;
  const sortBy = choice(
    query['sort-by'] ?? 'authorityStartDate',
    Object.keys(SORTS) as (keyof typeof SORTS)[],
  );
  if (!sortBy) throw badRequest('sort-by', `must be one of ${Object.keys(SORTS).join(', ')}`);
  const sortOrder = query.sortorder ?? 'ASC';
  const search: AuthoritySearch = {
    kind: KIND,
    objectId: query.nzbn === undefined ? undefined : nzbnParam(query.nzbn),
    userId: query['user-id'],
    organisationIdentifier: query['organisation-id'],
    historic: query.historic ?? false,
    statuses: statusesOf(query['authority-status']),
    visibleTo: viewer.isOperator ? null : viewer.id,
    sortBy: SORTS[sortBy],
    sortOrder,
    limit: page.pageSize,
    offset: page.offset,
  };
  if (search.userId !== undefined && !/^[0-9a-f-]{36}$/i.test(search.userId)) {
    return { total: 0, items: [], sortBy, sortOrder };
  }
  const found = await context.identity.directory.authorities(search);
  const items = await Promise.all(
    found.items.map((authority) => published(context, authority, input.caller)),
  );
  return { total: found.total, items, sortBy, sortOrder };
}

/** Whether the viewer holds the authority: it is theirs, or their organisation's and they administer it. */
async function holds(context: NzbnContext, viewer: UserProfile, authority: RegisterAuthority) {
  if (authority.userId !== null) return authority.userId === viewer.id;
  const organisation = await context.identity.directory.organisation(authority.organisationIdentifier!);
  return (
    organisation !== undefined &&
    administers(await context.identity.directory.roleIn(organisation.id, viewer.id))
  );
}

/** The holder a request names: the caller, another user, an organisation, or a user for an organisation. */
async function requestedHolder(context: NzbnContext, viewer: UserProfile, body: AuthorityRequestBody) {
  const userId = body.userId ?? (body.organisationId ? null : viewer.id);
  if (userId !== null && userId !== viewer.id && !(await context.identity.directory.user(userId))) {
    throw badRequest('userId', 'no user has this id');
  }
  if (!body.organisationId) return { userId, organisationIdentifier: null, forOthers: userId !== viewer.id };
  const organisation = await context.identity.directory.organisation(body.organisationId);
  if (!organisation)
    throw badRequest('organisationId', `no ${context.environment} organisation has this identifier`);
  // The organisation itself holds it: asked by its administrators (a user holding it for the organisation
  // must belong to it, below).
  const role = await context.identity.directory.roleIn(organisation.id, viewer.id);
  if (userId === null && !viewer.isOperator && !administers(role)) {
    throw forbidden('organisationId', 'a request for an organisation is made by its administrators');
  }
  if (userId !== null && (await context.identity.directory.roleIn(organisation.id, userId)) === undefined) {
    throw badRequest('userId', 'does not belong to the organisation');
  }
  return { userId, organisationIdentifier: organisation.identifier, forOthers: userId !== viewer.id };
}

/**
 * NZBN_103_2: requests business authority over an entity (PENDING), or grants it at once when a holder
 * of authority over the entity (or an operator) gives it with `approvalType: USER`.
 */
export async function requestAuthority(
  context: NzbnContext,
  input: { caller: Caller | undefined; body: AuthorityRequestBody },
): Promise<Authority> {
  const viewer = await signedIn(context, input.caller);
  const { body } = input;
  const nzbn = nzbnParam(body.nzbn);
  if (!(await entityFacts(context, nzbn))) throw badRequest('nzbn', 'no entity has this business number');
  const holder = await requestedHolder(context, viewer, body);
  const grants = viewer.isOperator || (await actsFor(context, input.caller, nzbn));
  if (holder.forOthers && !grants) {
    throw forbidden('userId', 'only a holder of authority over the entity grants it to another user');
  }
  const given = evidence(body);
  const documents = await keptDocuments(context, viewer.id, given.documents);
  if (body.approvalType === 'USER' && !grants) {
    throw badRequest('approvalType', 'USER is the approval of a holder of authority over the entity');
  }
  if (body.approvalType !== 'USER' && !given.documents?.length && !given.supportingInformation?.length) {
    throw badRequest('documents', `a ${body.approvalType} request needs its supporting documents`);
  }
  const made = await context.identity.directory.requestAuthority({
    kind: KIND,
    objectId: nzbn,
    userId: holder.userId,
    organisationIdentifier: holder.organisationIdentifier,
    status: body.approvalType === 'USER' ? 'ACCEPTED' : 'PENDING',
    authorityType: body.AuthorityType ?? 'DELEGATED',
    approvalType: body.approvalType,
    supportingInformation: given.supportingInformation ?? [],
    documents: documents ?? [],
    reason: body.reason ?? null,
    comment: body.comment ?? null,
    requestedBy: viewer.id,
  });
  if (!made) throw badRequest('nzbn', 'the holder has a current authority or request over this entity');
  return published(context, made, input.caller);
}

/** Who may move an authority to `to`, from where it is. */
function checkMove(
  current: RegisterAuthority,
  to: AuthorityStatus,
  standing: { operator: boolean; holder: boolean; entityHolder: boolean },
): void {
  const refuse = (rule: string) => badRequest('AuthorityStatus', rule);
  const denied = (who: string) => forbidden('AuthorityStatus', `${to} is decided by ${who}`);
  if (to === 'ACCEPTED' || to === 'REJECTED') {
    if (current.status !== 'PENDING') throw refuse(`${to} is the decision on a PENDING request`);
    if (!standing.operator) throw denied('an operator');
  } else if (to === 'REMOVED' || to === 'SURRENDERED') {
    const from = to === 'REMOVED' ? 'PENDING' : 'ACCEPTED';
    if (current.status !== from) throw refuse(`${to} ends a ${from} authority`);
    if (!standing.holder && !standing.operator) throw denied('its holder');
  } else if (to === 'REVOKED') {
    if (current.status !== 'ACCEPTED') throw refuse('REVOKED ends an ACCEPTED authority');
    if (!standing.operator && !standing.entityHolder) throw denied('an operator or a holder of the entity');
  } else {
    throw refuse('may be set to ACCEPTED, REJECTED, REMOVED, SURRENDERED or REVOKED');
  }
}

/**
 * NZBN_103_3: an operator accepts or rejects a request; its holder withdraws or surrenders it, or
 * changes a pending request's documents; an operator or a holder of the entity revokes it.
 */
export async function changeAuthority(
  context: NzbnContext,
  input: {
    caller: Caller | undefined;
    authorityId: string;
    body: AuthorityChangeBody;
    preconditions: Preconditions;
  },
): Promise<void> {
  const viewer = await signedIn(context, input.caller);
  const { body, authorityId } = input;
  const found = await context.identity.directory.authority(KIND, authorityId);
  const missing = () => notFound(`no authority has the id ${authorityId}`);
  if (!found) throw missing();
  const standing = {
    operator: viewer.isOperator,
    holder: await holds(context, viewer, found),
    entityHolder: await actsFor(context, input.caller, found.objectId),
  };
  if (!standing.operator && !standing.holder && !standing.entityHolder) {
    throw forbidden('authorityId', 'the signed-in user neither holds this authority nor acts for its entity');
  }
  if (body.nzbn !== undefined && body.nzbn !== found.objectId) {
    throw badRequest('nzbn', 'is the authority’s own business number: an authority does not move');
  }
  const to = body.AuthorityStatus;
  const given = evidence(body);
  const documents = await keptDocuments(context, viewer.id, given.documents, found.documents);
  const changed = await context.identity.directory.changeAuthority(
    KIND,
    authorityId,
    {
      ...(to !== undefined && to !== found.status ? { status: to } : {}),
      by: viewer.id,
      ...(body.reason ? { reason: body.reason } : {}),
      ...(body.comment ? { comment: body.comment } : {}),
      ...given,
      ...(documents ? { documents } : {}),
    },
    (current) => {
      if (to !== undefined && to !== current.status) checkMove(current, to, standing);
      else if (current.status !== 'PENDING' || !standing.holder) {
        throw badRequest(
          'AuthorityStatus',
          'documents and words change only on a PENDING request, by its holder',
        );
      }
      input.preconditions({
        etag: strongEtag(publishedAuthority(current, undefined)),
        lastModified: current.updatedAt,
      });
    },
  );
  if (!changed) throw missing();
}

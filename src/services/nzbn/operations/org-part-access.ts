/**
 * Access to organisation parts that are not public (domain/organisation-part-access.ts): the published
 * request (OP025), by a signed-in user with business authority over the requesting entity, and the
 * owner's side, ours (the published definition has none): the requests for the entity's parts and the
 * decision on one, both needing business authority over the part's entity. A request is checked before
 * it is written: the requesting entity exists and the caller acts for it (else 403, so nobody else learns
 * which part numbers exist), the part exists (404), is not public and is not seen by that entity already
 * (400).
 */
import type { Caller } from '../../../gateway/service-context.ts';
import { HttpError } from '../../../platform/http/errors.ts';
import type { Preconditions, ResourceValidators } from '../../../platform/http/operation.ts';
import { formatNzDateTime } from '../../../platform/nz-time.ts';
import {
  type AccessRequestStatus,
  accessRequestProblem,
  decisionOf,
  type OpnAccessRequestItem,
  requestStatusOf,
  statusAfterAsking,
} from '../domain/organisation-part-access.ts';
import { NZBN_ERRORS } from '../errors.ts';
import {
  accessRequestsTo,
  askForAccess,
  decideAccess,
  type StoredAccessRequest,
} from '../store/org-part-access.ts';
import { findPart } from '../store/org-parts.ts';
import { readAnswer } from './entities.ts';
import {
  baseUrl,
  latestOf,
  link,
  loadEntity,
  type NzbnContext,
  nzbnParam,
  partNotFound,
  requireAuthority,
} from './support.ts';

const time = (at: Date) => formatNzDateTime(at.getTime());

/** A request as its part's owner sees it, with the address of its decision and of the part. */
function itemOf(context: NzbnContext, request: StoredAccessRequest): OpnAccessRequestItem {
  const part = `${baseUrl(context)}/entities/${request.parentNzbn}/organisation-parts/${request.opn}`;
  return {
    opn: request.opn,
    name: request.name,
    requestingNzbn: request.requestingNzbn,
    requestingEntityName: request.requestingEntityName,
    requestStatus: request.status,
    requestDate: time(request.requestedAt),
    decisionDate: request.decidedAt === null ? null : time(request.decidedAt),
    links: [
      link('decision', `${part}/access-requests/${request.requestingNzbn}`, ['PUT']),
      link('organisation-part', part),
    ],
  };
}

/** The published OPNAccessRequest: asks, for `requestingNzbn`, to see the part; answers its status. */
export async function requestPartAccess(
  context: NzbnContext,
  input: { caller: Caller | undefined; opn: string; requestingNzbn: string },
): Promise<{ opn: string; requestStatus: AccessRequestStatus }> {
  const opn = nzbnParam(input.opn, 'opn');
  const requestingNzbn = nzbnParam(input.requestingNzbn, 'requestingNzbn');
  await loadEntity(context, requestingNzbn);
  await requireAuthority(context, input.caller, requestingNzbn, 'requestingNzbn');
  const pool = context.database.pool;
  const found = await findPart(pool, opn);
  if (!found) throw partNotFound(opn);
  const problem = accessRequestProblem(found.part, requestingNzbn);
  if (problem) throw problem;
  const by = input.caller?.userId ?? null;
  const at = context.clock.now();
  const requestStatus = await askForAccess(pool, { opn, requestingNzbn, by, at }, statusAfterAsking);
  return { opn, requestStatus };
}

/** The access requests for the entity's parts (ours), one page, with the validators of that page. */
export async function partAccessRequests(
  context: NzbnContext,
  input: {
    caller: Caller | undefined;
    nzbn: string;
    opn?: string | undefined;
    requestStatus?: string | undefined;
    page: { pageSize: number; offset: number };
  },
): Promise<{ total: number; items: OpnAccessRequestItem[]; validators: ResourceValidators }> {
  const nzbn = nzbnParam(input.nzbn);
  const opn = input.opn === undefined ? undefined : nzbnParam(input.opn, 'opn');
  const status = input.requestStatus === undefined ? undefined : requestStatusOf(input.requestStatus);
  const stored = await loadEntity(context, nzbn);
  await requireAuthority(context, input.caller, nzbn);
  const page = { limit: input.page.pageSize, offset: input.page.offset };
  const found = await accessRequestsTo(context.database.pool, nzbn, { opn, status }, page);
  const items = found.items.map((request) => itemOf(context, request));
  const { validators } = readAnswer(
    [found.total, items],
    latestOf(stored.lastUpdated, updatedOf(found.items)),
  );
  return { total: found.total, items, validators };
}

const updatedOf = (requests: readonly StoredAccessRequest[]) =>
  requests.map((request) => ({ lastUpdated: request.updatedAt }));

/**
 * The owner's decision on the request of `requestingNzbn` for one of the entity's parts (ours): APPROVED
 * or DECLINED, held against the request as it stands (If-Match: the ETag of its item as last answered).
 */
export async function decidePartAccess(
  context: NzbnContext,
  input: {
    caller: Caller | undefined;
    nzbn: string;
    opn: string;
    requestingNzbn: string;
    requestStatus: string;
    preconditions: Preconditions;
  },
): Promise<{ body: string; validators: ResourceValidators }> {
  const nzbn = nzbnParam(input.nzbn);
  const opn = nzbnParam(input.opn, 'opn');
  const requestingNzbn = nzbnParam(input.requestingNzbn, 'requestingNzbn');
  const decision = decisionOf(input.requestStatus);
  await loadEntity(context, nzbn);
  await requireAuthority(context, input.caller, nzbn);
  const key = { opn, requestingNzbn };
  const by = { by: input.caller?.userId ?? null, at: context.clock.now() };
  const decided = await decideAccess(context.database.pool, key, by, (current) => {
    if (current.parentNzbn !== nzbn) throw accessRequestNotFound(opn, requestingNzbn);
    input.preconditions({
      etag: readAnswer(itemOf(context, current), current.updatedAt).validators.etag,
      lastModified: current.updatedAt,
    });
    return decision;
  });
  if (!decided) throw accessRequestNotFound(opn, requestingNzbn);
  return readAnswer(itemOf(context, decided), decided.updatedAt);
}

const accessRequestNotFound = (opn: string, requestingNzbn: string): HttpError =>
  new HttpError(
    NZBN_ERRORS.notFound,
    `Object Not Found: the organisation part ${opn} has no access request of ${requestingNzbn}`,
  );

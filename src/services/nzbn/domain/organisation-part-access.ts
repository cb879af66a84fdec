/**
 * Requests for access to an organisation part that is not public: an entity (`requestingNzbn`) asks to
 * see a part (`opn`) its holders of authority may not see (the published OPNAccessRequest, answered with
 * the published OpnAccessResponse), and the part's owner decides. `requestStatus` is published as a
 * string; its values are ours, the words of the published PurchaseStatusType: PENDING until the owner
 * decides, then APPROVED or DECLINED. The owner may decide again (declining an approved request takes the
 * access away); the requester asking again leaves a PENDING or APPROVED request as it is and puts a
 * DECLINED one back to PENDING. An APPROVED request lets the requesting entity's holders of authority see
 * the part, as the owner's do (domain/organisation-part.ts `partVisibleTo`).
 */
import { type Static, Type } from '@sinclair/typebox';
import { RuleError } from '../../../platform/errors.ts';
import { type OrganisationPart, partVisibleTo, publishedValue } from './organisation-part.ts';
import { Link, Nullable, Nzbn, NzDateTime, Strict } from './schema-parts.ts';

export const ACCESS_REQUEST_STATUSES = ['PENDING', 'APPROVED', 'DECLINED'] as const;
export type AccessRequestStatus = (typeof ACCESS_REQUEST_STATUSES)[number];
/** What the owner decides. */
export const ACCESS_DECISIONS = ['APPROVED', 'DECLINED'] as const;
export type AccessDecision = (typeof ACCESS_DECISIONS)[number];

const statusOf = (values: readonly string[]) => Type.Union(values.map((value) => Type.Literal(value)));

/** The published OPNAccessRequest: both fields are needed to ask. */
export const OPNAccessRequest = Type.Object(
  {
    opn: Type.String({ maxLength: 20, description: 'The organisation part asked for' }),
    requestingNzbn: Type.String({
      maxLength: 20,
      description: 'The entity that asks: the signed-in user holds business authority over it',
    }),
  },
  { ...Strict, examples: [{ opn: '9429800000026', requestingNzbn: '9429000003025' }] },
);

/** The published OpnAccessResponse. */
export const OpnAccessResponse = Type.Object(
  { opn: Nzbn, requestStatus: statusOf(ACCESS_REQUEST_STATUSES) },
  Strict,
);

/** An access request as its part's owner sees it (ours: the published definition has no such view). */
export const OpnAccessRequestItem = Type.Object(
  {
    opn: Nzbn,
    name: Type.String({ description: "The part's name" }),
    requestingNzbn: Nzbn,
    requestingEntityName: Type.String(),
    requestStatus: statusOf(ACCESS_REQUEST_STATUSES),
    requestDate: NzDateTime,
    decisionDate: Nullable(NzDateTime),
    links: Type.Array(Link),
  },
  Strict,
);
export type OpnAccessRequestItem = Static<typeof OpnAccessRequestItem>;

/** The owner's decision (ours). */
export const OpnAccessDecision = Type.Object(
  { requestStatus: Type.String({ maxLength: 20, description: 'APPROVED or DECLINED (any case)' }) },
  { ...Strict, examples: [{ requestStatus: 'APPROVED' }] },
);

/** The decision a body names, in any case; 400 naming `requestStatus` otherwise. */
export function decisionOf(value: string): AccessDecision {
  const decision = publishedValue(value, ACCESS_DECISIONS);
  if (!decision) throw new RuleError('requestStatus', `must be one of ${ACCESS_DECISIONS.join(', ')}`);
  return decision;
}

/** A `request-status` filter value, in any case; 400 naming the parameter otherwise. */
export function requestStatusOf(value: string): AccessRequestStatus {
  const status = publishedValue(value, ACCESS_REQUEST_STATUSES);
  if (!status) throw new RuleError('request-status', `must be one of ${ACCESS_REQUEST_STATUSES.join(', ')}`);
  return status;
}

/**
 * Why `requestingNzbn` cannot ask for the part (400), or null: a public part is seen by everyone, and
 * the part's own entity or one it is shared with sees it already.
 */
export function accessRequestProblem(
  part: Pick<OrganisationPart, 'opn' | 'parentNzbn' | 'privacy' | 'nzbn-list'>,
  requestingNzbn: string,
): RuleError | null {
  if (part.privacy === 'PUBLIC')
    return new RuleError('opn', 'is a public organisation part: everyone sees it');
  if (partVisibleTo(part, new Set([requestingNzbn]))) {
    return new RuleError('requestingNzbn', 'sees this organisation part already');
  }
  return null;
}

/** The status of a request after the requester asks (again): see the header. */
export const statusAfterAsking = (current: AccessRequestStatus | undefined): AccessRequestStatus =>
  current === undefined || current === 'DECLINED' ? 'PENDING' : current;

import type { Pool } from 'pg';
import {
  type MembershipRole,
  type Organisation,
  userIdentifierProblem,
} from '../../identity/domain/organisations.ts';
import { IDENTITY_ERRORS, OrganisationError } from '../../identity/errors.ts';
import { grantAuthority } from '../../identity/operations/authorities.ts';
import { addOrganisation } from '../../identity/operations/organisations.ts';
import { listAuthorities } from '../../identity/store/authorities.ts';
import { addMember, organisationsOf } from '../../identity/store/memberships.ts';
import { sendMail } from '../../platform/mail.ts';
import type { Environment } from '../../services/contract.ts';
import { CLAIMABLE, checkedAccessRequest, entityObject } from '../domain/sandbox.ts';
import { checkedDecision, UUID } from '../domain/values.ts';
import { conflict, invalidField, notFound } from '../errors.ts';
import type { PortalDeps } from '../index.ts';
import type { PortalUser } from '../session.ts';
import {
  type AccessRequestRow,
  accessRequestsOf,
  insertAccessRequest,
  markAccessRequestDecided,
  waitingAccessRequest,
  waitingAccessRequests,
} from '../store/access-requests.ts';
import { mailOperators, withUsers } from './users.ts';

/**
 * Self-service sandbox access (authority over the test businesses, sandbox organisations made by the
 * user) and production access asked of the operators. Organisations, memberships and authorities are
 * identity's: made through its operations and read through its store.
 */
export interface SandboxAccess {
  /** The test businesses the user holds authority over. */
  held: Set<string>;
  organisations: (Organisation & { role: MembershipRole })[];
  requests: AccessRequestRow[];
}

export async function sandboxAccessOf(pool: Pool, userId: string): Promise<SandboxAccess> {
  const held = new Set<string>();
  for (const fixture of CLAIMABLE) {
    const authorities = await listAuthorities(pool, entityObject('sandbox', fixture.nzbn));
    if (authorities.some((authority) => authority.userId === userId)) held.add(fixture.nzbn);
  }
  const organisations = (await organisationsOf(pool, userId)).filter((o) => o.environment === 'sandbox');
  return { held, organisations, requests: await accessRequestsOf(pool, userId) };
}

/** Business authority over every test business, dated by the sandbox's clock as the register's own grants are. */
export async function claimTestBusinesses(deps: PortalDeps, userId: string): Promise<void> {
  for (const fixture of CLAIMABLE) {
    await grantAuthority(
      deps.runtime.gateway.pool,
      entityObject('sandbox', fixture.nzbn),
      { userId },
      { grantedBy: userId, at: deps.runtime.clocks.for('sandbox').now() },
    );
  }
}

/** A sandbox organisation with an identifier the user chose, the user its owner. */
export async function makeSandboxOrganisation(
  pool: Pool,
  userId: string,
  input: { identifier: string; name: string },
): Promise<Organisation> {
  const { identifier, name } = input;
  if (!identifier) throw invalidField('identifier', 'required');
  const reserved = userIdentifierProblem(identifier);
  if (reserved) throw invalidField('identifier', reserved);
  let created: Organisation;
  try {
    created = await addOrganisation(pool, { environment: 'sandbox', identifier, name: name || identifier });
  } catch (error) {
    if (error instanceof OrganisationError) {
      if (error.code === IDENTITY_ERRORS.organisationExists) throw conflict(`identifier: ${error.message}`);
      throw invalidField('identifier', error.message);
    }
    throw error;
  }
  await addMember(pool, created.id, userId, 'owner');
  return created;
}

/** Production access asked of the operators (who are mailed); false when the same request is waiting. */
export async function askForProductionAccess(
  deps: PortalDeps,
  user: PortalUser,
  input: { kind: string; subject: string; name: string },
): Promise<boolean> {
  const kind = checkedAccessRequest(input.kind, input.subject);
  const { subject, name } = input;
  const added = await insertAccessRequest(deps.runtime.gateway.pool, {
    userId: user.id,
    kind,
    subject,
    name,
  });
  if (added) {
    await mailOperators(deps.mail, {
      subject: `Production access request: ${kind} ${subject}`,
      text: `${user.name} <${user.email}> asks for ${kind === 'organisation' ? `the production organisation ${subject}` : `business authority over ${subject} in production`}.\n\nDecide in the developer portal: /portal/operator/approvals\n`,
    });
  }
  return added;
}

export async function waitingProductionAccess(
  pool: Pool,
): Promise<(AccessRequestRow & { userEmail: string })[]> {
  return withUsers(pool, await waitingAccessRequests(pool));
}

/**
 * An operator approves a production access request (the organisation is made with the requester as its
 * owner, or the authority granted) or declines it; the requester is mailed.
 */
export async function decideProductionAccess(
  deps: PortalDeps,
  operator: PortalUser,
  id: string,
  decision: string,
): Promise<void> {
  const pool = deps.runtime.gateway.pool;
  checkedDecision(decision);
  const waiting = UUID.test(id) ? await waitingAccessRequest(pool, id) : undefined;
  if (!waiting) throw notFound('No access request with that id is waiting.');
  // The change first: when it is refused (an identifier taken meanwhile) the request stays waiting.
  if (decision === 'approve') await grantProductionAccess(pool, operator, waiting);
  const decided = await markAccessRequestDecided(
    pool,
    id,
    decision === 'approve' ? 'approved' : 'declined',
    operator.id,
  );
  const requester = decided && (await withUsers(pool, [decided]))[0];
  if (requester) {
    await sendMail(deps.mail, {
      to: requester.userEmail,
      subject: `Your production ${requester.kind} request was ${requester.state}`,
      text: `Your request for ${requester.kind === 'organisation' ? `the production organisation ${requester.subject}` : `business authority over ${requester.subject}`} was ${requester.state}.\n`,
    });
  }
}

async function grantProductionAccess(pool: Pool, operator: PortalUser, request: AccessRequestRow) {
  if (request.kind === 'authority') {
    await grantAuthority(
      pool,
      entityObject('production', request.subject),
      { userId: request.userId },
      { grantedBy: operator.id },
    );
    return;
  }
  let created: Organisation;
  try {
    created = await addOrganisation(pool, {
      environment: 'production',
      identifier: request.subject,
      name: request.name || request.subject,
    });
  } catch (error) {
    if (error instanceof OrganisationError) throw conflict(error.message);
    throw error;
  }
  await addMember(pool, created.id, request.userId, 'owner');
}

/** The identifier of the user's first organisation in the environment, or undefined when there is none. */
export async function organisationIn(
  pool: Pool,
  userId: string,
  environment: Environment = 'sandbox',
): Promise<string | undefined> {
  const mine = await organisationsOf(pool, userId);
  return mine.find((organisation) => organisation.environment === environment)?.identifier;
}

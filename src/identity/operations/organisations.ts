/** Organisations' operations: adding one, and finding or making a user's personal sandbox organisation. */
import { randomBytes } from 'node:crypto';
import type { Pool } from 'pg';
import type { Environment } from '../../services/contract.ts';
import {
  checkedIdentifier,
  identifierTaken,
  type Organisation,
  personalOrganisationName,
  SYSTEM_IDENTIFIER_PREFIX,
} from '../domain/organisations.ts';
import { addPersonalOwner } from '../store/memberships.ts';
import {
  findPersonalOrganisation,
  insertOrganisation,
  insertPersonalOrganisation,
} from '../store/organisations.ts';
import { findUserById } from '../store/users.ts';

export async function addOrganisation(
  pool: Pool,
  input: { environment: Environment; identifier: string; name: string },
): Promise<Organisation> {
  const identifier = checkedIdentifier(input.identifier);
  const organisation = await insertOrganisation(pool, {
    environment: input.environment,
    identifier,
    name: input.name.trim() || identifier,
  });
  if (!organisation) throw identifierTaken(input.environment, identifier);
  return organisation;
}

/**
 * The user's personal sandbox organisation, made on first need with the user as its only owner (the
 * organisation that pays a sandbox fee of a user who belongs to none). It is tied to the user by
 * `personal_of` (unique), never found by its identifier, and its identifier is random: nobody can make it
 * ahead of the user, and it never joins the user to an organisation somebody else made. Idempotent, also
 * when two calls make it at the same moment.
 */
export async function personalSandboxOrganisation(pool: Pool, userId: string): Promise<string> {
  const email = (await findUserById(pool, userId))?.email;
  if (!email) throw new Error(`no user ${userId}`);
  let organisationId = await findPersonalOrganisation(pool, userId);
  // A random identifier may (once in 2^48) be taken: then another one.
  for (let attempt = 0; organisationId === undefined && attempt < 5; attempt++) {
    const identifier = `${SYSTEM_IDENTIFIER_PREFIX}${randomBytes(6).toString('hex')}`;
    const name = personalOrganisationName(email);
    // Not made: the identifier was taken, or another call made the user's organisation meanwhile.
    organisationId =
      (await insertPersonalOrganisation(pool, { userId, identifier, name })) ??
      (await findPersonalOrganisation(pool, userId));
  }
  if (organisationId === undefined) throw new Error(`no personal sandbox organisation for ${userId}`);
  // Only into the user's own personal organisation (checked in the statement itself).
  await addPersonalOwner(pool, organisationId, userId);
  return organisationId;
}

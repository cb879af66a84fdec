/** The rules of organisations: identifiers, the system's own identifiers, membership roles. */
import type { Environment } from '../../services/contract.ts';
import { IDENTITY_ERRORS, OrganisationError } from '../errors.ts';

export type MembershipRole = 'owner' | 'admin' | 'member';

export interface Organisation {
  id: string;
  environment: Environment;
  identifier: string;
  name: string;
}

/** The identifier as it is kept (trimmed); an `OrganisationError` when it breaks the rule. */
export function checkedIdentifier(input: string): string {
  const identifier = input.trim();
  if (!/^[\w.-]{1,64}$/.test(identifier)) {
    const rule = 'is 1 to 64 letters, digits, dots, dashes or underscores';
    throw new OrganisationError(
      IDENTITY_ERRORS.invalidOrganisationIdentifier,
      'identifier',
      rule,
      `an organisation identifier ${rule}`,
    );
  }
  return identifier;
}

/** The refusal of an identifier another organisation of the environment has. */
export const identifierTaken = (environment: Environment, identifier: string): OrganisationError =>
  new OrganisationError(
    IDENTITY_ERRORS.organisationExists,
    'identifier',
    'is taken by another organisation',
    `the ${environment} organisation ${identifier} exists already`,
  );

/**
 * Identifiers that start with this are made by the gateway itself (a user's personal sandbox
 * organisation, the sandbox operators' organisation): a user cannot choose one, so no user can make, ahead
 * of the system, an organisation the system would then find and join.
 */
export const SYSTEM_IDENTIFIER_PREFIX = 'sandbox-';

/** An identifier a user may choose for an organisation (the portal's form); else what is wrong. */
export function userIdentifierProblem(identifier: string): string | undefined {
  if (identifier.toLowerCase().startsWith(SYSTEM_IDENTIFIER_PREFIX)) {
    return `identifiers starting with "${SYSTEM_IDENTIFIER_PREFIX}" are kept for organisations the sandbox makes itself`;
  }
  return undefined;
}

/** The name of a user's personal sandbox organisation. */
export const personalOrganisationName = (email: string): string => `${email} (sandbox)`;

import { invalidField } from '../errors.ts';

/**
 * Self-service sandbox access, without an operator: business authority over the documented sandbox test
 * businesses (the business number register's fixed test cases meant for updates), and sandbox
 * organisations the user makes. In production the same things are asked of the operators (an access
 * request: an organisation to create and own, or business authority over a business number).
 */
export interface Claimable {
  nzbn: string;
  title: string;
}

/**
 * The business number register's fixed test cases meant for updates (its README lists them; only the
 * composition root imports a service's files, so they are named here, and a test checks that they are
 * the register's own).
 */
export const CLAIMABLE: readonly Claimable[] = [
  {
    nzbn: '9429000003025',
    title: 'SANDBOX TEST AUTHORITY HOLDER LIMITED: a limited company meant for updates through the API',
  },
];

/** A business number register entity, as identity's authorities name it. */
export const entityObject = (environment: 'sandbox' | 'production', nzbn: string) => ({
  environment,
  service: 'nzbn',
  kind: 'entity',
  id: nzbn,
});

export type AccessKind = 'organisation' | 'authority';

const IDENTIFIER = /^[\w.-]{1,64}$/;

/** A production access request's kind and subject, checked: 400 naming the field otherwise. */
export function checkedAccessRequest(kind: string, subject: string): AccessKind {
  if (kind !== 'organisation' && kind !== 'authority') {
    throw invalidField('kind', 'must be organisation or authority');
  }
  if (kind === 'organisation' && !IDENTIFIER.test(subject)) {
    throw invalidField(
      'subject',
      'an organisation identifier is 1 to 64 letters, digits, dots, dashes or underscores',
    );
  }
  if (kind === 'authority' && !/^\d{13}$/.test(subject)) {
    throw invalidField('subject', 'a business number is 13 digits');
  }
  return kind;
}

/**
 * Direct debit authorities: their states, the moves between them, and the bank account number rule.
 * Pure: no database, no clock. The store (`../store/authorities.ts`) applies a move only from the state
 * it names, in one statement, so two operators deciding at once cannot both win.
 */

import { RuleError } from '../../platform/errors.ts';
import { PROBLEM_ERRORS } from '../../platform/http/error-codes.ts';

export type AuthorityState = 'requested' | 'approved' | 'declined' | 'cancelled';
export const AUTHORITY_STATES: readonly AuthorityState[] = ['requested', 'approved', 'declined', 'cancelled'];

export type AuthorityAction = 'approve' | 'decline' | 'cancel';

/** requested → approved | declined; approved → cancelled. Declined and cancelled are final. */
export const TRANSITIONS: Readonly<Record<AuthorityAction, { from: AuthorityState; to: AuthorityState }>> = {
  approve: { from: 'requested', to: 'approved' },
  decline: { from: 'requested', to: 'declined' },
  cancel: { from: 'approved', to: 'cancelled' },
};

/** The refusal of a move the authority's state does not allow (409 in the portal; an error in the CLI). */
export function illegalTransition(action: AuthorityAction, state: AuthorityState): RuleError {
  const from = TRANSITIONS[action].from;
  const allowed = `${from === 'approved' ? 'an' : 'a'} ${from}`;
  return new RuleError('authority', `is ${state}: only ${allowed} authority can be ${pastTense(action)}`, {
    message: `The direct debit authority is ${state}; only ${allowed} authority can be ${pastTense(action)}.`,
    code: PROBLEM_ERRORS.conflict,
  });
}

const pastTense = (action: AuthorityAction) =>
  action === 'approve' ? 'approved' : action === 'decline' ? 'declined' : 'cancelled';

/**
 * A New Zealand bank account number: bank (2 digits), branch (4), account (7) and suffix (2 or 3),
 * written with dashes, spaces or neither. Returns it masked for keeping: bank and branch (which name a
 * branch, not a customer), the account's last three digits and the suffix: `12-3140-****456-00`.
 */
export function maskAccountNumber(raw: string, field = 'accountNumber'): string {
  const match = /^(\d{2})[- ]?(\d{4})[- ]?(\d{7})[- ]?(\d{2,3})$/.exec(raw.trim());
  if (!match) {
    throw new RuleError(
      field,
      'must be a New Zealand bank account number: bank, branch, account and suffix, such as 12-3140-0123456-00',
    );
  }
  const [, bank, branch, account, suffix] = match;
  return `${bank}-${branch}-****${account!.slice(4)}-${suffix}`;
}

/** The name on the account: 1 to 100 characters, not blank. */
export function accountName(raw: string, field = 'accountName'): string {
  const name = raw.trim();
  if (name === '' || name.length > 100) throw new RuleError(field, 'must be 1 to 100 characters, not blank');
  return name;
}

/**
 * Direct credit, the operator's side: an organisation's prepaid account topped up (the CLI's
 * `rsg billing credit top-up` and the portal's operator form call this one function) and read back with
 * its movements. The charge itself is `context.fees.charge` (fees.ts) in the operation's transaction.
 */
import type pg from 'pg';
import { withTransaction } from '../platform/db/pool.ts';
import { RuleError } from '../platform/errors.ts';
import {
  type DirectCreditAccount,
  type DirectCreditMovement,
  findDirectCreditAccount,
  listDirectCreditMovements,
  topUpDirectCredit,
} from './store/direct-credit.ts';

/** At most NZ$1,000,000 in one top-up. */
export const TOP_UP_MAX_CENTS = 100_000_000;

/** An amount in New Zealand dollars as typed (`250`, `250.5`, `250.50`) → cents; else a RuleError naming `field`. */
export function parseNzdAmount(text: string, field = 'amount'): number {
  const match = /^\s*(?:NZ)?\$?\s*([0-9]{1,9})(?:\.([0-9]{1,2}))?\s*$/i.exec(text);
  if (!match) throw new RuleError(field, 'must be an amount in NZ dollars such as 250 or 250.50');
  const cents = Number(match[1]) * 100 + Number((match[2] ?? '0').padEnd(2, '0'));
  if (cents < 1 || cents > TOP_UP_MAX_CENTS)
    throw new RuleError(
      field,
      `must be from NZ$0.01 to NZ$${(TOP_UP_MAX_CENTS / 100).toLocaleString('en-NZ')}`,
    );
  return cents;
}

/** Adds `amountCents` to the organisation's direct credit account, opening it on the first top-up. */
export async function topUp(
  pool: pg.Pool,
  input: {
    organisationId: string;
    amountCents: number;
    note?: string | null;
    madeBy?: string | null;
    at: Date;
  },
): Promise<DirectCreditAccount> {
  if (!Number.isInteger(input.amountCents) || input.amountCents < 1 || input.amountCents > TOP_UP_MAX_CENTS)
    throw new RuleError('amount', `must be whole cents from 1 to ${TOP_UP_MAX_CENTS}`);
  const note = input.note?.trim() || null;
  if (note && note.length > 500) throw new RuleError('note', 'must be at most 500 characters');
  return withTransaction(pool, (tx) =>
    topUpDirectCredit(tx, {
      organisationId: input.organisationId,
      amountCents: input.amountCents,
      note,
      madeBy: input.madeBy ?? null,
      at: input.at,
    }),
  );
}

/** The organisation's account and its last movements; undefined: it has none. */
export async function directCreditOf(
  pool: pg.Pool,
  organisationId: string,
  limit = 20,
): Promise<{ account: DirectCreditAccount; movements: DirectCreditMovement[] } | undefined> {
  const account = await findDirectCreditAccount(pool, organisationId);
  if (!account) return undefined;
  return { account, movements: await listDirectCreditMovements(pool, organisationId, limit) };
}

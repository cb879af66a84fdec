/**
 * Direct credit accounts (migration 005): an organisation's prepaid balance, topped up by an operator
 * (`rsg billing credit top-up`, the portal's operator page) and charged per fee by the registers that
 * accept direct credit (`context.fees.charge`, in the operation's own transaction). A charge locks the
 * account's row to the transaction's end before it reads the balance, so two charges never spend the
 * same cents and a charge the balance cannot cover changes nothing.
 */
import type pg from 'pg';

type Queryable = pg.Pool | pg.PoolClient;

export interface DirectCreditAccount {
  organisationId: string;
  balanceCents: number;
  openedAt: Date;
  updatedAt: Date;
}

export interface DirectCreditMovement {
  id: number;
  kind: 'top-up' | 'charge';
  amountCents: number;
  balanceAfterCents: number;
  feeRecordId: number | null;
  billingPeriod: string | null;
  note: string | null;
  madeBy: string | null;
  madeAt: Date;
}

const ACCOUNT = `organisation_id AS "organisationId", balance_cents::float8 AS "balanceCents",
  opened_at AS "openedAt", updated_at AS "updatedAt"`;

export async function findDirectCreditAccount(
  db: Queryable,
  organisationId: string,
): Promise<DirectCreditAccount | undefined> {
  const { rows } = await db.query<DirectCreditAccount>(
    `SELECT ${ACCOUNT} FROM direct_credit_accounts WHERE organisation_id = $1`,
    [organisationId],
  );
  return rows[0];
}

/** Adds to the organisation's balance (the account opened by its first top-up), with its movement. */
export async function topUpDirectCredit(
  tx: pg.PoolClient,
  input: {
    organisationId: string;
    amountCents: number;
    note: string | null;
    madeBy: string | null;
    at: Date;
  },
): Promise<DirectCreditAccount> {
  const { rows } = await tx.query<DirectCreditAccount>(
    `INSERT INTO direct_credit_accounts (organisation_id, balance_cents, opened_at, updated_at)
     VALUES ($1, $2, $3, $3)
     ON CONFLICT (organisation_id) DO UPDATE
       SET balance_cents = direct_credit_accounts.balance_cents + EXCLUDED.balance_cents, updated_at = $3
     RETURNING ${ACCOUNT}`,
    [input.organisationId, input.amountCents, input.at],
  );
  const account = rows[0]!;
  await tx.query(
    `INSERT INTO direct_credit_movements (organisation_id, kind, amount_cents, balance_after_cents, note, made_by, made_at)
     VALUES ($1, 'top-up', $2, $3, $4, $5, $6)`,
    [input.organisationId, input.amountCents, account.balanceCents, input.note, input.madeBy, input.at],
  );
  return account;
}

/**
 * Takes `amountCents` from the balance in `tx`, the row held to the transaction's end. `none`: the
 * organisation has no direct credit account; `short`: the balance is less (nothing changed).
 */
export async function takeDirectCredit(
  tx: pg.PoolClient,
  organisationId: string,
  amountCents: number,
  at: Date,
): Promise<{ balanceCents: number } | { refused: 'none' | 'short'; balanceCents: number }> {
  const locked = await tx.query<{ balanceCents: number }>(
    `SELECT balance_cents::float8 AS "balanceCents" FROM direct_credit_accounts
      WHERE organisation_id = $1 FOR UPDATE`,
    [organisationId],
  );
  const account = locked.rows[0];
  if (!account) return { refused: 'none', balanceCents: 0 };
  if (account.balanceCents < amountCents) return { refused: 'short', balanceCents: account.balanceCents };
  const { rows } = await tx.query<{ balanceCents: number }>(
    `UPDATE direct_credit_accounts SET balance_cents = balance_cents - $2, updated_at = $3
      WHERE organisation_id = $1 RETURNING balance_cents::float8 AS "balanceCents"`,
    [organisationId, amountCents, at],
  );
  return { balanceCents: rows[0]!.balanceCents };
}

/** Records a charge taken by `takeDirectCredit` against its fee record (same transaction). */
export async function recordDirectCreditCharge(
  tx: pg.PoolClient,
  input: {
    organisationId: string;
    amountCents: number;
    balanceAfterCents: number;
    feeRecordId: number;
    billingPeriod: string;
    at: Date;
  },
): Promise<void> {
  await tx.query(
    `INSERT INTO direct_credit_movements
       (organisation_id, kind, amount_cents, balance_after_cents, fee_record_id, billing_period, made_at)
     VALUES ($1, 'charge', $2, $3, $4, $5, $6)`,
    [
      input.organisationId,
      input.amountCents,
      input.balanceAfterCents,
      input.feeRecordId,
      input.billingPeriod,
      input.at,
    ],
  );
}

/** The account's movements, newest first. */
export async function listDirectCreditMovements(
  db: Queryable,
  organisationId: string,
  limit = 50,
): Promise<DirectCreditMovement[]> {
  const { rows } = await db.query<DirectCreditMovement>(
    `SELECT id::float8 AS id, kind, amount_cents::float8 AS "amountCents",
            balance_after_cents::float8 AS "balanceAfterCents", fee_record_id::float8 AS "feeRecordId",
            billing_period AS "billingPeriod", note, made_by AS "madeBy", made_at AS "madeAt"
       FROM direct_credit_movements WHERE organisation_id = $1 ORDER BY made_at DESC, id DESC LIMIT $2`,
    [organisationId, limit],
  );
  return rows;
}

/** What the organisation's direct credit account paid of a month's fees (an invoice's period). */
export async function directCreditPaidInPeriod(
  db: Queryable,
  organisationId: string,
  period: string,
): Promise<number> {
  const { rows } = await db.query<{ paid: number }>(
    `SELECT coalesce(sum(amount_cents), 0)::float8 AS paid FROM direct_credit_movements
      WHERE organisation_id = $1 AND billing_period = $2 AND kind = 'charge'`,
    [organisationId, period],
  );
  return rows[0]!.paid;
}

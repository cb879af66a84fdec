/**
 * Direct debit authorities in SQL, per environment database: request (approved at once in the sandbox,
 * where the authority is a dummy one), approve, decline, cancel, list and the current one. Each move is
 * one UPDATE guarded by the state it leaves, so concurrent decisions cannot both apply; a refused move
 * names the state the authority is in. The portal pages and `rsg billing authorities` call these;
 * `context.fees` (fees.ts) reads which payers hold an approved one.
 */
import type pg from 'pg';
import { RuleError } from '../../platform/errors.ts';
import { PLATFORM_ERRORS, PROBLEM_ERRORS } from '../../platform/http/error-codes.ts';
import type { Environment } from '../../services/contract.ts';
import {
  type AuthorityAction,
  type AuthorityState,
  accountName,
  illegalTransition,
  maskAccountNumber,
  TRANSITIONS,
} from '../domain/authority.ts';

type Queryable = pg.Pool | pg.PoolClient;

export interface DirectDebitAuthority {
  id: string;
  organisationId: string;
  state: AuthorityState;
  accountName: string | null;
  accountNumberMasked: string | null;
  requestedBy: string | null;
  requestedAt: Date;
  decidedBy: string | null;
  decidedAt: Date | null;
  decisionNote: string | null;
  cancelledBy: string | null;
  cancelledAt: Date | null;
}

const COLUMNS = `id, organisation_id AS "organisationId", state, account_name AS "accountName",
  account_number_masked AS "accountNumberMasked", requested_by AS "requestedBy", requested_at AS "requestedAt",
  decided_by AS "decidedBy", decided_at AS "decidedAt", decision_note AS "decisionNote",
  cancelled_by AS "cancelledBy", cancelled_at AS "cancelledAt"`;

/** The note on a sandbox authority: nobody decided it. */
export const SANDBOX_DUMMY_NOTE = 'Sandbox: a dummy authority, approved at once';

export interface AuthorityRequest {
  organisationId: string;
  /** The member asking (null from the command line). */
  requestedBy?: string | null;
  /** Required in production; the sandbox's dummy authority may go without. */
  accountName?: string;
  accountNumber?: string;
  now: Date;
}

/**
 * Requests an authority for the organisation. In production it waits for an operator's decision; in the
 * sandbox it is approved at once. Refused (409) while the organisation has one requested or approved.
 */
export async function requestAuthority(
  db: Queryable,
  environment: Environment,
  request: AuthorityRequest,
): Promise<DirectDebitAuthority> {
  const sandbox = environment === 'sandbox';
  const name =
    request.accountName !== undefined
      ? accountName(request.accountName)
      : sandbox
        ? 'Sandbox dummy account'
        : undefined;
  const masked =
    request.accountNumber !== undefined
      ? maskAccountNumber(request.accountNumber)
      : sandbox
        ? null
        : undefined;
  if (name === undefined) throw new RuleError('accountName', 'is required for a production authority');
  if (masked === undefined) throw new RuleError('accountNumber', 'is required for a production authority');
  const result = await db.query<DirectDebitAuthority>(
    `INSERT INTO direct_debit_authorities
       (organisation_id, state, account_name, account_number_masked, requested_by, requested_at, decided_at, decision_note)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
     ON CONFLICT (organisation_id) WHERE state IN ('requested', 'approved') DO NOTHING
     RETURNING ${COLUMNS}`,
    [
      request.organisationId,
      sandbox ? 'approved' : 'requested',
      name,
      masked,
      request.requestedBy ?? null,
      request.now,
      sandbox ? request.now : null,
      sandbox ? SANDBOX_DUMMY_NOTE : null,
    ],
  );
  const created = result.rows[0];
  if (!created) {
    const current = await currentAuthority(db, request.organisationId);
    throw new RuleError(
      'organisationId',
      `already has a ${current?.state ?? 'current'} direct debit authority`,
      {
        message: `The organisation already has a ${current?.state ?? 'current'} direct debit authority (${current?.id ?? 'just made'}); cancel it before requesting another.`,
        code: PROBLEM_ERRORS.conflict,
      },
    );
  }
  await ensureBillingAccount(db, request.organisationId, request.now);
  return created;
}

export interface Decision {
  /** The operator deciding (null from the command line). */
  by?: string | null;
  note?: string | null;
  now: Date;
}

export const approveAuthority = (db: Queryable, id: string, decision: Decision) =>
  move(db, 'approve', id, decision);
export const declineAuthority = (db: Queryable, id: string, decision: Decision) =>
  move(db, 'decline', id, decision);
export const cancelAuthority = (db: Queryable, id: string, decision: Decision) =>
  move(db, 'cancel', id, decision);

async function move(
  db: Queryable,
  action: AuthorityAction,
  id: string,
  decision: Decision,
): Promise<DirectDebitAuthority> {
  if (!UUID.test(id)) throw new RuleError('authority', 'must be an authority id (a UUID)');
  const note = decision.note?.trim() || null;
  if (note && note.length > 500) throw new RuleError('note', 'must be at most 500 characters');
  const { from, to } = TRANSITIONS[action];
  // A cancellation keeps the decision that approved it; a decision records who, when and why.
  const set =
    action === 'cancel'
      ? 'cancelled_by = $4, cancelled_at = $5'
      : 'decided_by = $4, decided_at = $5, decision_note = $6';
  const values: unknown[] = [id, from, to, decision.by ?? null, decision.now];
  if (action !== 'cancel') values.push(note);
  const result = await db.query<DirectDebitAuthority>(
    `UPDATE direct_debit_authorities SET state = $3, ${set}
      WHERE id = $1 AND state = $2 RETURNING ${COLUMNS}`,
    values,
  );
  const moved = result.rows[0];
  if (moved) return moved;
  const found = await findAuthority(db, id);
  if (!found) throw authorityNotFound(id);
  throw illegalTransition(action, found.state);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const authorityNotFound = (id: string) =>
  new RuleError('authority', `no direct debit authority has the id ${id}`, {
    message: `No direct debit authority has the id ${id} in this environment.`,
    code: PLATFORM_ERRORS.notFound,
  });

export async function findAuthority(db: Queryable, id: string): Promise<DirectDebitAuthority | undefined> {
  if (!UUID.test(id)) return undefined;
  const result = await db.query<DirectDebitAuthority>(
    `SELECT ${COLUMNS} FROM direct_debit_authorities WHERE id = $1`,
    [id],
  );
  return result.rows[0];
}

/** The organisation's requested or approved authority (at most one), if any. */
export async function currentAuthority(
  db: Queryable,
  organisationId: string,
): Promise<DirectDebitAuthority | undefined> {
  const result = await db.query<DirectDebitAuthority>(
    `SELECT ${COLUMNS} FROM direct_debit_authorities
      WHERE organisation_id = $1 AND state IN ('requested', 'approved')`,
    [organisationId],
  );
  return result.rows[0];
}

/** Whether the organisation holds an approved authority (a production fee's precondition). */
export async function holdsApprovedAuthority(db: Queryable, organisationId: string): Promise<boolean> {
  const result = await db.query(
    `SELECT 1 FROM direct_debit_authorities WHERE organisation_id = $1 AND state = 'approved'`,
    [organisationId],
  );
  return (result.rowCount ?? 0) > 0;
}

/** Those of the organisations that hold an approved authority (the payer rule's first choice). */
export async function approvedAuthorityHolders(
  db: Queryable,
  organisationIds: readonly string[],
): Promise<Set<string>> {
  const approved = await db.query<{ organisation_id: string }>(
    `SELECT organisation_id FROM direct_debit_authorities WHERE organisation_id = ANY($1::uuid[]) AND state = 'approved'`,
    [organisationIds],
  );
  return new Set(approved.rows.map((row) => row.organisation_id));
}

/** Authorities, newest request first: of one organisation, in one state, or all. */
export async function listAuthorities(
  db: Queryable,
  filter: { organisationId?: string; state?: AuthorityState; limit?: number } = {},
): Promise<DirectDebitAuthority[]> {
  const result = await db.query<DirectDebitAuthority>(
    `SELECT ${COLUMNS} FROM direct_debit_authorities
      WHERE ($1::uuid IS NULL OR organisation_id = $1) AND ($2::text IS NULL OR state = $2)
      ORDER BY requested_at DESC, id LIMIT $3`,
    [filter.organisationId ?? null, filter.state ?? null, filter.limit ?? 1000],
  );
  return result.rows;
}

/** The organisation's billing account (created with its first authority request or first fee). */
export async function ensureBillingAccount(db: Queryable, organisationId: string, now: Date): Promise<void> {
  await db.query(
    'INSERT INTO billing_accounts (organisation_id, created_at) VALUES ($1, $2) ON CONFLICT DO NOTHING',
    [organisationId, now],
  );
}

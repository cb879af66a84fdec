/**
 * The statuses time moves (domain/lifecycle.ts) in SQL: the cases a pass looks at, in keyset batches, and
 * one case's move — status, status date, version and last change, a history row per step, the case
 * cache's notice — in one transaction that first re-reads the case locked, so a renewal paid meanwhile
 * (or another process's pass) wins and nothing moves twice.
 */
import type pg from 'pg';
import { nzDate } from '../../../platform/calendar.ts';
import { withTransaction } from '../../../platform/db/pool.ts';
import type { StatusStep } from '../domain/lifecycle.ts';
import type { CaseKind, RenewalCase } from '../domain/renewals.ts';
import { noticeCaseChange } from './case-cache.ts';

interface Row {
  case_number: number;
  status: string;
  term_date: string;
  last_renewal_due_date: string | null;
}

const caseOf = (kind: CaseKind, row: Row): RenewalCase => ({
  kind,
  status: row.status,
  filingDate: row.term_date,
  lastRenewalDueDate: row.last_renewal_due_date ?? undefined,
});

/** Up to `limit` cases of `kind` numbered after `after`, in one of `statuses`, by number. */
export async function casesInStatuses(
  pool: Pick<pg.Pool, 'query'>,
  kind: CaseKind,
  statuses: readonly string[],
  after: number,
  limit: number,
): Promise<{ caseNumber: number; renewal: RenewalCase }[]> {
  const { rows } = await pool.query<Row>(
    `SELECT case_number, status, term_date::text AS term_date, last_renewal_due_date::text AS last_renewal_due_date
       FROM iponz_cases WHERE kind = $1 AND case_number > $2 AND status = ANY($3::text[])
      ORDER BY case_number LIMIT $4`,
    [kind, after, statuses, limit],
  );
  return rows.map((row) => ({ caseNumber: row.case_number, renewal: caseOf(kind, row) }));
}

/**
 * Moves one case by the steps `plan` gives for it as it is now (re-read, locked). Resolves to the steps
 * taken (none when the case changed meanwhile so that nothing is due).
 */
export async function moveCase(
  pool: pg.Pool,
  kind: CaseKind,
  caseNumber: number,
  plan: (renewal: RenewalCase) => StatusStep[],
  at: Date,
): Promise<StatusStep[]> {
  return withTransaction(pool, async (tx) => {
    const { rows } = await tx.query<Row>(
      `SELECT case_number, status, term_date::text AS term_date, last_renewal_due_date::text AS last_renewal_due_date
         FROM iponz_cases WHERE kind = $1 AND case_number = $2 FOR UPDATE`,
      [kind, caseNumber],
    );
    if (!rows[0]) return [];
    const steps = plan(caseOf(kind, rows[0]));
    const last = steps.at(-1);
    if (!last) return [];
    await tx.query(
      `UPDATE iponz_cases SET status = $3, status_date = $4, version = version + 1, updated_at = $5, updated_on = $6
        WHERE kind = $1 AND case_number = $2`,
      [kind, caseNumber, last.status, last.date, at, nzDate(at.getTime())],
    );
    await tx.query(
      `INSERT INTO iponz_status_history (kind, case_number, seq, status, status_date, recorded_at)
       SELECT $1, $2, (SELECT coalesce(max(seq), 0) FROM iponz_status_history WHERE kind = $1 AND case_number = $2)
                      + s.n, s.status, s.status_date, $5
         FROM unnest($3::text[], $4::date[]) WITH ORDINALITY AS s (status, status_date, n)`,
      [kind, caseNumber, steps.map((s) => s.status), steps.map((s) => s.date), at],
    );
    await noticeCaseChange(tx, kind, caseNumber);
    return steps;
  });
}

/**
 * The statuses time moves (domain/lifecycle.ts) in SQL: the cases a pass looks at, in keyset batches, and
 * one case's move — status, status date, version and last change, a history row per step, the case
 * cache's notice — in one transaction that first re-reads the case locked, so a renewal paid meanwhile
 * (or another process's pass) wins and nothing moves twice.
 */
import type pg from 'pg';
import { nzDate } from '../../../platform/calendar.ts';
import { withTransaction } from '../../../platform/db/pool.ts';
import { nextTimedStatus, type StatusStep, TIMED_STATUSES } from '../domain/lifecycle.ts';
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

const KINDS: readonly CaseKind[] = ['patent', 'trademark', 'design'];

/**
 * Every case that time has given a status it does not show yet on `today` (a New Zealand date), kind by
 * kind, read in batches of `batch` by number, with the first step due: what the daily pass moves
 * (jobs/timed-statuses.ts), and what the sandbox's rule `statuses-up-to-date` finds none of. A case
 * moved while the reading goes on is not read again (the next batch starts after the last number read).
 */
export async function* casesDue(
  pool: Pick<pg.Pool, 'query'>,
  today: string,
  batch = 1000,
): AsyncGenerator<{ kind: CaseKind; caseNumber: number; renewal: RenewalCase; step: StatusStep }> {
  for (const kind of KINDS) {
    for (let after = 0; ; ) {
      const cases = await casesInStatuses(pool, kind, TIMED_STATUSES[kind], after, batch);
      for (const { caseNumber, renewal } of cases) {
        const step = nextTimedStatus(renewal, today);
        if (step) yield { kind, caseNumber, renewal, step };
      }
      if (cases.length < batch) break;
      after = cases.at(-1)!.caseNumber;
    }
  }
}

/** Up to `limit` cases of `kind` numbered after `after`, in one of `statuses`, by number. */
async function casesInStatuses(
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

/**
 * The register's daily pass over the cases time can move (domain/lifecycle.ts): a trade mark past its
 * expiry date and then removed, a patent application abandoned or a patent lapsed or expired, a design
 * lapsed or expired. Both environments (time passes in production too); in the sandbox on its clock, so
 * `rsg clock advance 1y` lapses what a year lapses.
 *
 * A pass runs when the environment's New Zealand date differs from the last pass's (or when asked): it
 * reads the cases in a status time can move, kind by kind, in batches by number, and moves each one due
 * in its own transaction (store/lifecycle.ts re-reads it locked, so a renewal paid meanwhile wins and two
 * processes never move a case twice). Each step is a status-history row with its own date.
 */
import { nzDate } from '../../../platform/calendar.ts';
import type { Clock } from '../../../platform/clock.ts';
import type { Database } from '../../../platform/db/pool.ts';
import { timedSteps } from '../domain/lifecycle.ts';
import { casesDue, moveCase } from '../store/lifecycle.ts';

export class TimedStatuses {
  private lastDay: string | undefined;

  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
  ) {}

  /** Runs a pass if the date moved since the last one (or `force`); resolves to the cases moved. */
  async run(force = false): Promise<number> {
    const now = this.clock.now();
    const today = nzDate(now.getTime());
    if (!force && today === this.lastDay) return 0;
    let moved = 0;
    for await (const { kind, caseNumber } of casesDue(this.database.pool, today)) {
      const steps = await moveCase(
        this.database.pool,
        kind,
        caseNumber,
        (current) => timedSteps(current, today),
        now,
      );
      if (steps.length > 0) moved++;
    }
    // Only a pass that finished marks the day: one stopped by a fault is run again.
    this.lastDay = today;
    return moved;
  }
}

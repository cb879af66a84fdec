/**
 * The compliance activities `GET /activities` lists for one fund: for each kind, its last filed
 * activity, and every period that has ended since the fund was registered and is not filed (Overdue
 * after its due date, else Upcoming), and the next period to end (Upcoming). Ours: fund updates are
 * quarterly (periods ending 31 March, 30 June, 30 September, 31 December), due 20 working days after the
 * quarter; full portfolio holdings as published (compliance.ts). Unfiled periods are looked for over the
 * last two years at most.
 */
import { addMonths } from '../../../platform/calendar.ts';
import { type ActivityStatus, FPH_WORKING_DAYS, isPeriodEnd } from './compliance.ts';
import { isQuarterEnd } from './fund-update.ts';
import { addWorkingDays } from './working-days.ts';

export type ActivityKind = 'FUND_UPDATE' | 'FULL_PORTFOLIO_HOLDINGS';
export const FUND_UPDATE_WORKING_DAYS = 20;

export const KIND_RULES: Record<ActivityKind, { isPeriodEnd(date: string): boolean; workingDays: number }> = {
  FUND_UPDATE: { isPeriodEnd: isQuarterEnd, workingDays: FUND_UPDATE_WORKING_DAYS },
  FULL_PORTFOLIO_HOLDINGS: { isPeriodEnd, workingDays: FPH_WORKING_DAYS },
};

export const dueDateOf = (kind: ActivityKind, periodEnd: string): string =>
  addWorkingDays(periodEnd, KIND_RULES[kind].workingDays);

/** Period ends of a kind from `from` to `to` (both inclusive), oldest first. */
export function periodEnds(kind: ActivityKind, from: string, to: string): string[] {
  const ends: string[] = [];
  const year = Number(from.slice(0, 4));
  const months = kind === 'FUND_UPDATE' ? ['03-31', '06-30', '09-30', '12-31'] : ['03-31', '09-30'];
  for (let y = year; `${y}-01-01` <= to; y++) {
    for (const md of months) {
      const end = `${y}-${md}`;
      if (end >= from && end <= to) ends.push(end);
    }
  }
  return ends;
}

export interface Filing {
  kind: ActivityKind;
  periodEnd: string;
  dueDate: string;
  filedOn: string;
  late: boolean;
}

export interface Activity {
  kind: ActivityKind;
  periodEndDate: string;
  dueDate: string;
  status: ActivityStatus;
  filedDate: string | null;
  late: boolean | null;
}

/** The activities of one fund on `today`, oldest period first within each kind. */
export function activitiesOfFund(
  kinds: readonly ActivityKind[],
  registeredOn: string,
  today: string,
  filings: readonly Filing[],
): Activity[] {
  const activities: Activity[] = [];
  const floor = addMonths(today, -24);
  for (const kind of kinds) {
    const filed = filings
      .filter((f) => f.kind === kind)
      .sort((a, b) => a.periodEnd.localeCompare(b.periodEnd));
    const last = filed.at(-1);
    if (last) {
      activities.push({
        kind,
        periodEndDate: last.periodEnd,
        dueDate: last.dueDate,
        status: 'Filed',
        filedDate: last.filedOn,
        late: last.late,
      });
    }
    const filedPeriods = new Set(filed.map((f) => f.periodEnd));
    const from = registeredOn > floor ? registeredOn : floor;
    const ended = periodEnds(kind, from, addMonths(today, 6));
    let next = false;
    for (const end of ended) {
      if (filedPeriods.has(end)) continue;
      const ends = end < today;
      if (!ends && next) break;
      if (!ends) next = true;
      const due = dueDateOf(kind, end);
      activities.push({
        kind,
        periodEndDate: end,
        dueDate: due,
        status: today > due ? 'Overdue' : 'Upcoming',
        filedDate: null,
        late: null,
      });
    }
  }
  return activities;
}

/** The activity a filing for `periodEnd` completes: its due date and whether filing `today` is late. */
export function filingOf(
  kind: ActivityKind,
  periodEnd: string,
  today: string,
): { dueDate: string; late: boolean } {
  const dueDate = dueDateOf(kind, periodEnd);
  return { dueDate, late: today > dueDate };
}

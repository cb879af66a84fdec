/**
 * What the register does to a case as time passes, without anyone filing anything: the statuses the law
 * attaches to an unpaid fee or an ended term (domain/renewals.ts has the dates).
 *
 * - Trade marks (Trade Marks Act 2002 s 59): unrenewed on its expiry date, a mark is "Registered - past
 *   expiry date" from the day after, still renewable for six months; unrenewed at their end it is removed
 *   (`Removed`, the day after the grace period ends).
 * - Patents (Patents Act 2013 s 20): a maintenance or renewal fee unpaid at the end of its six months of
 *   grace: an application is abandoned (`Abandoned`), a granted patent lapses (`Lapsed`), the day after the
 *   grace period ends. Every fee paid, a granted patent expires (`Expired`) the day after its 20-year term;
 *   an application still pending then is abandoned (ours).
 * - Designs (Designs Act 1953 s 12): a renewal unpaid at the end of its grace lapses the registration
 *   (`Lapsed`); every renewal paid, it expires (`Expired`) the day after its 15 years.
 *
 * Ours: the status date is the first day of the new status (the day after the date that ended the old
 * one); a case moves at most one step per call, the step due earliest, so a job that ran late walks a
 * case through each status it passed (a trade mark long unpaid is first past its expiry date, then
 * removed), each with its own date.
 */
import { addDays } from '../../../platform/calendar.ts';
import { type CaseKind, nextSlot, type RenewalCase, stateOn, termEnd } from './renewals.ts';

export interface StatusStep {
  status: string;
  /** The first day of the new status (a New Zealand date). */
  date: string;
}

const PATENT_APPLICATION = new Set(['Filed', 'Under Examination', 'Accepted', 'Under Opposition']);

/** Statuses time can move, per kind (the renewable ones). */
export const TIMED_STATUSES: Record<CaseKind, readonly string[]> = {
  patent: [...PATENT_APPLICATION, 'Granted'],
  trademark: ['Registered', 'Registered - past expiry date'],
  design: ['Registered'],
};

/**
 * The next status a case takes by the passing of time, on or before `today` (a New Zealand date), or
 * null when none is due. `input` as renewals take it: the status, the filing date the terms count from,
 * the due date of the last fee paid.
 */
export function nextTimedStatus(input: RenewalCase, today: string): StatusStep | null {
  if (!TIMED_STATUSES[input.kind].includes(input.status)) return null;
  const slot = nextSlot(input.kind, input.filingDate, input.lastRenewalDueDate);
  if (!slot) {
    // Every fee paid: the term runs out (trade marks renew for ever and always have a next slot).
    const end = termEnd(input.kind, input.filingDate);
    if (end === null) return null;
    const date = addDays(end, 1);
    if (date > today) return null;
    if (input.kind === 'patent')
      return { status: PATENT_APPLICATION.has(input.status) ? 'Abandoned' : 'Expired', date };
    return { status: 'Expired', date };
  }
  const state = stateOn(slot, today);
  if (
    input.kind === 'trademark' &&
    input.status === 'Registered' &&
    (state === 'grace' || state === 'lapsed')
  ) {
    return { status: 'Registered - past expiry date', date: addDays(slot.dueDate, 1) };
  }
  if (state !== 'lapsed') return null;
  const date = addDays(slot.graceEnds, 1);
  if (input.kind === 'trademark') return { status: 'Removed', date };
  if (input.kind === 'patent')
    return { status: PATENT_APPLICATION.has(input.status) ? 'Abandoned' : 'Lapsed', date };
  return { status: 'Lapsed', date };
}

/** Every step due by `today`, in order: what a job that runs now does to the case. */
export function timedSteps(input: RenewalCase, today: string): StatusStep[] {
  const steps: StatusStep[] = [];
  let current = input;
  for (let step = nextTimedStatus(current, today); step; step = nextTimedStatus(current, today)) {
    steps.push(step);
    current = { ...current, status: step.status };
    if (steps.length > 4) break;
  }
  return steps;
}

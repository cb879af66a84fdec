/**
 * Renewal and maintenance fees of patents, trade marks and designs: whether one is due on a New Zealand
 * date, for which anniversary or term, its window, its amount, and the expiry it buys.
 *
 * Published (the law and the office's fee tables; GST-exclusive amounts, our fees module adds GST):
 * - Patents (Patents Act 2013 s 20: term 20 years from the filing date of the complete specification;
 *   Patents Regulations 2014 reg 9 and Schedule 1 as amended by the Patents Amendment Regulations 2019,
 *   in force from 13 February 2020): a fee is due on the 4th and each later anniversary of the filing date
 *   (a PCT case: the international filing date) up to the 19th, which keeps the patent in force to its
 *   20th. Before grant it is the application maintenance fee (NZ$200), after grant the renewal fee
 *   (4th–9th NZ$200, 10th–14th NZ$450, 15th–19th NZ$1,000). It may be paid from three months before the
 *   anniversary; paid in the six months after it, a late payment fee of NZ$100 is added (maintenance
 *   paid late: NZ$300). Unpaid at the end of those six months, an application is abandoned and a patent
 *   lapses. Sources: https://www.iponz.govt.nz/about-ip/patents/fees/ ,
 *   https://www.iponz.govt.nz/cms/patents/maintain-a-patent/renewing-your-patent-online ,
 *   https://www.mondaq.com/Article/882170 , https://legalvision.co.nz/?p=203585 .
 * - Trade marks (Trade Marks Act 2002 ss 58–59 as replaced by the Regulatory Systems (Economic
 *   Development) Amendment Act 2019; Trade Marks Regulations 2003 Schedule 1): registration lasts 10 years
 *   from the deemed date of registration (the filing date, or the convention priority date if earlier) and
 *   is renewed for 10 years at a time; renewal may be applied for from 12 months before the expiry date to
 *   6 months after it (meanwhile the status is "Registered - past expiry date"); then the mark is removed.
 *   Fee NZ$200 per class. Sources: https://www.iponz.govt.nz/about-ip/trade-marks/renew ,
 *   https://www.iponz.govt.nz/cms/trade-marks/fees/fees/sendto_form ,
 *   https://plainlanguagelaw.ackama.com/acts/DLM164239/DLM164630.html (s 59),
 *   https://www.country-index.com/newsletter_update.aspx?ID=1983 (the 2020 change).
 * - Designs (Designs Act 1953 s 12; Designs Regulations 1954 Schedule 1): registered for 5 years from the
 *   filing date (or the earliest convention priority date), renewable twice for 5 years, 15 years at most;
 *   the renewal fee is paid within the current period, or up to 6 months after its end, else the
 *   registration lapses. First renewal NZ$100, second NZ$200. Sources:
 *   https://www.iponz.govt.nz/get-ip/designs/fees/ , https://iponz.govt.nz/get-ip/designs/maintain-a-design ,
 *   http://www.halfords.com.au/renew_nz_des.shtml .
 *
 * Ours (sources missing or disagreeing):
 * - One fee schedule, the one in force since 13 February 2020, for every date; earlier schedules (patents
 *   NZ$100/200/350 with a NZ$50 penalty, trade marks NZ$350 or NZ$250 per class with a 12-month grace) and
 *   the Patents Act 1953 fees (4th, 7th, 10th and 13th years) are not modelled.
 * - Patent renewal bands: 4th–9th anniversaries (the office's table and most sources; one source prints
 *   "4th to 8th", read as a slip since it leaves the 9th without a fee).
 * - No late fee for trade marks or designs: the office's fee tables, which list every fee of those
 *   registers, print none; a renewal in the grace period costs the renewal fee.
 * - A design's window opens at the start of the period being renewed (the Act: "within the period").
 * - Dates are New Zealand calendar dates; the due date itself is still on time; the grace period ends at
 *   the end of the day six months after the due date; month arithmetic clamps to the month's last day
 *   (see platform/calendar.ts); anniversaries count from the filing date, never chained.
 * - Whether a patent fee is maintenance or renewal follows the status on the day: `Granted` is renewal.
 * - Trade mark statuses complete the published ones (Under Examination, Abeyance, Registered) with the
 *   Act's "Registered - past expiry date" (s 59: the status in the grace period, still renewable) and
 *   Accepted, Under Opposition, Withdrawn, Abandoned, Lapsed, Expired, Removed, Refused.
 * - A trade mark can have at most 45 classes (the Nice classification); the number renewed is given.
 */

import { addMonths, addYears, isDate } from '../../../platform/calendar.ts';
import { RuleError } from '../../../platform/errors.ts';

export type CaseKind = 'patent' | 'trademark' | 'design';

/** The published status values, per kind (trade marks: published values completed by ours). */
export const PATENT_STATUSES = [
  'Filed',
  'Under Examination',
  'Accepted',
  'Under Opposition',
  'Withdrawn',
  'Abandoned',
  'Granted',
  'Lapsed',
  'Closed',
  'Expired',
  'Revoked',
] as const;
export const TRADE_MARK_STATUSES = [
  'Under Examination',
  'Abeyance',
  'Accepted',
  'Under Opposition',
  'Registered',
  'Registered - past expiry date',
  'Withdrawn',
  'Abandoned',
  'Lapsed',
  'Expired',
  'Removed',
  'Refused',
] as const;
export const DESIGN_STATUSES = [
  'Filed',
  'Withdrawn',
  'Abandoned',
  'Pending Registration',
  'Registered',
  'Lapsed',
  'Expired',
  'Refused',
] as const;

export const STATUSES: Record<CaseKind, readonly string[]> = {
  patent: PATENT_STATUSES,
  trademark: TRADE_MARK_STATUSES,
  design: DESIGN_STATUSES,
};

/** Statuses in which a fee keeps the case alive: patent applications pay maintenance, the rest renew. */
const PATENT_APPLICATION_STATUSES = new Set(['Filed', 'Under Examination', 'Accepted', 'Under Opposition']);
const RENEWABLE: Record<CaseKind, ReadonlySet<string>> = {
  patent: new Set([...PATENT_APPLICATION_STATUSES, 'Granted']),
  trademark: new Set(['Registered', 'Registered - past expiry date']),
  design: new Set(['Registered']),
};

export const MAX_TRADE_MARK_CLASSES = 45;
export const PATENT_FIRST_ANNIVERSARY = 4;
export const PATENT_LAST_ANNIVERSARY = 19;
export const PATENT_TERM_YEARS = 20;
export const TRADE_MARK_TERM_YEARS = 10;
export const DESIGN_TERM_YEARS = 5;
export const DESIGN_RENEWALS = 2;
export const GRACE_MONTHS = 6;
/** Months before the due date a payment is accepted (a design: the whole period, see windowOpens). */
export const PATENT_WINDOW_MONTHS = 3;
export const TRADE_MARK_WINDOW_MONTHS = 12;

/** The fee table, integer cents, GST-exclusive (in force since 13 February 2020). */
export const FEES = {
  patentMaintenance: 20_000,
  patentRenewal4to9: 20_000,
  patentRenewal10to14: 45_000,
  patentRenewal15to19: 100_000,
  patentLatePayment: 10_000,
  tradeMarkRenewalPerClass: 20_000,
  tradeMarkLatePayment: 0,
  designFirstRenewal: 10_000,
  designSecondRenewal: 20_000,
  designLatePayment: 0,
} as const;

export interface RenewalCase {
  kind: CaseKind;
  /** The case's current status, a published value of its kind. */
  status: string;
  /**
   * The date the terms count from: a patent's filing date of the complete specification (a PCT case's
   * international filing date); a trade mark's deemed registration date (its filing date, or the
   * convention priority date if earlier); a design's filing date (or its earliest priority date).
   */
  filingDate: string;
  /** The date registered (trade marks, designs) or granted (patents); informative, checked when given. */
  registrationDate?: string | undefined;
  /** The due date (anniversary or expiry) of the last renewal or maintenance fee paid; none yet if absent. */
  lastRenewalDueDate?: string | undefined;
  /** Trade marks: the number of classes renewed, 1–45. */
  classes?: number | undefined;
}

export type RenewalState = 'not-yet-open' | 'open' | 'grace' | 'lapsed';

export interface RenewalWindow {
  /** The first day a payment is accepted. */
  opens: string;
  /** The last day of payment on time: the due date. */
  dueDate: string;
  /** The last day of the grace period, a late fee added where there is one. */
  graceEnds: string;
}

export interface RenewalDue {
  state: RenewalState;
  /** Patent applications pay maintenance fees; granted patents, trade marks and designs renewal fees. */
  fee: 'maintenance' | 'renewal';
  /** Patents: the anniversary of the filing date the fee is for (4–19). */
  anniversary: number | null;
  /** Trade marks and designs: which renewal (1 = the first, for the second term). Patents: null. */
  renewal: number | null;
  dueDate: string;
  window: RenewalWindow;
  /** True while a payment is accepted: open or in grace. */
  payable: boolean;
  /** The fee on time, integer cents, GST-exclusive. */
  baseFeeCents: number;
  /** The late fee added in the grace period (0 before it, and where the register has none). */
  lateFeeCents: number;
  /** What paying on `today` costs: base plus late fee in grace; the fee on time when not yet open; null once lapsed. */
  amountCents: number | null;
  /** The case is in force (paid) to this date: the due date. */
  expiryDate: string;
  /** The expiry date once this fee is paid. */
  nextExpiryDate: string;
}

export interface NoRenewalDue {
  state: 'none';
  /** `status`: the case's status takes no fee; `term-complete`: every renewal is paid, the term runs out. */
  reason: 'status' | 'term-complete';
  /** `term-complete`: the end of the term (the case expires after it). `status`: null. */
  expiryDate: string | null;
}

export type RenewalCheck = RenewalDue | NoRenewalDue;

function checkDate(field: string, value: string | undefined, required: boolean): void {
  if (value === undefined) {
    if (required) throw new RuleError(field, 'is required');
    return;
  }
  if (typeof value !== 'string' || !isDate(value)) throw new RuleError(field, 'must be a date, YYYY-MM-DD');
}

/** The case's data checked: dates real, the status one of its kind, classes for a trade mark. */
export function checkRenewalCase(input: RenewalCase): void {
  if (!Object.hasOwn(STATUSES, input.kind))
    throw new RuleError('kind', 'must be patent, trademark or design');
  if (!STATUSES[input.kind].includes(input.status))
    throw new RuleError('status', `must be one of ${STATUSES[input.kind].join(', ')}`);
  checkDate('filingDate', input.filingDate, true);
  checkDate('registrationDate', input.registrationDate, false);
  checkDate('lastRenewalDueDate', input.lastRenewalDueDate, false);
  if (input.registrationDate !== undefined && input.registrationDate < input.filingDate)
    throw new RuleError('registrationDate', 'must not be before filingDate');
  if (input.lastRenewalDueDate !== undefined && input.lastRenewalDueDate <= input.filingDate)
    throw new RuleError('lastRenewalDueDate', 'must be after filingDate');
  if (input.kind === 'trademark') {
    const classes = input.classes;
    if (classes === undefined) throw new RuleError('classes', 'is required for a trade mark');
    if (!Number.isInteger(classes) || classes < 1 || classes > MAX_TRADE_MARK_CLASSES)
      throw new RuleError('classes', `must be a whole number from 1 to ${MAX_TRADE_MARK_CLASSES}`);
  }
}

/** One fee in a case's life: its ordinal (patent anniversary, or renewal number) and dates. */
export interface RenewalSlot {
  ordinal: number;
  dueDate: string;
  opens: string;
  graceEnds: string;
  nextExpiryDate: string;
}

/** The `ordinal`-th fee of a kind, from the filing date; null past the last one. */
export function renewalSlot(kind: CaseKind, filingDate: string, ordinal: number): RenewalSlot | null {
  if (!Number.isInteger(ordinal)) return null;
  let dueDate: string;
  let opens: string;
  let nextExpiryDate: string;
  if (kind === 'patent') {
    if (ordinal < PATENT_FIRST_ANNIVERSARY || ordinal > PATENT_LAST_ANNIVERSARY) return null;
    dueDate = addYears(filingDate, ordinal);
    opens = addMonths(dueDate, -PATENT_WINDOW_MONTHS);
    nextExpiryDate = addYears(filingDate, ordinal + 1);
  } else if (kind === 'trademark') {
    if (ordinal < 1) return null;
    dueDate = addYears(filingDate, TRADE_MARK_TERM_YEARS * ordinal);
    opens = addMonths(dueDate, -TRADE_MARK_WINDOW_MONTHS);
    nextExpiryDate = addYears(filingDate, TRADE_MARK_TERM_YEARS * (ordinal + 1));
  } else {
    if (ordinal < 1 || ordinal > DESIGN_RENEWALS) return null;
    dueDate = addYears(filingDate, DESIGN_TERM_YEARS * ordinal);
    opens = addYears(filingDate, DESIGN_TERM_YEARS * (ordinal - 1));
    nextExpiryDate = addYears(filingDate, DESIGN_TERM_YEARS * (ordinal + 1));
  }
  return { ordinal, dueDate, opens, graceEnds: addMonths(dueDate, GRACE_MONTHS), nextExpiryDate };
}

/** The first fee's ordinal of a kind. */
const firstOrdinal = (kind: CaseKind): number => (kind === 'patent' ? PATENT_FIRST_ANNIVERSARY : 1);

/** The last day of the whole term, or null when renewals go on for ever (trade marks). */
export function termEnd(kind: CaseKind, filingDate: string): string | null {
  if (kind === 'patent') return addYears(filingDate, PATENT_TERM_YEARS);
  if (kind === 'design') return addYears(filingDate, DESIGN_TERM_YEARS * (DESIGN_RENEWALS + 1));
  return null;
}

/** The next unpaid fee: the first whose due date is after the last one paid; null when none is left. */
export function nextSlot(
  kind: CaseKind,
  filingDate: string,
  lastRenewalDueDate?: string,
): RenewalSlot | null {
  let ordinal = firstOrdinal(kind);
  if (lastRenewalDueDate !== undefined) {
    // Jump close to the answer (trade marks renew for ever), then walk.
    const years = Number(lastRenewalDueDate.slice(0, 4)) - Number(filingDate.slice(0, 4));
    const step = kind === 'patent' ? 1 : kind === 'trademark' ? TRADE_MARK_TERM_YEARS : DESIGN_TERM_YEARS;
    ordinal = Math.max(ordinal, Math.floor(years / step) - 1);
  }
  for (;;) {
    const slot = renewalSlot(kind, filingDate, ordinal);
    if (!slot) return null;
    if (lastRenewalDueDate === undefined || slot.dueDate > lastRenewalDueDate) return slot;
    ordinal++;
  }
}

function baseFee(input: RenewalCase, ordinal: number): { fee: 'maintenance' | 'renewal'; cents: number } {
  if (input.kind === 'patent') {
    if (PATENT_APPLICATION_STATUSES.has(input.status))
      return { fee: 'maintenance', cents: FEES.patentMaintenance };
    const cents =
      ordinal <= 9
        ? FEES.patentRenewal4to9
        : ordinal <= 14
          ? FEES.patentRenewal10to14
          : FEES.patentRenewal15to19;
    return { fee: 'renewal', cents };
  }
  if (input.kind === 'trademark')
    return { fee: 'renewal', cents: FEES.tradeMarkRenewalPerClass * (input.classes ?? 1) };
  return { fee: 'renewal', cents: ordinal === 1 ? FEES.designFirstRenewal : FEES.designSecondRenewal };
}

const LATE_FEE: Record<CaseKind, number> = {
  patent: FEES.patentLatePayment,
  trademark: FEES.tradeMarkLatePayment,
  design: FEES.designLatePayment,
};

/** Where a date falls in a fee's window. */
export function stateOn(
  slot: Pick<RenewalSlot, 'opens' | 'dueDate' | 'graceEnds'>,
  today: string,
): RenewalState {
  if (today < slot.opens) return 'not-yet-open';
  if (today <= slot.dueDate) return 'open';
  if (today <= slot.graceEnds) return 'grace';
  return 'lapsed';
}

/**
 * Whether a renewal or maintenance fee is due for a case on `today` (a New Zealand date), and what it is.
 * Throws RuleError naming the field for bad case data or a bad `today`.
 */
export function checkRenewal(input: RenewalCase, today: string): RenewalCheck {
  checkRenewalCase(input);
  checkDate('today', today, true);
  if (!RENEWABLE[input.kind].has(input.status)) return { state: 'none', reason: 'status', expiryDate: null };
  const slot = nextSlot(input.kind, input.filingDate, input.lastRenewalDueDate);
  if (!slot)
    return { state: 'none', reason: 'term-complete', expiryDate: termEnd(input.kind, input.filingDate) };
  const state = stateOn(slot, today);
  const { fee, cents } = baseFee(input, slot.ordinal);
  const lateFeeCents = state === 'grace' ? LATE_FEE[input.kind] : 0;
  return {
    state,
    fee,
    anniversary: input.kind === 'patent' ? slot.ordinal : null,
    renewal: input.kind === 'patent' ? null : slot.ordinal,
    dueDate: slot.dueDate,
    window: { opens: slot.opens, dueDate: slot.dueDate, graceEnds: slot.graceEnds },
    payable: state === 'open' || state === 'grace',
    baseFeeCents: cents,
    lateFeeCents,
    amountCents: state === 'lapsed' ? null : cents + lateFeeCents,
    expiryDate: slot.dueDate,
    nextExpiryDate: slot.nextExpiryDate,
  };
}

/**
 * The published `ExpiryDate` of a case in a renewable status: the date it is paid to (the next fee's due
 * date), or the end of its term once every fee is paid. Null in a status that takes no fee.
 */
export function expiryDateOf(input: RenewalCase): string | null {
  checkRenewalCase(input);
  if (!RENEWABLE[input.kind].has(input.status)) return null;
  const slot = nextSlot(input.kind, input.filingDate, input.lastRenewalDueDate);
  return slot ? slot.dueDate : termEnd(input.kind, input.filingDate);
}

export interface RenewalPayment {
  /** The new `lastRenewalDueDate` of the case. */
  renewedDueDate: string;
  /** The new expiry (next renewal) date. */
  expiryDate: string;
  amountCents: number;
  fee: 'maintenance' | 'renewal';
  late: boolean;
}

/**
 * What paying the due fee on `today` does, or a RuleError naming `field` (the case number parameter, by
 * default) when no fee is payable: not yet open, lapsed, the term complete, or a status that takes none.
 */
export function payRenewal(input: RenewalCase, today: string, field = 'case'): RenewalPayment {
  const check = checkRenewal(input, today);
  if (check.state === 'none')
    throw new RuleError(
      field,
      check.reason === 'status'
        ? `takes no renewal or maintenance fee in status ${input.status}`
        : `has every renewal paid; its term ends on ${check.expiryDate}`,
    );
  if (check.state === 'not-yet-open')
    throw new RuleError(field, `renewal for ${check.dueDate} opens on ${check.window.opens}`);
  if (check.state === 'lapsed')
    throw new RuleError(
      field,
      `renewal for ${check.dueDate} closed on ${check.window.graceEnds}; the case needs restoration`,
    );
  return {
    renewedDueDate: check.dueDate,
    expiryDate: check.nextExpiryDate,
    amountCents: check.amountCents ?? 0,
    fee: check.fee,
    late: check.state === 'grace',
  };
}

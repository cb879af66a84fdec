/**
 * The renewals a seeded case shows in its history: one event per renewal or maintenance fee the seed
 * counts as paid (every fee due up to the last one paid, `lastRenewalDueDate`), for a registered trade
 * mark or design, or a patent from its filing (a case that left the register paid only those due before
 * it left). Ours: each fee was paid 0–89 days before its due date, the days chosen by the case number
 * (deterministic, outside the case's random stream, so the rest of a generated case is unchanged), never
 * before registration (a patent: its filing, maintenance before the grant) nor after today; it renewed
 * the due date to the next one (domain/renewals.ts `renewalSlot`).
 */
import { addDays } from '../../../platform/calendar.ts';
import type { RenewalEvent } from '../domain/model.ts';
import { type CaseKind, nextSlot } from '../domain/renewals.ts';

/** The statuses in which a case takes its renewal or maintenance fees (domain/renewals.ts). */
export const IN_FORCE: Readonly<Record<CaseKind, ReadonlySet<string>>> = {
  patent: new Set(['Filed', 'Under Examination', 'Accepted', 'Under Opposition', 'Granted']),
  trademark: new Set(['Registered', 'Registered - past expiry date']),
  design: new Set(['Registered']),
};

export interface SeededRenewalInput {
  kind: CaseKind;
  caseNumber: number;
  status: string;
  /** The filing in New Zealand: a patent's first fee is paid no earlier. */
  applicationDate: string;
  termDate: string;
  registrationDate: string | null;
  lastRenewalDueDate: string | null;
}

export function seededRenewals(input: SeededRenewalInput, today: string): RenewalEvent[] {
  const { kind, caseNumber, termDate, lastRenewalDueDate } = input;
  const from = kind === 'patent' ? input.applicationDate : input.registrationDate;
  if (!from || !lastRenewalDueDate) return [];
  const events: RenewalEvent[] = [];
  let paid: string | undefined;
  for (;;) {
    const slot = nextSlot(kind, termDate, paid);
    if (!slot || slot.dueDate > lastRenewalDueDate) break;
    const early = (caseNumber * 7 + slot.ordinal * 13) % 90;
    let renewalDate = addDays(slot.dueDate, -early);
    if (renewalDate < from) renewalDate = from;
    if (renewalDate > today) renewalDate = today;
    events.push({ renewalDate, renewedExpiryDate: slot.dueDate, newExpiryDate: slot.nextExpiryDate });
    paid = slot.dueDate;
  }
  return events;
}

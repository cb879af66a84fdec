/**
 * The renewals a seeded trade mark shows in its history: one event per renewal the seed counts as paid
 * (every renewal due up to the last one paid, `lastRenewalDueDate`), for a registered mark (one that
 * left the register paid only those due before it left). Ours: each renewal was made 0–89 days before its due date, the
 * days chosen by the case number (deterministic, outside the case's random stream, so the rest of a
 * generated case is unchanged), never before registration nor after today; it renewed the due date to
 * the next one (domain/renewals.ts `renewalSlot`).
 */
import { addDays } from '../../../platform/calendar.ts';
import type { RenewalEvent } from '../domain/model.ts';
import { type CaseKind, nextSlot } from '../domain/renewals.ts';

export interface SeededRenewalInput {
  kind: CaseKind;
  caseNumber: number;
  status: string;
  termDate: string;
  registrationDate: string | null;
  lastRenewalDueDate: string | null;
}

export function seededRenewals(input: SeededRenewalInput, today: string): RenewalEvent[] {
  const { kind, caseNumber, termDate, registrationDate, lastRenewalDueDate } = input;
  if (kind !== 'trademark' || !registrationDate || !lastRenewalDueDate) return [];
  const events: RenewalEvent[] = [];
  let paid: string | undefined;
  for (;;) {
    const slot = nextSlot(kind, termDate, paid);
    if (!slot || slot.dueDate > lastRenewalDueDate) break;
    const early = (caseNumber * 7 + slot.ordinal * 13) % 90;
    let renewalDate = addDays(slot.dueDate, -early);
    if (renewalDate < registrationDate) renewalDate = registrationDate;
    if (renewalDate > today) renewalDate = today;
    events.push({ renewalDate, renewedExpiryDate: slot.dueDate, newExpiryDate: slot.nextExpiryDate });
    paid = slot.dueDate;
  }
  return events;
}

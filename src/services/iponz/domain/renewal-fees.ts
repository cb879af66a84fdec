/**
 * Which fee codes of the fee schedule (billing/domain/fee-schedule.ts) a renewal or maintenance fee is
 * charged under: the base fee (a trade mark's per class, as a quantity) and, for a patent paid in its
 * grace period, the late payment fee as a second record.
 */
import type { CaseKind, RenewalDue } from './renewals.ts';

export interface FeeLine {
  feeCode: string;
  quantity: number;
}

export function renewalFeeLines(kind: CaseKind, due: RenewalDue, classes: number): FeeLine[] {
  const lines: FeeLine[] = [];
  if (kind === 'patent') {
    const anniversary = due.anniversary ?? 0;
    const code =
      due.fee === 'maintenance'
        ? 'IPONZ_PATENT_MAINTENANCE'
        : anniversary <= 9
          ? 'IPONZ_PATENT_RENEWAL_4_TO_9'
          : anniversary <= 14
            ? 'IPONZ_PATENT_RENEWAL_10_TO_14'
            : 'IPONZ_PATENT_RENEWAL_15_TO_19';
    lines.push({ feeCode: code, quantity: 1 });
    if (due.state === 'grace' && due.lateFeeCents > 0)
      lines.push({ feeCode: 'IPONZ_PATENT_LATE_PAYMENT', quantity: 1 });
  } else if (kind === 'trademark') {
    lines.push({ feeCode: 'IPONZ_TRADE_MARK_RENEWAL', quantity: classes });
  } else {
    lines.push({
      feeCode: due.renewal === 1 ? 'IPONZ_DESIGN_FIRST_RENEWAL' : 'IPONZ_DESIGN_SECOND_RENEWAL',
      quantity: 1,
    });
  }
  return lines;
}

/** The status a case takes when renewed: a trade mark past its expiry date is registered again. */
export const statusAfterRenewal = (status: string): string =>
  status === 'Registered - past expiry date' ? 'Registered' : status;

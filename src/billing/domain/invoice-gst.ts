/**
 * GST on an invoice (15%), computed once per invoice and once per line, in integer cents.
 *
 * The rule: the invoice's GST is 15% of its net total, rounded half up to the cent (the tax invoice's
 * GST is computed on its total, not summed from rounded parts). Each line's GST is 15% of the line's
 * net amount rounded down, and the cents still missing to reach the invoice's GST go one each to the
 * lines with the largest remainders (ties: the earlier line), the largest-remainder method. So every
 * line's GST is its exact 15% rounded down or up, and the lines sum exactly to the invoice:
 * Σ line.net = invoice.net, Σ line.gst = invoice.gst, Σ line.total = invoice.total.
 *
 * The fee records' own `gst_cents` (per fee, rounded at charge time) is what a register reports per
 * transaction; the invoice does not add those up, it computes its GST from the net amounts.
 */
export const GST_RATE_PERCENT = 15;

export interface LineInput {
  netCents: number;
}

export interface Allocated<T> {
  lines: (T & { gstCents: number; totalCents: number })[];
  netCents: number;
  gstCents: number;
  totalCents: number;
}

function checkCents(value: number, what: string): void {
  if (!Number.isSafeInteger(value) || value < 0)
    throw new RangeError(`${what} must be whole cents, 0 or more`);
}

/** 15% of `netCents`, rounded half up (cents). */
export function gstOf(netCents: number): number {
  checkCents(netCents, 'a net amount');
  return Math.floor((netCents * GST_RATE_PERCENT + 50) / 100);
}

/** The invoice's GST and each line's share of it (see the rule above); lines keep their order. */
export function allocateGst<T extends LineInput>(lines: readonly T[]): Allocated<T> {
  let netCents = 0;
  for (const line of lines) {
    checkCents(line.netCents, 'a line amount');
    netCents += line.netCents;
  }
  const gstCents = gstOf(netCents);
  const floors = lines.map((line) => Math.floor((line.netCents * GST_RATE_PERCENT) / 100));
  const remainders = lines.map((line) => (line.netCents * GST_RATE_PERCENT) % 100);
  let missing = gstCents - floors.reduce((sum, value) => sum + value, 0);
  // 0 ≤ missing ≤ the number of lines with a remainder: Σ floors ≤ exact GST, and the rounding adds
  // less than one cent more than the remainders sum to.
  const order = lines
    .map((_, index) => index)
    .filter((index) => remainders[index]! > 0)
    .sort((a, b) => remainders[b]! - remainders[a]! || a - b);
  for (const index of order) {
    if (missing <= 0) break;
    floors[index] = floors[index]! + 1;
    missing -= 1;
  }
  if (missing !== 0) throw new Error('GST allocation did not balance');
  return {
    lines: lines.map((line, index) => ({
      ...line,
      gstCents: floors[index]!,
      totalCents: line.netCents + floors[index]!,
    })),
    netCents,
    gstCents,
    totalCents: netCents + gstCents,
  };
}

/** Cents as dollars for documents: 123456 → `1,234.56`. */
export function formatCents(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const whole = Math.abs(cents);
  const dollars = Math.floor(whole / 100).toLocaleString('en-NZ');
  return `${sign}${dollars}.${String(whole % 100).padStart(2, '0')}`;
}

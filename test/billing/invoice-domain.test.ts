import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { allocateGst, formatCents, gstOf } from '../../src/billing/domain/invoice-gst.ts';
import {
  formatNz,
  nextPeriod,
  nzOffsetMs,
  periodEnd,
  periodOf,
  periodStart,
  previousPeriod,
} from '../../src/billing/domain/invoice-month.ts';

describe('billing months in New Zealand time', () => {
  it('start at midnight on the 1st in New Zealand, with daylight saving (NZDT +13, NZST +12)', () => {
    // April 2026: daylight saving ends on Sunday 5 April; 1 April is still NZDT (+13).
    expect(periodStart('2026-04').toISOString()).toBe('2026-03-31T11:00:00.000Z');
    // May 2026 starts in NZST (+12).
    expect(periodStart('2026-05').toISOString()).toBe('2026-04-30T12:00:00.000Z');
    // September 2026: daylight saving starts on Sunday 27 September; 1 September is NZST, 1 October NZDT.
    expect(periodStart('2026-09').toISOString()).toBe('2026-08-31T12:00:00.000Z');
    expect(periodStart('2026-10').toISOString()).toBe('2026-09-30T11:00:00.000Z');
    expect(periodEnd('2026-12').toISOString()).toBe('2026-12-31T11:00:00.000Z');
  });

  it('put 23:59:59.999 on the last day in that month and 00:00 on the 1st in the next', () => {
    const lastApril = new Date('2026-04-30T11:59:59.999Z'); // 23:59:59.999 NZST
    expect(formatNz(lastApril)).toBe('2026-04-30 23:59:59 NZST');
    expect(periodOf(lastApril)).toBe('2026-04');
    expect(periodOf(new Date(lastApril.getTime() + 1))).toBe('2026-05');
    const lastSeptember = new Date('2026-09-30T10:59:59.999Z'); // 23:59:59.999 NZDT
    expect(formatNz(lastSeptember)).toBe('2026-09-30 23:59:59 NZDT');
    expect(periodOf(lastSeptember)).toBe('2026-09');
    expect(periodOf(new Date(lastSeptember.getTime() + 1))).toBe('2026-10');
    // In UTC that instant is still 30 September for both, yet 1 April 00:30 NZDT is 31 March in UTC.
    expect(periodOf(new Date('2026-03-31T11:30:00Z'))).toBe('2026-04');
  });

  it('follow the offset across the changes themselves', () => {
    expect(nzOffsetMs(new Date('2026-04-04T13:59:59Z')) / 3_600_000).toBe(13);
    expect(nzOffsetMs(new Date('2026-04-04T14:00:00Z')) / 3_600_000).toBe(12);
    expect(nzOffsetMs(new Date('2026-09-26T13:59:59Z')) / 3_600_000).toBe(12);
    expect(nzOffsetMs(new Date('2026-09-26T14:00:00Z')) / 3_600_000).toBe(13);
  });

  it('step across years and every month start maps back to its month', () => {
    expect(nextPeriod('2026-12')).toBe('2027-01');
    expect(previousPeriod('2027-01')).toBe('2026-12');
    fc.assert(
      fc.property(fc.integer({ min: 1990, max: 2090 }), fc.integer({ min: 1, max: 12 }), (year, month) => {
        const period = `${year}-${String(month).padStart(2, '0')}`;
        const start = periodStart(period);
        expect(periodOf(start)).toBe(period);
        expect(periodOf(new Date(start.getTime() - 1))).toBe(previousPeriod(period));
        expect(periodEnd(period).getTime()).toBeGreaterThan(start.getTime());
      }),
    );
  });

  it('refuse what is not a month', () => {
    expect(() => periodStart('2026-13')).toThrow(/not a billing month/);
    expect(() => periodStart('26-1')).toThrow(/not a billing month/);
  });
});

describe('GST on an invoice', () => {
  it('is 15% of the net total rounded half up, shared among lines by the largest remainder', () => {
    expect(gstOf(0)).toBe(0);
    expect(gstOf(10)).toBe(2); // 1.5 → 2
    expect(gstOf(3)).toBe(0); // 0.45 → 0
    expect(gstOf(200)).toBe(30);
    // Three lines of 10 cents: exact 1.5 each, 4.5 in all → 5 on the invoice; two lines get 2, one 1.
    const three = allocateGst([{ netCents: 10 }, { netCents: 10 }, { netCents: 10 }]);
    expect(three.gstCents).toBe(5);
    expect(three.lines.map((line) => line.gstCents)).toEqual([2, 2, 1]);
    // The larger remainder wins: 0.95 (net 13 → 1.95) before 0.5 (net 10 → 1.5).
    const mixed = allocateGst([{ netCents: 10 }, { netCents: 13 }]);
    expect(mixed.gstCents).toBe(3); // 3.45 → 3
    expect(mixed.lines.map((line) => line.gstCents)).toEqual([1, 2]);
    expect(formatCents(123456)).toBe('1,234.56');
    expect(formatCents(5)).toBe('0.05');
  });

  it('lines sum exactly to the invoice, each within a cent of its own 15% (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 5_000_000 }), { minLength: 0, maxLength: 60 }),
        (nets) => {
          const invoice = allocateGst(nets.map((netCents) => ({ netCents })));
          const sum = (pick: (line: (typeof invoice.lines)[number]) => number) =>
            invoice.lines.reduce((total, line) => total + pick(line), 0);
          expect(sum((line) => line.netCents)).toBe(invoice.netCents);
          expect(sum((line) => line.gstCents)).toBe(invoice.gstCents);
          expect(sum((line) => line.totalCents)).toBe(invoice.totalCents);
          expect(invoice.totalCents).toBe(invoice.netCents + invoice.gstCents);
          // Once per invoice: 15% of the total, half up (exact integer arithmetic).
          const exact = invoice.netCents * 15;
          expect(invoice.gstCents * 100 - exact).toBeGreaterThan(-50);
          expect(invoice.gstCents * 100 - exact).toBeLessThanOrEqual(50);
          for (const line of invoice.lines) {
            expect(line.gstCents).toBeGreaterThanOrEqual(Math.floor((line.netCents * 15) / 100));
            expect(line.gstCents).toBeLessThanOrEqual(Math.ceil((line.netCents * 15) / 100));
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it('refuses amounts that are not whole cents', () => {
    expect(() => allocateGst([{ netCents: 1.5 }])).toThrow(/whole cents/);
    expect(() => allocateGst([{ netCents: -1 }])).toThrow(/whole cents/);
  });
});

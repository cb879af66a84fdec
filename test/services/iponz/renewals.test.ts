import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addDays, addMonths, addYears, formatDate, nzDate } from '../../../src/platform/calendar.ts';
import {
  type CaseKind,
  checkRenewal,
  expiryDateOf,
  FEES,
  nextSlot,
  payRenewal,
  type RenewalCase,
  type RenewalDue,
  renewalSlot,
} from '../../../src/services/iponz/domain/renewals.ts';
import { broken } from '../../support/rules.ts';

/** The check, asserted to be a fee (not `none`). */
function due(input: RenewalCase, today: string): RenewalDue {
  const check = checkRenewal(input, today);
  if (check.state === 'none') throw new Error(`no fee: ${check.reason}`);
  return check;
}

const patent = (filingDate: string, status = 'Granted', lastRenewalDueDate?: string): RenewalCase => ({
  kind: 'patent',
  status,
  filingDate,
  lastRenewalDueDate,
});

describe('calendar dates', () => {
  it('clamps to the end of the month and counts from the original date', () => {
    expect(addYears('2024-02-29', 1)).toBe('2025-02-28');
    expect(addYears('2024-02-29', 4)).toBe('2028-02-29');
    expect(addMonths('2025-08-31', 6)).toBe('2026-02-28');
    expect(addMonths('2027-08-31', 6)).toBe('2028-02-29');
    expect(addMonths('2025-05-31', -3)).toBe('2025-02-28');
    expect(addMonths('2025-01-31', -3)).toBe('2024-10-31');
    expect(addDays('2024-12-31', 1)).toBe('2025-01-01');
    expect(addDays('2025-03-01', -1)).toBe('2025-02-28');
    expect(addDays('0050-01-01', -1)).toBe('0049-12-31');
  });

  it('gives the New Zealand date of an instant (12:00 UTC on 31 December is 1 January there)', () => {
    expect(nzDate(Date.parse('2025-12-31T12:00:00Z'))).toBe('2026-01-01');
    expect(nzDate(Date.parse('2025-06-30T11:59:59Z'))).toBe('2025-06-30');
  });
});

describe('patent maintenance and renewal fees (Patents Act 2013)', () => {
  const filed = '2020-03-15';

  it('walks the first fee through its window: not open, open from three months before, grace for six months, lapsed', () => {
    const at = (today: string) => due(patent(filed), today);
    expect(at('2023-12-14')).toMatchObject({ state: 'not-yet-open', payable: false, amountCents: 20_000 });
    expect(at('2023-12-15')).toMatchObject({
      state: 'open',
      payable: true,
      fee: 'renewal',
      anniversary: 4,
      renewal: null,
      dueDate: '2024-03-15',
      window: { opens: '2023-12-15', dueDate: '2024-03-15', graceEnds: '2024-09-15' },
      amountCents: 20_000,
      lateFeeCents: 0,
      expiryDate: '2024-03-15',
      nextExpiryDate: '2025-03-15',
    });
    expect(at('2024-03-15')).toMatchObject({ state: 'open', amountCents: 20_000 });
    expect(at('2024-03-16')).toMatchObject({ state: 'grace', amountCents: 30_000, lateFeeCents: 10_000 });
    expect(at('2024-09-15')).toMatchObject({ state: 'grace', amountCents: 30_000 });
    expect(at('2024-09-16')).toMatchObject({ state: 'lapsed', payable: false, amountCents: null });
  });

  it('charges maintenance before grant (NZ$200, NZ$300 late) whatever the anniversary', () => {
    for (const status of ['Filed', 'Under Examination', 'Accepted', 'Under Opposition']) {
      const open = due(patent(filed, status, '2031-03-15'), '2032-03-01');
      expect(open).toMatchObject({
        fee: 'maintenance',
        anniversary: 12,
        amountCents: FEES.patentMaintenance,
      });
      expect(due(patent(filed, status, '2031-03-15'), '2032-03-16').amountCents).toBe(30_000);
    }
  });

  it('charges the renewal bands after grant: 4th–9th NZ$200, 10th–14th NZ$450, 15th–19th NZ$1,000', () => {
    const amount = (anniversary: number) => {
      const last = anniversary === 4 ? undefined : addYears(filed, anniversary - 1);
      return due(patent(filed, 'Granted', last), addYears(filed, anniversary)).amountCents;
    };
    expect([4, 9, 10, 14, 15, 19].map(amount)).toEqual([20_000, 20_000, 45_000, 45_000, 100_000, 100_000]);
  });

  it('has nothing due once the 19th anniversary is paid: the term ends at 20 years', () => {
    expect(checkRenewal(patent(filed, 'Granted', '2039-03-15'), '2039-06-01')).toEqual({
      state: 'none',
      reason: 'term-complete',
      expiryDate: '2040-03-15',
    });
  });

  it('takes no fee in a closed status', () => {
    for (const status of ['Withdrawn', 'Abandoned', 'Lapsed', 'Closed', 'Expired', 'Revoked'])
      expect(checkRenewal(patent(filed, status), '2024-03-01')).toEqual({
        state: 'none',
        reason: 'status',
        expiryDate: null,
      });
  });

  it('keeps a 29 February filing on 29 February in leap years and 28 February otherwise', () => {
    const leap = due(patent('2024-02-29'), '2028-01-01');
    expect(leap.dueDate).toBe('2028-02-29');
    expect(leap.window).toEqual({ opens: '2027-11-29', dueDate: '2028-02-29', graceEnds: '2028-08-29' });
    expect(leap.nextExpiryDate).toBe('2029-02-28');
    const common = due(patent('2024-02-29', 'Granted', '2028-02-29'), '2029-02-28');
    expect(common).toMatchObject({ state: 'open', anniversary: 5, dueDate: '2029-02-28' });
    expect(due(patent('2024-02-29', 'Granted', '2028-02-29'), '2029-03-01').state).toBe('grace');
    expect(due(patent('2024-02-29', 'Granted', '2031-02-28'), '2032-01-01').dueDate).toBe('2032-02-29');
  });

  it('opens across a year end and ends grace at a short month’s last day', () => {
    expect(due(patent('2021-01-31'), '2024-10-31')).toMatchObject({
      state: 'open',
      window: { opens: '2024-10-31', dueDate: '2025-01-31', graceEnds: '2025-07-31' },
    });
    expect(due(patent('2021-01-31'), '2024-10-30').state).toBe('not-yet-open');
    expect(due(patent('2021-08-31'), '2026-02-28')).toMatchObject({
      state: 'grace',
      window: { opens: '2025-05-31', dueDate: '2025-08-31', graceEnds: '2026-02-28' },
    });
    expect(due(patent('2021-08-31'), '2026-03-01').state).toBe('lapsed');
    expect(due(patent('2021-12-31'), '2025-12-31').state).toBe('open');
    expect(due(patent('2021-12-31'), '2026-01-01').state).toBe('grace');
  });
});

describe('trade mark renewals (Trade Marks Act 2002)', () => {
  const mark = (classes: number, lastRenewalDueDate?: string): RenewalCase => ({
    kind: 'trademark',
    status: 'Registered',
    filingDate: '2015-06-01',
    registrationDate: '2016-01-20',
    lastRenewalDueDate,
    classes,
  });

  it('renews every 10 years from the deemed registration date at NZ$200 a class, from 12 months before to 6 after', () => {
    expect(due(mark(3), '2024-05-31').state).toBe('not-yet-open');
    expect(due(mark(3), '2024-06-01')).toMatchObject({
      state: 'open',
      fee: 'renewal',
      anniversary: null,
      renewal: 1,
      dueDate: '2025-06-01',
      window: { opens: '2024-06-01', dueDate: '2025-06-01', graceEnds: '2025-12-01' },
      amountCents: 60_000,
      nextExpiryDate: '2035-06-01',
    });
    expect(due(mark(3), '2025-06-02')).toMatchObject({
      state: 'grace',
      amountCents: 60_000,
      lateFeeCents: 0,
    });
    expect(due(mark(3), '2025-12-01').state).toBe('grace');
    expect(due(mark(3), '2025-12-02').state).toBe('lapsed');
    expect(due(mark(45), '2025-01-01').amountCents).toBe(45 * FEES.tradeMarkRenewalPerClass);
  });

  it('is still renewable as "Registered - past expiry date", the status of the grace period', () => {
    expect(due({ ...mark(2), status: 'Registered - past expiry date' }, '2025-09-01')).toMatchObject({
      state: 'grace',
      amountCents: 40_000,
    });
  });

  it('goes on renewing for ever, 10 years at a time', () => {
    expect(due(mark(1, '2025-06-01'), '2035-01-01')).toMatchObject({ renewal: 2, dueDate: '2035-06-01' });
    expect(due(mark(1, '2215-06-01'), '2225-01-01')).toMatchObject({ renewal: 21, dueDate: '2225-06-01' });
  });

  it('takes no fee before registration or after removal', () => {
    for (const status of ['Under Examination', 'Abeyance', 'Accepted', 'Lapsed', 'Expired', 'Removed'])
      expect(checkRenewal({ ...mark(1), status }, '2025-06-01').state).toBe('none');
  });

  it('needs the number of classes renewed, 1 to 45', () => {
    expect(broken(() => checkRenewal({ ...mark(1), classes: undefined }, '2025-01-01'))).toEqual({
      field: 'classes',
      rule: 'is required for a trade mark',
    });
    for (const classes of [0, 46, 1.5, -1])
      expect(broken(() => checkRenewal(mark(classes), '2025-01-01')).field).toBe('classes');
  });
});

describe('design renewals (Designs Act 1953)', () => {
  const design = (lastRenewalDueDate?: string): RenewalCase => ({
    kind: 'design',
    status: 'Registered',
    filingDate: '2018-05-10',
    registrationDate: '2018-09-01',
    lastRenewalDueDate,
  });

  it('renews at 5 years (NZ$100) and 10 years (NZ$200), payable within the period or 6 months after', () => {
    expect(due(design(), '2018-09-01')).toMatchObject({
      state: 'open',
      renewal: 1,
      dueDate: '2023-05-10',
      window: { opens: '2018-05-10', dueDate: '2023-05-10', graceEnds: '2023-11-10' },
      amountCents: 10_000,
      nextExpiryDate: '2028-05-10',
    });
    expect(due(design(), '2023-11-10')).toMatchObject({ state: 'grace', amountCents: 10_000 });
    expect(due(design(), '2023-11-11').state).toBe('lapsed');
    expect(due(design('2023-05-10'), '2023-05-10')).toMatchObject({
      state: 'open',
      renewal: 2,
      dueDate: '2028-05-10',
      amountCents: 20_000,
      nextExpiryDate: '2033-05-10',
    });
    expect(due(design('2023-05-10'), '2023-05-09').state).toBe('not-yet-open');
  });

  it('ends at 15 years', () => {
    expect(checkRenewal(design('2028-05-10'), '2030-01-01')).toEqual({
      state: 'none',
      reason: 'term-complete',
      expiryDate: '2033-05-10',
    });
  });

  it('takes no fee before registration', () => {
    for (const status of ['Filed', 'Pending Registration', 'Refused'])
      expect(checkRenewal({ ...design(), status }, '2019-01-01').state).toBe('none');
  });
});

describe('the published ExpiryDate', () => {
  it('is the next due date, the end of the term once all is paid, null when no fee is taken', () => {
    expect(expiryDateOf(patent('2020-03-15'))).toBe('2024-03-15');
    expect(expiryDateOf(patent('2020-03-15', 'Granted', '2030-03-15'))).toBe('2031-03-15');
    expect(expiryDateOf(patent('2020-03-15', 'Granted', '2039-03-15'))).toBe('2040-03-15');
    expect(expiryDateOf(patent('2020-03-15', 'Revoked'))).toBeNull();
    expect(
      expiryDateOf({
        kind: 'design',
        status: 'Registered',
        filingDate: '2018-05-10',
        lastRenewalDueDate: '2023-05-10',
      }),
    ).toBe('2028-05-10');
  });
});

describe('bad case data names the field', () => {
  it('refuses unknown statuses, impossible dates and inconsistent dates', () => {
    expect(broken(() => checkRenewal(patent('2020-01-01', 'Registered'), '2024-01-01')).field).toBe('status');
    expect(broken(() => checkRenewal(patent('2023-02-30'), '2024-01-01'))).toEqual({
      field: 'filingDate',
      rule: 'must be a date, YYYY-MM-DD',
    });
    expect(broken(() => checkRenewal(patent('2020-01-01'), '1 March 2024')).field).toBe('today');
    expect(
      broken(() => checkRenewal(patent('2020-01-01', 'Granted', '2019-01-01'), '2024-01-01')).field,
    ).toBe('lastRenewalDueDate');
    expect(
      broken(() => checkRenewal({ ...patent('2020-01-01'), registrationDate: '2019-12-31' }, '2024-01-01')),
    ).toEqual({ field: 'registrationDate', rule: 'must not be before filingDate' });
    expect(
      broken(() => checkRenewal({ ...patent('2020-01-01'), kind: 'plant' as CaseKind }, '2024-01-01')).field,
    ).toBe('kind');
    expect(
      broken(() => checkRenewal({ ...patent('2020-01-01'), kind: 'toString' as CaseKind }, '2024-01-01'))
        .field,
    ).toBe('kind');
  });
});

describe('paying', () => {
  it('moves the expiry to the next due date and charges the amount of the day', () => {
    expect(payRenewal(patent('2020-03-15'), '2024-03-20')).toEqual({
      renewedDueDate: '2024-03-15',
      expiryDate: '2025-03-15',
      amountCents: 30_000,
      fee: 'renewal',
      late: true,
    });
  });

  it('refuses, naming the case parameter, when nothing is payable', () => {
    expect(broken(() => payRenewal(patent('2020-03-15'), '2023-12-14', 'patent-number'))).toEqual({
      field: 'patent-number',
      rule: 'renewal for 2024-03-15 opens on 2023-12-15',
    });
    expect(broken(() => payRenewal(patent('2020-03-15'), '2024-09-16')).rule).toContain(
      'closed on 2024-09-15',
    );
    expect(broken(() => payRenewal(patent('2020-03-15', 'Lapsed'), '2024-03-01')).rule).toContain(
      'status Lapsed',
    );
    expect(
      broken(() => payRenewal(patent('2020-03-15', 'Granted', '2039-03-15'), '2039-04-01')).rule,
    ).toContain('term ends on 2040-03-15');
  });
});

// Property tests over dates at every boundary.
const dateArb = fc
  .record({
    year: fc.integer({ min: 1990, max: 2060 }),
    month: fc.integer({ min: 1, max: 12 }),
    day: fc.integer({ min: 1, max: 31 }),
  })
  .map(({ year, month, day }) => formatDate({ year, month, day: Math.min(day, month === 2 ? 28 : 30) }));
/** Dates with the awkward ones over-represented: 29 February, month ends, year ends. */
const filingArb = fc.oneof(
  dateArb,
  fc.integer({ min: 1990, max: 2060 }).map((y) => `${4 * Math.floor(y / 4)}-02-29`),
  fc.constantFrom('2019-12-31', '2020-01-01', '2021-08-31', '2020-11-30', '2023-05-31', '2024-02-29'),
);
const kindArb = fc.constantFrom<CaseKind>('patent', 'trademark', 'design');
const ordinalArb = (kind: CaseKind) =>
  kind === 'patent'
    ? fc.integer({ min: 4, max: 19 })
    : kind === 'design'
      ? fc.integer({ min: 1, max: 2 })
      : fc.integer({ min: 1, max: 6 });
const caseOf = (kind: CaseKind, filingDate: string, ordinal: number): RenewalCase => {
  const previous = renewalSlot(kind, filingDate, ordinal - 1);
  return {
    kind,
    status: kind === 'patent' ? 'Granted' : 'Registered',
    filingDate,
    registrationDate: filingDate,
    lastRenewalDueDate: previous?.dueDate,
    classes: kind === 'trademark' ? 2 : undefined,
  };
};

describe('renewal properties', () => {
  it('at each boundary (day before / of / after opening, the due date, the end of grace) the state is right', () => {
    fc.assert(
      fc.property(
        kindArb.chain((kind) => fc.tuple(fc.constant(kind), filingArb, ordinalArb(kind))),
        ([kind, filingDate, ordinal]) => {
          const input = caseOf(kind, filingDate, ordinal);
          const slot = renewalSlot(kind, filingDate, ordinal)!;
          const state = (today: string) => checkRenewal(input, today).state;
          expect(state(addDays(slot.opens, -1))).toBe('not-yet-open');
          expect(state(slot.opens)).toBe('open');
          expect(state(addDays(slot.opens, 1))).toBe('open');
          expect(state(addDays(slot.dueDate, -1))).toBe('open');
          expect(state(slot.dueDate)).toBe('open');
          expect(state(addDays(slot.dueDate, 1))).toBe('grace');
          expect(state(addDays(slot.graceEnds, -1))).toBe('grace');
          expect(state(slot.graceEnds)).toBe('grace');
          expect(state(addDays(slot.graceEnds, 1))).toBe('lapsed');
          const onTime = due(input, slot.dueDate);
          const late = due(input, slot.graceEnds);
          expect(onTime.amountCents).toBe(onTime.baseFeeCents);
          expect(late.amountCents).toBe(late.baseFeeCents + late.lateFeeCents);
          expect(onTime.nextExpiryDate).toBe(slot.nextExpiryDate);
          expect(Number.isInteger(onTime.amountCents)).toBe(true);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('due dates keep the filing date’s day and month (28 February for 29 February in common years)', () => {
    fc.assert(
      fc.property(
        kindArb.chain((kind) => fc.tuple(fc.constant(kind), filingArb, ordinalArb(kind))),
        ([kind, filingDate, ordinal]) => {
          const slot = renewalSlot(kind, filingDate, ordinal)!;
          const years = kind === 'patent' ? ordinal : kind === 'trademark' ? 10 * ordinal : 5 * ordinal;
          expect(Number(slot.dueDate.slice(0, 4))).toBe(Number(filingDate.slice(0, 4)) + years);
          const sameDay = slot.dueDate.slice(5) === filingDate.slice(5);
          const leapShift = filingDate.slice(5) === '02-29' && slot.dueDate.slice(5) === '02-28';
          expect(sameDay || leapShift).toBe(true);
          expect(slot.opens < slot.dueDate && slot.dueDate < slot.graceEnds).toBe(true);
          expect(addMonths(slot.dueDate, 6)).toBe(slot.graceEnds);
        },
      ),
    );
  });

  it('paying each fee on any day of its window walks the whole life: 16 patent fees, 2 design renewals', () => {
    fc.assert(
      fc.property(kindArb, filingArb, fc.integer({ min: 0, max: 1000 }), (kind, filingDate, seed) => {
        let input: RenewalCase = caseOf(kind, filingDate, kind === 'patent' ? 4 : 1);
        const paid: number[] = [];
        for (let i = 0; i < 25; i++) {
          const check = checkRenewal(input, filingDate);
          if (check.state === 'none') break;
          // A day in the window: somewhere from its opening to the end of grace.
          const span = Math.round(
            (Date.parse(check.window.graceEnds) - Date.parse(check.window.opens)) / 86_400_000,
          );
          const today = addDays(check.window.opens, (seed * (i + 7)) % (span + 1));
          const payment = payRenewal(input, today);
          expect(payment.expiryDate).toBe(check.nextExpiryDate);
          expect(payment.late).toBe(today > check.dueDate);
          paid.push(check.anniversary ?? check.renewal!);
          input = { ...input, lastRenewalDueDate: payment.renewedDueDate };
        }
        if (kind === 'patent') expect(paid).toEqual([...Array(16).keys()].map((i) => i + 4));
        if (kind === 'design') expect(paid).toEqual([1, 2]);
        if (kind === 'trademark') expect(paid).toEqual([...Array(25).keys()].map((i) => i + 1));
      }),
      { numRuns: 60 },
    );
  });

  it('the next fee follows the last one paid, whatever date is recorded', () => {
    fc.assert(
      fc.property(kindArb, filingArb, fc.integer({ min: 1, max: 60 * 366 }), (kind, filingDate, days) => {
        const last = addDays(filingDate, days);
        const slot = nextSlot(kind, filingDate, last);
        // Compare with a plain walk from the first fee.
        let walk = renewalSlot(kind, filingDate, kind === 'patent' ? 4 : 1);
        while (walk && walk.dueDate <= last) walk = renewalSlot(kind, filingDate, walk.ordinal + 1);
        expect(slot).toEqual(walk);
      }),
    );
  });
});

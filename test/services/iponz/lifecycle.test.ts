import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addDays } from '../../../src/platform/calendar.ts';
import { nextTimedStatus, timedSteps } from '../../../src/services/iponz/domain/lifecycle.ts';
import { checkRenewal, type RenewalCase } from '../../../src/services/iponz/domain/renewals.ts';

const tm = (over: Partial<RenewalCase> = {}): RenewalCase => ({
  kind: 'trademark',
  status: 'Registered',
  filingDate: '2010-03-15',
  classes: 1,
  ...over,
});

describe('statuses that move with time', () => {
  it('a trade mark unrenewed: past its expiry date the day after, removed the day after its grace', () => {
    expect(nextTimedStatus(tm(), '2020-03-15')).toBeNull();
    expect(nextTimedStatus(tm(), '2020-03-16')).toEqual({
      status: 'Registered - past expiry date',
      date: '2020-03-16',
    });
    const past = tm({ status: 'Registered - past expiry date' });
    expect(nextTimedStatus(past, '2020-09-15')).toBeNull();
    expect(nextTimedStatus(past, '2020-09-16')).toEqual({ status: 'Removed', date: '2020-09-16' });
    // A job that ran late walks it through both, each on its own date.
    expect(timedSteps(tm(), '2024-01-01')).toEqual([
      { status: 'Registered - past expiry date', date: '2020-03-16' },
      { status: 'Removed', date: '2020-09-16' },
    ]);
    // Renewed: nothing until the next expiry, ten years on.
    expect(timedSteps(tm({ lastRenewalDueDate: '2020-03-15' }), '2030-03-15')).toEqual([]);
  });

  it('a patent: an unpaid fee abandons an application and lapses a granted patent after the grace; every fee paid, it expires', () => {
    const granted: RenewalCase = {
      kind: 'patent',
      status: 'Granted',
      filingDate: '2010-01-10',
      lastRenewalDueDate: '2014-01-10',
    };
    expect(nextTimedStatus(granted, '2015-07-10')).toBeNull();
    expect(nextTimedStatus(granted, '2015-07-11')).toEqual({ status: 'Lapsed', date: '2015-07-11' });
    expect(nextTimedStatus({ ...granted, status: 'Under Examination' }, '2015-07-11')).toEqual({
      status: 'Abandoned',
      date: '2015-07-11',
    });
    const paid = { ...granted, lastRenewalDueDate: '2029-01-10' };
    expect(nextTimedStatus(paid, '2030-01-10')).toBeNull();
    expect(nextTimedStatus(paid, '2030-01-11')).toEqual({ status: 'Expired', date: '2030-01-11' });
  });

  it('a design: lapses after an unpaid renewal’s grace, expires after 15 years', () => {
    const design: RenewalCase = { kind: 'design', status: 'Registered', filingDate: '2010-05-01' };
    expect(nextTimedStatus(design, '2015-11-01')).toBeNull();
    expect(nextTimedStatus(design, '2015-11-02')).toEqual({ status: 'Lapsed', date: '2015-11-02' });
    const paid = { ...design, lastRenewalDueDate: '2020-05-01' };
    expect(nextTimedStatus(paid, '2025-05-02')).toEqual({ status: 'Expired', date: '2025-05-02' });
  });

  it('leaves alone statuses time does not move', () => {
    for (const status of ['Withdrawn', 'Removed', 'Refused', 'Under Examination'])
      expect(nextTimedStatus(tm({ status }), '2099-01-01')).toBeNull();
  });

  it('agrees with the renewal check: a case with a step due is past its grace (or, a trade mark, its due date); one without is payable or not yet due', () => {
    const kinds = fc.constantFrom('patent' as const, 'trademark' as const, 'design' as const);
    fc.assert(
      fc.property(
        kinds,
        fc.integer({ min: 0, max: 9000 }),
        fc.integer({ min: 0, max: 12_000 }),
        fc.option(fc.integer({ min: 0, max: 4 }), { nil: undefined }),
        (kind, filingOffset, todayOffset, paid) => {
          const filingDate = addDays('1995-01-01', filingOffset);
          const today = addDays(filingDate, todayOffset);
          const status = kind === 'patent' ? 'Granted' : 'Registered';
          const step = kind === 'patent' ? 1 : kind === 'trademark' ? 10 : 5;
          const first = kind === 'patent' ? 4 : 1;
          const lastYear = paid === undefined ? undefined : first + paid * 1 - 1;
          const lastRenewalDueDate =
            lastYear === undefined || lastYear < first
              ? undefined
              : addDays(filingDate, 0).replace(/^\d{4}/, (y) =>
                  String(Number(y) + lastYear * step).padStart(4, '0'),
                );
          const input: RenewalCase = { kind, status, filingDate, classes: 1, lastRenewalDueDate };
          let check: ReturnType<typeof checkRenewal>;
          try {
            check = checkRenewal(input, today);
          } catch {
            return; // a date the calendar clamps (29 February) made an impossible paid date: not this test's subject
          }
          const steps = timedSteps(input, today);
          for (let i = 1; i < steps.length; i++) expect(steps[i]!.date >= steps[i - 1]!.date).toBe(true);
          for (const s of steps) expect(s.date <= today).toBe(true);
          if (check.state === 'lapsed') expect(steps.length).toBeGreaterThan(0);
          if (check.state === 'open' || check.state === 'not-yet-open') expect(steps).toEqual([]);
          if (check.state === 'grace')
            expect(steps.map((s) => s.status)).toEqual(
              kind === 'trademark' ? ['Registered - past expiry date'] : [],
            );
        },
      ),
      { numRuns: 500 },
    );
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addDays } from '../../../src/platform/calendar.ts';
import { RuleError } from '../../../src/platform/errors.ts';
import {
  type ApplicationState,
  answerReport,
  dueStep,
  EXAMINATION_REPORT_DAYS,
  filedState,
  OPPOSITION_DAYS,
  RESPONSE_DAYS,
} from '../../../src/services/iponz/domain/examination.ts';

/**
 * The examination simulator's state machine: the first stage of a filing, each step on its documented
 * day, the answer to a report, and a walk that is the same however the clock's moves are split.
 */
const FILED = '2026-06-15';

describe('filedState', () => {
  it('a trade mark is under examination, its report due 15 days later', () => {
    expect(filedState('trademark', false, FILED)).toEqual({
      status: 'Under Examination',
      state: { kind: 'trademark', stage: 'examination', nextStepOn: addDays(FILED, 15) },
    });
  });
  it('a patent with examination requested: under examination, report 30 days later', () => {
    const filed = filedState('patent', true, FILED);
    expect(filed.status).toBe('Under Examination');
    expect(filed.state.nextStepOn).toBe(addDays(FILED, EXAMINATION_REPORT_DAYS.patent));
  });
  it('a patent without: Filed, and nothing follows', () => {
    const filed = filedState('patent', false, FILED);
    expect(filed).toEqual({
      status: 'Filed',
      state: { kind: 'patent', stage: 'awaiting-request', nextStepOn: null },
    });
    expect(dueStep(filed.state, '2099-01-01')).toBeNull();
  });
});

describe('dueStep', () => {
  const examining = filedState('trademark', false, FILED).state;
  it('nothing the day before the report, the report on its day', () => {
    expect(dueStep(examining, addDays(FILED, 14))).toBeNull();
    const step = dueStep(examining, addDays(FILED, 15));
    expect(step).toMatchObject({
      step: 'issue-report',
      on: addDays(FILED, 15),
      taskDueOn: addDays(FILED, 15 + RESPONSE_DAYS),
      next: { stage: 'report-issued', nextStepOn: addDays(FILED, 16 + RESPONSE_DAYS) },
    });
  });
  it('a report unanswered past its due date abandons the application on the next day', () => {
    const issued: ApplicationState = { kind: 'trademark', stage: 'report-issued', nextStepOn: '2026-09-01' };
    expect(dueStep(issued, '2026-08-31')).toBeNull();
    expect(dueStep(issued, '2027-01-01')).toMatchObject({
      step: 'abandon',
      on: '2026-09-01',
      change: { status: 'Abandoned', statusDate: '2026-09-01' },
      next: { stage: 'abandoned', nextStepOn: null },
    });
  });
  it('accepted: Registered (trade mark) or Granted (patent) after the opposition period', () => {
    for (const [kind, status] of [
      ['trademark', 'Registered'],
      ['patent', 'Granted'],
    ] as const) {
      const step = dueStep({ kind, stage: 'accepted', nextStepOn: '2026-10-01' }, '2026-10-01');
      expect(step).toMatchObject({
        step: 'register',
        change: { status, statusDate: '2026-10-01', registrationDate: '2026-10-01' },
        next: { stage: 'registered', nextStepOn: null },
      });
    }
  });
  it('nothing after the end', () => {
    expect(dueStep({ kind: 'patent', stage: 'registered', nextStepOn: null }, '2099-01-01')).toBeNull();
    expect(dueStep({ kind: 'patent', stage: 'abandoned', nextStepOn: null }, '2099-01-01')).toBeNull();
  });
});

describe('answerReport', () => {
  const issued: ApplicationState = { kind: 'patent', stage: 'report-issued', nextStepOn: '2026-09-01' };
  it('accepts on the day answered, the opposition period from then', () => {
    expect(answerReport(issued, '2026-08-31')).toEqual({
      change: { status: 'Accepted', statusDate: '2026-08-31' },
      next: { kind: 'patent', stage: 'accepted', nextStepOn: addDays('2026-08-31', OPPOSITION_DAYS) },
    });
  });
  it('refuses past the due date, and when no report waits', () => {
    expect(() => answerReport(issued, '2026-09-01')).toThrow(RuleError);
    expect(() => answerReport({ ...issued, stage: 'accepted' }, '2026-08-01')).toThrow(/no longer waits/);
    expect(() => answerReport({ ...issued, stage: 'examination' }, '2026-08-01')).toThrow(RuleError);
  });
});

/** Walks a state to `until` in clock moves of the given sizes, answering the report `answerAfter` days after it. */
function walk(state: ApplicationState, start: string, moves: number[], answerAfter: number | null) {
  const log: string[] = [];
  let today = start;
  let answerOn: string | null = null;
  for (const move of moves) {
    const target = addDays(today, move);
    for (;;) {
      // The applicant answers on their day, if it comes before the next simulated step.
      if (
        answerOn !== null &&
        answerOn <= target &&
        (state.nextStepOn === null || answerOn < state.nextStepOn)
      ) {
        const answered = answerReport(state, answerOn);
        log.push(`${answerOn} ${answered.change.status}`);
        state = answered.next;
        answerOn = null;
        continue;
      }
      const step = dueStep(state, target);
      if (!step) break;
      log.push(`${step.on} ${step.step}`);
      if (step.step === 'issue-report' && answerAfter !== null) answerOn = addDays(step.on, answerAfter);
      state = step.next;
    }
    today = target;
  }
  return { log, state };
}

describe('a walk', () => {
  it('is the same in one jump or many (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 60 }), { minLength: 1, maxLength: 20 }),
        fc.option(fc.integer({ min: 0, max: RESPONSE_DAYS - 1 }), { nil: null }),
        fc.constantFrom('trademark' as const, 'patent' as const),
        (moves, answerAfter, kind) => {
          const total = moves.reduce((a, b) => a + b, 0);
          const start = filedState(kind, true, FILED).state;
          const split = walk(start, FILED, moves, answerAfter);
          const whole = walk(start, FILED, [total], answerAfter);
          expect(split).toEqual(whole);
        },
      ),
    );
  });
  it('reaches Registered when answered, Abandoned when not', () => {
    const start = filedState('trademark', false, FILED).state;
    expect(walk(start, FILED, [400], 10).state.stage).toBe('registered');
    expect(walk(start, FILED, [400], null).state.stage).toBe('abandoned');
  });
});

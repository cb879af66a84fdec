/**
 * The examination simulator's state machine (sandbox only; production has no simulator): what happens to
 * an application filed through the API as the sandbox clock passes, and when its applicant answers.
 * Pure: the job (jobs/examination.ts) asks which step is due on a date and the store writes it.
 *
 * Ours (the office's examination is not an API; these numbers are the sandbox's, chosen so a walk takes
 * a few clock moves):
 *
 * | stage | entered when | next step |
 * |---|---|---|
 * | `awaiting-request` | a patent filed without `ExaminationRequested` (status Filed) | none: it stays Filed |
 * | `examination` | a trade mark filed (Under Examination), a patent filed with examination requested (Under Examination) | the examination report, `EXAMINATION_REPORT_DAYS` after filing |
 * | `report-issued` | the report: a task "Respond to examination report" due `RESPONSE_DAYS` later | answered (`updateTask` with a document): Accepted; unanswered past its due date: Abandoned |
 * | `accepted` | the answer (status Accepted) | `OPPOSITION_DAYS` later, no opposition: Registered (trade mark) or Granted (patent) |
 * | `registered`, `abandoned` | — | none |
 *
 * Each step happens on its own date (the date it was due), however far the clock jumps past it, so a
 * walk is the same in one jump or many. Every formal step is a discussion (domain/correspondence.ts).
 * Oppositions are not simulated: Accepted goes straight to Registered or Granted.
 */
import { addDays } from '../../../platform/calendar.ts';
import { RuleError } from '../../../platform/errors.ts';

export type FiledKind = 'patent' | 'trademark';
export type Stage =
  | 'awaiting-request'
  | 'examination'
  | 'report-issued'
  | 'accepted'
  | 'registered'
  | 'abandoned';

export const EXAMINATION_REPORT_DAYS: Record<FiledKind, number> = { trademark: 15, patent: 30 };
export const RESPONSE_DAYS = 60;
export const OPPOSITION_DAYS = 90;
export const REPORT_TASK_TYPE = 'Respond to examination report';

export interface ApplicationState {
  kind: FiledKind;
  stage: Stage;
  /** The New Zealand date of the next step; null when none. */
  nextStepOn: string | null;
}

/** A status change the step makes to the case. */
export interface CaseChange {
  status: string;
  statusDate: string;
  /** Set on registration (trade marks) and grant (patents). */
  registrationDate?: string;
}

export type DueStep =
  | { step: 'issue-report'; on: string; taskDueOn: string; next: ApplicationState }
  | { step: 'abandon'; on: string; change: CaseChange; next: ApplicationState }
  | { step: 'register'; on: string; change: CaseChange; next: ApplicationState };

/** The status and stage of a case on the day it is filed. */
export function filedState(
  kind: FiledKind,
  examinationRequested: boolean,
  filedOn: string,
): { status: string; state: ApplicationState } {
  if (kind === 'patent' && !examinationRequested)
    return { status: 'Filed', state: { kind, stage: 'awaiting-request', nextStepOn: null } };
  return {
    status: 'Under Examination',
    state: { kind, stage: 'examination', nextStepOn: addDays(filedOn, EXAMINATION_REPORT_DAYS[kind]) },
  };
}

/** The step due on or before `today`, or null (nothing due, or nothing left). */
export function dueStep(state: ApplicationState, today: string): DueStep | null {
  const on = state.nextStepOn;
  if (on === null || on > today) return null;
  switch (state.stage) {
    case 'examination': {
      const taskDueOn = addDays(on, RESPONSE_DAYS);
      return {
        step: 'issue-report',
        on,
        taskDueOn,
        // Unanswered, the application is abandoned the day after the task's due date.
        next: { kind: state.kind, stage: 'report-issued', nextStepOn: addDays(taskDueOn, 1) },
      };
    }
    case 'report-issued':
      return {
        step: 'abandon',
        on,
        change: { status: 'Abandoned', statusDate: on },
        next: { kind: state.kind, stage: 'abandoned', nextStepOn: null },
      };
    case 'accepted':
      return {
        step: 'register',
        on,
        change: { status: finalStatus(state.kind), statusDate: on, registrationDate: on },
        next: { kind: state.kind, stage: 'registered', nextStepOn: null },
      };
    default:
      return null;
  }
}

/** The status a case reaches when nobody opposes it. */
export const finalStatus = (kind: FiledKind): string => (kind === 'patent' ? 'Granted' : 'Registered');

/**
 * The applicant answers the examination report on `today`: the case is Accepted and the opposition
 * period starts. RuleError naming `field` when no report waits for an answer.
 */
export function answerReport(
  state: ApplicationState,
  today: string,
  field = 'TaskIdentifier',
): { change: CaseChange; next: ApplicationState } {
  if (state.stage !== 'report-issued')
    throw new RuleError(field, 'names a task that no longer waits for an answer');
  if (state.nextStepOn !== null && today >= state.nextStepOn)
    throw new RuleError(field, 'names a task past its due date: the application is abandoned');
  return {
    change: { status: 'Accepted', statusDate: today },
    next: { kind: state.kind, stage: 'accepted', nextStepOn: addDays(today, OPPOSITION_DAYS) },
  };
}

/**
 * Correspondence of cases: the discussions that record each formal step (their subject and text, the
 * email sent for each), and the filters of the task and discussion lists.
 *
 * Published (reference/iponz.md): `getTaskList` needs `TransactionIdentifier` and `RequestorIdentifier`
 * and answers only that customer's tasks, narrowed by `AssociatedCaseNumber`,
 * `AssociatedCaseClientReference`, `TaskDueDateFrom`, `TaskDueDateTo`; `getDiscussionList` needs
 * `TransactionIdentifier`, narrowed by `AssociatedCaseNumber`, `Status` (`open`: the user may reply |
 * `closed`), `AssociatedCaseClientReference`, `DiscussionCreationDateFrom`, `DiscussionCreationDateTo`.
 *
 * Ours: the `RequestorIdentifier` "issued at sign-up" is the registered user's user id (the subject of
 * their token, shown on the portal's account page); a request must come with that user's three-legged
 * token, and a requestor identifier that is not the caller's is answered as one with no tasks (the
 * caller may not learn whether another customer has any). Discussions are the caller's own the same
 * way. Dates are `YYYY-MM-DD`, both ends included; a list is at most `LIST_MAX` items, newest first.
 */
import { isDate } from '../../../platform/calendar.ts';
import { RuleError } from '../../../platform/errors.ts';
import type { CaseChange, FiledKind } from './examination.ts';

export const LIST_MAX = 500;
export const DISCUSSION_STATUSES = ['open', 'closed'] as const;
export type DiscussionStatus = (typeof DISCUSSION_STATUSES)[number];

export interface ListFilter {
  caseNumber?: number | undefined;
  clientReference?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
  status?: DiscussionStatus | undefined;
}

/** A date range's ends checked (either may be absent), or RuleError naming the field. */
export function checkDateRange(
  from: string | undefined,
  to: string | undefined,
  names: [string, string],
): void {
  if (from !== undefined && !isDate(from)) throw new RuleError(names[0], 'must be a date YYYY-MM-DD');
  if (to !== undefined && !isDate(to)) throw new RuleError(names[1], 'must be a date YYYY-MM-DD');
  if (from !== undefined && to !== undefined && to < from)
    throw new RuleError(names[1], `must not be before ${names[0]}`);
}

/** `Status` of getDiscussionList, or RuleError. */
export function parseDiscussionStatus(text: string | undefined): DiscussionStatus | undefined {
  if (text === undefined) return undefined;
  if (!(DISCUSSION_STATUSES as readonly string[]).includes(text))
    throw new RuleError('Status', 'must be open or closed');
  return text as DiscussionStatus;
}

const KIND_NAME: Record<FiledKind, string> = {
  patent: 'patent application',
  trademark: 'trade mark application',
};

export interface DiscussionText {
  subject: string;
  body: string;
  status: DiscussionStatus;
}

export interface CaseTitle {
  kind: FiledKind;
  caseNumber: number;
  title: string;
  clientReference: string;
}

const heading = (c: CaseTitle) =>
  `${KIND_NAME[c.kind]} ${c.caseNumber} "${c.title}" (your reference ${c.clientReference})`;

/** The discussion that acknowledges a filing. */
export function filedDiscussion(c: CaseTitle, status: string, fees: string): DiscussionText {
  const examination =
    status === 'Filed'
      ? 'Examination was not requested: the application stays Filed until it is.'
      : 'It is under examination; an examination report follows.';
  return {
    subject: `Application ${c.caseNumber} filed`,
    body: `We have received your ${heading(c)}. ${examination} Fees charged: ${fees}.`,
    status: 'closed',
  };
}

/** The discussion that sends the examination report (open while its task waits for an answer). */
export function reportDiscussion(c: CaseTitle, taskDueOn: string): DiscussionText {
  return {
    subject: `Examination report for application ${c.caseNumber}`,
    body: `The examiner has reported on your ${heading(c)}. Respond to the task "Respond to examination report" with your response documents by ${taskDueOn}; without a response the application is abandoned.`,
    status: 'open',
  };
}

/** The discussion of a status change (accepted, registered or granted, abandoned). */
export function statusDiscussion(c: CaseTitle, change: CaseChange): DiscussionText {
  const what: Record<string, string> = {
    Accepted: `has been accepted. It is advertised for opposition; without opposition it proceeds to ${c.kind === 'patent' ? 'grant' : 'registration'}.`,
    Registered:
      'has been registered. The registration counts from the filing date; renewals fall due every 10 years.',
    Granted:
      'has been granted. Renewal fees fall due from the 4th anniversary of the international filing date.',
    Abandoned: 'has been abandoned: the examination report was not answered by its due date.',
  };
  return {
    subject: `Application ${c.caseNumber}: ${change.status}`,
    body: `Your ${heading(c)} ${what[change.status] ?? `is now ${change.status}.`} (${change.statusDate})`,
    status: 'closed',
  };
}

/** The email sent for a discussion to its registered user. */
export function discussionMail(
  discussion: { discussionId: number; subject: string; body: string; caseNumber: number },
  apiBase: string,
): { subject: string; text: string } {
  return {
    subject: `IPONZ: ${discussion.subject}`,
    text: [
      discussion.body,
      '',
      `Discussion ${discussion.discussionId} on case ${discussion.caseNumber}. Read it whole with getDiscussionContent:`,
      `  POST ${apiBase}/discussioncorrespondence   SOAPAction: getDiscussionContent`,
    ].join('\n'),
  };
}

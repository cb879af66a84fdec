/**
 * Lists of financing statements: those of an earlier search or of a secured party group (PPSR_40), and
 * those discharged in a date range (PPSR_38). Each is a page, each statement with its status today.
 */
import type { ServiceContext } from '../../../gateway/service-context.ts';
import { addDays, parseDate } from '../../../platform/calendar.ts';
import { RuleError } from '../../../platform/errors.ts';
import { nzLocalToEpoch } from '../../../platform/nz-time.ts';
import { checkSearchId } from '../domain/search.ts';
import { getGroup } from '../store/account.ts';
import { getSearch } from '../store/searches.ts';
import {
  dischargedBetween,
  getStatements,
  type StatementRow,
  statementsOfGroup,
} from '../store/statements.ts';
import { present, today } from './support.ts';

/** Published: PPSR_38 answers at most 50,000 results in all. */
const DISCHARGED_CAP = 50_000;

/** A page as the register answers it: the page's place and size, and the statements on it. */
export interface Paged {
  page: number;
  pageSize: number;
  offset: number;
}

/** A page of statements (PPSR_40, PPSR_38), each with its status on `day`. */
function statementPage(
  list: { total: number; page: number; pageSize: number; rows: StatementRow[] },
  day: string,
) {
  return {
    totalResults: list.total,
    page: list.page,
    pageSize: list.pageSize,
    financingStatements: list.rows.map((row) => present(row, day)),
  };
}

export type StatementPage = ReturnType<typeof statementPage>;

/**
 * The statements of an earlier search of the organisation (`searchId`) or of one of its secured party
 * groups (`groupId`): exactly one of the two (PPSR_40).
 */
export async function statementsOf(
  context: ServiceContext,
  input: { organisationId: string; searchId?: string | undefined; groupId?: string | undefined } & Paged,
): Promise<StatementPage> {
  const pool = context.database.pool;
  const { organisationId, searchId, groupId, page, pageSize, offset } = input;
  if ((searchId === undefined) === (groupId === undefined)) {
    throw new RuleError('search-id', 'give exactly one of search-id and secured-party-group-id');
  }
  let total: number;
  let rows: StatementRow[];
  if (searchId !== undefined) {
    const search = await getSearch(pool, organisationId, checkSearchId(searchId, 'search-id'));
    if (!search) throw new RuleError('search-id', 'is not a search of your organisation');
    total = search.results.length;
    rows = await getStatements(pool, search.results.slice(offset, offset + pageSize));
  } else {
    const group = await getGroup(pool, groupId!);
    if (!group || group.organisationId !== organisationId) {
      throw new RuleError('secured-party-group-id', 'is not a secured party group of your organisation');
    }
    ({ total, rows } = await statementsOfGroup(pool, group.securedPartyGroupId, {
      offset,
      limit: pageSize,
    }));
  }
  return statementPage({ total, page, pageSize, rows }, today(context));
}

/** A date of the query, `YYYY-MM-DD`. */
function dayOf(value: string, field: string) {
  const parsed = parseDate(value);
  if (!parsed) throw new RuleError(field, 'must be a date, YYYY-MM-DD');
  return parsed;
}

/**
 * The organisation's statements discharged from the start date to the end date, New Zealand days
 * (PPSR_38): pages within the first 50,000 results. Only its own: a whole statement is for its secured
 * party's organisation (operations/statements.ts); anyone else finds statements through a search.
 */
export async function dischargedStatements(
  context: ServiceContext,
  input: { organisationId: string; startDate: string; endDate: string } & Paged,
): Promise<StatementPage> {
  const { organisationId, startDate, endDate, page, pageSize, offset } = input;
  const start = dayOf(startDate, 'start-date');
  dayOf(endDate, 'end-date');
  if (endDate < startDate) throw new RuleError('end-date', 'must not be before start-date');
  if (offset >= DISCHARGED_CAP) {
    throw new RuleError('page', `must start within the first ${DISCHARGED_CAP} results`);
  }
  // From the first day's New Zealand midnight to the midnight after the last day.
  const from = new Date(nzLocalToEpoch(start.year, start.month, start.day));
  const after = parseDate(addDays(endDate, 1))!;
  const to = new Date(nzLocalToEpoch(after.year, after.month, after.day));
  const { total, rows } = await dischargedBetween(context.database.pool, organisationId, from, to, {
    offset,
    limit: Math.min(pageSize, DISCHARGED_CAP - offset),
    cap: DISCHARGED_CAP,
  });
  return statementPage({ total, page, pageSize, rows }, today(context));
}

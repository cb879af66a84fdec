import type { ServiceContext } from '../../../gateway/service-context.ts';
import type { PageRequest } from '../../../platform/http/pagination.ts';
import { pageOf, versionId } from '../domain/records.ts';
import { fundFilingHistory, fundReturns, fundVersions } from '../store/funds.ts';
import { apiBase, iso, type ReadResult, registerUrl } from './common.ts';
import { currentFund, figuresOf } from './funds.ts';

/**
 * A fund's histories, each a paginated sub-resource of the fund that its answer links to: its filing
 * history (the entries of its scheme's or offer's history that name it), its own versions (ours, each
 * read with `?fund-version=`) and its returns over time (one
 * item per fund update it filed, from the fund version that filing made). Last-Modified: the fund's
 * last change.
 */

export interface FundListInput {
  fundNumber: string;
  page: PageRequest;
}

const sliceOf = (page: PageRequest) => ({ limit: page.pageSize, offset: page.offset });

/** A page of a fund's sub-resource under `/fund/{n}/<suffix>`. */
function fundPage(
  context: ServiceContext,
  fund: { fundNumber: string; lastChanged: Date },
  suffix: string,
  found: { total: number; rows: unknown[] },
  page: PageRequest,
  lastModified = fund.lastChanged,
): ReadResult {
  const href = `${apiBase(context)}/fund/${fund.fundNumber}/${suffix}`;
  return {
    body: {
      ...pageOf(found.rows, found.total, page, href),
      registerUrl: registerUrl(context, `/fund/${fund.fundNumber}`),
    },
    lastModified,
  };
}

/** The fund's filing history, newest first (fund updates and full portfolio holdings it filed). */
export async function listFundFilingHistory(
  context: ServiceContext,
  input: FundListInput,
): Promise<ReadResult> {
  const fund = await currentFund(context, input.fundNumber);
  const found = await fundFilingHistory(context.database.pool, fund.fundNumber, sliceOf(input.page));
  const rows = found.rows.map((r) => ({
    filedDate: iso(r.filedAt),
    filingType: r.filingType,
    description: r.description,
    fundNumber: r.fundNumber,
    late: r.late,
  }));
  return fundPage(context, fund, 'filing-history', { total: found.total, rows }, input.page);
}

/**
 * The fund's returns over time, newest period first: for each fund update filed, its period, when and
 * whether late, the fund version it made, and what that version holds (unit price, returns after fees
 * and tax, the optional figures).
 */
export async function listFundReturns(context: ServiceContext, input: FundListInput): Promise<ReadResult> {
  const fund = await currentFund(context, input.fundNumber);
  const found = await fundReturns(context.database.pool, fund.fundNumber, sliceOf(input.page));
  const rows = found.rows.map((r) => ({
    periodEndDate: r.periodEnd,
    filedDate: iso(r.filedAt),
    late: r.late,
    versionId: versionId(fund.fundNumber, r.version),
    unitPrice: (r.document.unitPrice as object | undefined) ?? null,
    returns: (r.document.returns as unknown[] | undefined) ?? [],
    ...figuresOf(r.document),
  }));
  return fundPage(context, fund, 'fund-returns', { total: found.total, rows }, input.page);
}

/**
 * The fund's own versions, newest first (ours): each with the parent offer's version it belongs to and
 * the fund read at it (`?fund-version=`), which reaches versions after the offer's last one.
 */
export async function listFundVersions(context: ServiceContext, input: FundListInput): Promise<ReadResult> {
  const fund = await currentFund(context, input.fundNumber);
  const all = await fundVersions(context.database.pool, fund.fundNumber);
  const { offset, pageSize } = input.page;
  const base = apiBase(context);
  const rows = all.slice(offset, offset + pageSize).map((v) => {
    const id = versionId(fund.fundNumber, v.version);
    return {
      versionId: id,
      versionDate: iso(v.changedAt),
      change: v.change,
      offerVersionId: versionId(fund.offerNumber, v.offerVersion),
      href: `${base}/fund/${fund.fundNumber}?fund-version=${id}`,
    };
  });
  return fundPage(context, fund, 'versions', { total: all.length, rows }, input.page);
}

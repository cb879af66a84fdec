import type { FastifyInstance } from 'fastify';
import type { ServiceContext } from '../../../gateway/service-context.ts';
import { listFundFilingHistory, listFundReturns, listFundVersions } from '../operations/fund-history.ts';
import { listHoldings, readFund } from '../operations/funds.ts';
import {
  FundVersionPagingQuery,
  FundVersionQuery,
  OURS_FUND_VERSION,
  OURS_OPERATION,
  PagingQuery,
} from '../parameters.ts';
import { FilingPage, Fund, FundReturnsPage, FundVersionPage, HoldingPage } from '../schemas.ts';
import { readRoute } from './declared.ts';
import { pageFrom } from './support.ts';

/**
 * The fund reads (operations/funds.ts): the fund on both its paths, and its holdings; its histories
 * (operations/fund-history.ts).
 */
export function fundRoutes(app: FastifyInstance, context: ServiceContext): void {
  readRoute(
    app,
    '/offer/:offerNumber/fund/:fundNumber',
    {
      summary: 'Fund detail (historic data for a version of its parent offer)',
      response: Fund,
      query: FundVersionQuery,
      extensions: OURS_FUND_VERSION,
    },
    ({ params, query }) =>
      readFund(context, {
        fundNumber: params.fundNumber!,
        offerNumber: params.offerNumber,
        version: query.version,
        fundVersion: query['fund-version'],
      }),
  );
  readRoute(
    app,
    '/fund/:fundNumber',
    {
      summary: 'Fund detail (the spec’s path; the same answer)',
      response: Fund,
      query: FundVersionQuery,
      extensions: OURS_FUND_VERSION,
    },
    ({ params, query }) =>
      readFund(context, {
        fundNumber: params.fundNumber!,
        version: query.version,
        fundVersion: query['fund-version'],
      }),
  );
  readRoute(
    app,
    '/fund/:fundNumber/holdings',
    {
      summary: 'Full portfolio holdings of the fund (at a version of its parent offer)',
      response: HoldingPage,
      query: FundVersionPagingQuery,
      extensions: OURS_FUND_VERSION,
    },
    ({ params, query }) =>
      listHoldings(context, {
        fundNumber: params.fundNumber!,
        version: query.version,
        fundVersion: query['fund-version'],
        page: pageFrom(query),
      }),
  );
  readRoute(
    app,
    '/fund/:fundNumber/filing-history',
    { summary: 'Filing history of the fund, newest first', response: FilingPage, query: PagingQuery },
    ({ params, query }) =>
      listFundFilingHistory(context, { fundNumber: params.fundNumber!, page: pageFrom(query) }),
  );
  readRoute(
    app,
    '/fund/:fundNumber/fund-returns',
    {
      summary: 'The fund’s returns over time: one item per fund update filed, newest period first',
      response: FundReturnsPage,
      query: PagingQuery,
    },
    ({ params, query }) =>
      listFundReturns(context, { fundNumber: params.fundNumber!, page: pageFrom(query) }),
  );
  readRoute(
    app,
    '/fund/:fundNumber/versions',
    {
      summary: 'Every version of the fund itself, newest first (ours)',
      response: FundVersionPage,
      query: PagingQuery,
      extensions: OURS_OPERATION,
    },
    ({ params, query }) =>
      listFundVersions(context, { fundNumber: params.fundNumber!, page: pageFrom(query) }),
  );
}

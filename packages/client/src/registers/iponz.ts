/**
 * The IP office (v5), its REST operations: named after the functions the register publishes (client
 * search, patent detail, renewal check, …). Its SOAP operations are `soap.ts`'s.
 */
import { pagingOf } from '../core/register.ts';
import type { KnownOperation } from '../core/typing.ts';
import { basePath, type paths } from '../generated/iponz.ts';

export type IponzPaths = paths;
export const iponzOperations = {
  searchClients: 'GET /clients',
  getClient: 'GET /clients/{clientId}',
  getSchema: 'GET /schemas/{schema}',
  getPatent: 'GET /patents/{patentNumber}',
  listPatents: 'GET /patents',
  getTradeMark: 'GET /trademarks/{trademarkNumber}',
  listTradeMarks: 'GET /trademarks',
  getDesign: 'GET /designs/{designNumber}',
  listDesigns: 'GET /designs',
  checkPatentRenewal: 'GET /patents/{patentNumber}/renewal',
  renewPatent: 'POST /patents/{patentNumber}/renew',
  checkTradeMarkRenewal: 'GET /trademarks/{trademarkNumber}/renewal',
  renewTradeMark: 'POST /trademarks/{trademarkNumber}/renew',
  checkDesignRenewal: 'GET /designs/{designNumber}/renewal',
  renewDesign: 'POST /designs/{designNumber}/renew',
} as const satisfies Record<string, KnownOperation<paths>>;
export const iponz = {
  basePath,
  operations: iponzOperations,
  paging: pagingOf(1, ['clients'], ['totalResults']),
};

/**
 * The trade mark search (answered by `POST /trademarksearch`, SOAP and JSON): the criteria checked by
 * the domain (domain/trademark-search.ts: a RuleError naming the criterion), at most `SEARCH_CAP` marks
 * in the answer's form, and whether more matched.
 */
import type { ServiceContext } from '../../../gateway/service-context.ts';
import { type CriteriaInput, hitTree, parseCriteria, SEARCH_CAP } from '../domain/trademark-search.ts';
import { searchTrademarks } from '../store/trademark-search.ts';

export async function searchTradeMarks(
  context: ServiceContext,
  input: CriteriaInput,
): Promise<{ tradeMarks: ReturnType<typeof hitTree>[]; more: boolean }> {
  const criteria = parseCriteria(input);
  const { hits, more } = await searchTrademarks(context.database.pool, criteria, SEARCH_CAP);
  return { tradeMarks: hits.map(hitTree), more };
}

import { parseStatisticsQuery, type RawQuery } from '../domain/params.ts';
import type { AnswerFormat, LentAnswer } from '../engine/index.ts';
import type { MarketRentContext } from './context.ts';

export interface StatisticsInput {
  /** The `/statistics` query as its schema leaves it: domain/params.ts checks its rules. */
  query: RawQuery;
  format: AnswerFormat;
}

/**
 * The statistics answer (`GET /statistics`) as of the environment's clock, in JSON or CSV bytes: from
 * the answer cache when the data and the as-of day are unchanged, else computed from the month blocks.
 * A broken rule of the query is a RuleError naming the parameter. The bytes are lent: call `release()`
 * once they are written (the encoder's buffer serves the next answer).
 */
export async function answerStatistics(
  context: MarketRentContext,
  input: StatisticsInput,
): Promise<LentAnswer> {
  const now = context.clock.now();
  const query = parseStatisticsQuery(input.query, { geography: context.geography, now });
  return context.store.answer(query, now, context.rowUniforms, input.format);
}

import type { StatisticsQuery } from '../domain/params.ts';

/**
 * Finished answers (the serialised JSON or CSV, as UTF-8 bytes ready for the socket), least recently
 * used first out, up to `maxBytes`.
 *
 * An answer is a pure function of the data's revision, the as-of day and the query's meaning (rounding
 * is keyed, so it too is fixed), so a stored answer is exactly what recomputing would give. The key is
 * the query's meaning, not its spelling: `regional-council-2019` and `REGC2019` share one entry.
 */
export class AnswerCache {
  private revision: number | undefined;
  private readonly answers = new Map<string, Buffer>();
  private bytes = 0;

  constructor(private readonly maxBytes = 128 * 1024 * 1024) {}

  get(revision: number, key: string): Buffer | undefined {
    if (revision !== this.revision) {
      this.answers.clear();
      this.bytes = 0;
      this.revision = revision;
      return undefined;
    }
    const answer = this.answers.get(key);
    if (answer !== undefined) {
      this.answers.delete(key);
      this.answers.set(key, answer);
    }
    return answer;
  }

  /** Drops every answer, whatever its revision (the database's content was replaced). */
  forget(): void {
    this.answers.clear();
    this.bytes = 0;
    this.revision = undefined;
  }

  /** Whether an answer of this size would be kept (so that a copy is made only then). */
  keeps(size: number): boolean {
    return size <= this.maxBytes;
  }

  set(revision: number, key: string, answer: Buffer): void {
    if (revision !== this.revision || !this.keeps(answer.length)) return;
    const previous = this.answers.get(key);
    if (previous !== undefined) this.bytes -= previous.length;
    this.answers.set(key, answer);
    this.bytes += answer.length;
    for (const [oldest, old] of this.answers) {
      if (this.bytes <= this.maxBytes) break;
      this.answers.delete(oldest);
      this.bytes -= old.length;
    }
  }
}

/** What an answer depends on, besides the data: the period, the areas (by content), factors, aggregates. */
export function queryKey(query: StatisticsQuery, asOf: string, format: string): string {
  const areas =
    query.definition !== null && !query.restricted
      ? `all:${query.definition.code}`
      : JSON.stringify(query.areas.map((a) => [a.label, a.key]));
  return JSON.stringify([
    format,
    asOf,
    query.period.periodEnding,
    query.period.numMonths,
    query.areaDefinition,
    areas,
    query.dwellingTypes,
    query.bedrooms,
    query.includeAggregates,
  ]);
}

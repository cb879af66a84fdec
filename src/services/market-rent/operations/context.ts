import type { ServiceContext } from '../../../gateway/service-context.ts';
import type { Clock } from '../../../platform/clock.ts';
import type { Geography } from '../domain/areas.ts';
import { marketRentGeography } from '../domain/geography.ts';
import { reserveWorkingMemory } from '../domain/report.ts';
import { acquireReportThread } from '../domain/report-thread.ts';
import { deriveSipKey, type RowUniforms, sipRowUniforms } from '../domain/siphash.ts';
import { warmUpOnce, warmUpThread } from '../domain/warm-up.ts';
import { StatisticsStore } from '../store/statistics.ts';

/**
 * What the rental statistics operations run on in one environment: its clock, the geography, the
 * statistics store (with its block and answer caches, kept for the life of the mount) and the keyed
 * rounding draws. Made once per environment by `openMarketRent`; the routes, a test or a tool pass it
 * to every operation.
 */
export interface MarketRentContext {
  readonly clock: Clock;
  readonly geography: Geography;
  readonly store: StatisticsStore;
  /** The random rounding's draws, keyed per environment (the rows of an area share their key's prefix). */
  readonly rowUniforms: RowUniforms;
  /** Gives the report thread back (the last user stops it); the store's caches go with the context. */
  close(): Promise<void>;
}

/** Where the start's side work reports: it costs speed when it fails, never an answer. */
export interface MarketRentLog {
  warn(details: Record<string, unknown>, message: string): void;
  debug(details: Record<string, unknown>, message: string): void;
}

const quiet: MarketRentLog = { warn: () => {}, debug: () => {} };

/** The parts of the service's context the rental statistics need. */
export type MarketRentServiceContext = Pick<
  ServiceContext,
  'environment' | 'database' | 'clock' | 'keyedUniform' | 'settings'
>;

/**
 * The rental statistics of one environment, as the service's settings ask: the answer cache's size,
 * the report thread (`reportThread`: national answers on two cores, from when it is ready) and the
 * warm-up (`warmUp`: compiled code and a national answer's working memory before the first query;
 * awaited, so done before the server takes requests).
 */
export async function openMarketRent(
  context: MarketRentServiceContext,
  log: MarketRentLog = quiet,
): Promise<MarketRentContext> {
  const geography = marketRentGeography();
  const store = new StatisticsStore(context.database.pool, geography, {
    answerCacheBytes: (context.settings.answerCacheMegabytes ?? 128) * 1024 * 1024,
  });
  const warmUp = context.settings.warmUp === 1;
  // The process's report thread (shared by the environments), for national answers on two cores. It
  // starts (and warms its code up) beside this thread's start, not before it: answers are made on one
  // thread until it is ready.
  let release = async (): Promise<void> => {};
  if (context.settings.reportThread !== 0) {
    const handle = acquireReportThread(log, { warmUp });
    void handle.thread.then((thread) => {
      store.useReportThread(thread);
      if (thread !== null && warmUp) {
        warmUpThread(thread, geography, context.clock.now(), {
          done: (ms) => log.debug({ ms: Math.round(ms) }, 'rental statistics: two threads warmed up'),
          failed: (err) =>
            log.warn({ err }, 'rental statistics: warming two threads up failed (only speed is at stake)'),
        });
      }
    });
    release = () => handle.release();
  }
  // Before the server takes requests: the first real query then runs compiled code (domain/warm-up.ts).
  if (warmUp) {
    warmUpOnce(
      geography,
      context.clock.now(),
      {
        done: (ms) => log.debug({ ms: Math.round(ms) }, 'rental statistics: code warmed up'),
        failed: (err) => log.warn({ err }, 'rental statistics: warming up failed (only speed is at stake)'),
      },
      () => store.warmUpDecoding(),
    );
    // The working memory of a national answer over the latest period, made ready before the server
    // takes requests (done beside the first query instead, it slowed that query down).
    await store.latestPeriodEntries(context.clock.now()).then(
      (entries) => reserveWorkingMemory(entries),
      (err: unknown) =>
        log.debug({ err }, 'rental statistics: working memory not reserved (only speed is at stake)'),
    );
  }
  // Random rounding is keyed per environment; the SipHash key comes from the server secret's HMAC.
  const sipKey = deriveSipKey(context.keyedUniform, `market-rent|${context.environment}`);
  return {
    clock: context.clock,
    geography,
    store,
    // The rows of an area share their key's prefix: its SipHash blocks are hashed once per area.
    rowUniforms: sipRowUniforms(sipKey),
    close: release,
  };
}

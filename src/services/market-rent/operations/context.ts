import type { ServiceContext } from '../../../gateway/service-context.ts';
import type { Clock } from '../../../platform/clock.ts';
import type { Geography } from '../domain/areas.ts';
import { deriveSipKey } from '../domain/siphash.ts';
import {
  type Engine,
  type EngineLog,
  type RowUniforms,
  sipRowUniforms,
  startEngine,
} from '../engine/index.ts';
import { marketRentGeography } from '../store/geography.ts';
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
  /** What answers are computed on (engine/): the report thread, once it is ready. */
  readonly engine: Engine;
  /** The random rounding's draws, keyed per environment (the rows of an area share their key's prefix). */
  readonly rowUniforms: RowUniforms;
  /** Gives the report thread back (the last user stops it); the store's caches go with the context. */
  close(): Promise<void>;
}

/** Where the start's side work reports: it costs speed when it fails, never an answer. */
export type MarketRentLog = EngineLog;

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
  // The report thread starts beside this (answers on one thread until it is ready); the warm-up is
  // awaited, so done before the server takes requests.
  const engine = await startEngine({
    geography,
    now: () => context.clock.now(),
    reportThread: context.settings.reportThread !== 0,
    warmUp: context.settings.warmUp === 1,
    log,
    warmUpStore: () => store.warmUpDecoding(),
    latestPeriodEntries: () => store.latestPeriodEntries(context.clock.now()),
  });
  store.useEngine(engine);
  // A sandbox reset or restore replaces the database under the same name: its revisions may repeat.
  const stopForgetting = context.database.onReplaced(() => store.forget());
  // Random rounding is keyed per environment; the SipHash key comes from the server secret's HMAC.
  const sipKey = deriveSipKey(context.keyedUniform, `market-rent|${context.environment}`);
  return {
    clock: context.clock,
    geography,
    store,
    engine,
    // The rows of an area share their key's prefix: its SipHash blocks are hashed once per area.
    rowUniforms: sipRowUniforms(sipKey),
    close: () => {
      stopForgetting();
      return engine.close();
    },
  };
}

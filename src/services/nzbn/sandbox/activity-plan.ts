/**
 * Planning the simulated activity (activity.ts): which events a minute of the sandbox clock holds, when
 * in the minute they happen and what kind each is. Pure: everything comes from keyed randomness of the
 * minute (`keyedUniform`, then a seeded sfc32 stream per event), never from Math.random, so the same walk
 * of the clock makes the same events whether it is walked in one step or many.
 */
import { keyedUniform as hmacUniform, type Random, seeded } from '../../../platform/random.ts';
import { SANDBOX_SEED } from './seed-rows.ts';

export const ACTIVITY_KINDS = ['NEW', 'ENTITY_NAME', 'ADDRESS', 'ROLES_DIRECTOR', 'ENTITY_STATUS'] as const;
export type ActivityKind = (typeof ACTIVITY_KINDS)[number];

/** The mix of simulated changes (ours: addresses and officers change most, names least). */
export const ACTIVITY_KIND_WEIGHTS: readonly (readonly [ActivityKind, number])[] = [
  ['NEW', 20],
  ['ENTITY_NAME', 10],
  ['ADDRESS', 30],
  ['ROLES_DIRECTOR', 22],
  ['ENTITY_STATUS', 18],
];

/** A run looks back at most a year of minutes, whatever the rate. */
export const MAX_SLOTS_PER_RUN = 366 * 24 * 60;
const MINUTE = 60_000;
const KEY_PREFIX = 'nzbn-sandbox-activity';

/** The default keyed randomness: the sandbox seed is the key, so every sandbox sees the same activity. */
export const defaultActivityKey = (key: string): number => hmacUniform(SANDBOX_SEED, key);

export interface PlannedEvent {
  /** The instant of the change (epoch ms). */
  at: number;
  /** The minute (epoch ms / 60,000) and the event's place in it. */
  slot: number;
  index: number;
  kind: ActivityKind;
  /** The event's own stream: which entity, what change. */
  random: Random;
}

export interface ActivityPlan {
  /** Oldest first. */
  events: PlannedEvent[];
  skippedSlots: number;
}

/**
 * The events after `from` up to and including `to` (epoch ms) at `ratePerHour`. When there are more
 * than `cap`, or the interval is longer than MAX_SLOTS_PER_RUN minutes, the most recent minutes are
 * kept and the older ones skipped (a minute is kept whole or not at all).
 */
export function planActivity(
  from: number,
  to: number,
  ratePerHour: number,
  cap: number,
  keyedUniform: (key: string) => number = defaultActivityKey,
): ActivityPlan {
  const newestFirst: PlannedEvent[] = [];
  if (ratePerHour <= 0 || to <= from) return { events: [], skippedSlots: 0 };
  const first = Math.floor(from / MINUTE);
  const last = Math.floor(to / MINUTE);
  const mean = ratePerHour / 60;
  for (let slot = last; slot >= first; slot--) {
    if (last - slot >= MAX_SLOTS_PER_RUN)
      return { events: newestFirst.reverse(), skippedSlots: slot - first + 1 };
    const events = slotEvents(slot, mean, keyedUniform).filter((event) => event.at > from && event.at <= to);
    if (newestFirst.length + events.length > cap) {
      return { events: newestFirst.reverse(), skippedSlots: slot - first + 1 };
    }
    for (let i = events.length - 1; i >= 0; i--) newestFirst.push(events[i]!);
  }
  return { events: newestFirst.reverse(), skippedSlots: 0 };
}

/** The events of one minute, in time order: always the same for the same minute, mean and key. */
export function slotEvents(
  slot: number,
  mean: number,
  keyedUniform: (key: string) => number,
): PlannedEvent[] {
  const u = keyedUniform(`${KEY_PREFIX}/${slot}`);
  const count = poisson(mean, u, () => keyedUniform(`${KEY_PREFIX}/${slot}/normal`));
  if (count === 0) return [];
  const slotSeed = Math.floor(u * 2 ** 32);
  const timing = seeded(KEY_PREFIX, 'timing', slot, slotSeed);
  // Whole seconds when they are enough to keep the events apart, as register timestamps are.
  const unit = count <= 60 ? 1000 : 1;
  const places = MINUTE / unit;
  const offsets = Array.from({ length: count }, () => Math.floor(timing.next() * places)).sort(
    (a, b) => a - b,
  );
  for (let i = 1; i < count; i++) offsets[i] = Math.max(offsets[i]!, offsets[i - 1]! + 1);
  for (let i = count - 1; i >= 0; i--) offsets[i] = Math.min(offsets[i]!, places - count + i);
  return offsets.map((offset, index) => {
    const random = seeded(KEY_PREFIX, 'event', slot, index, slotSeed);
    return {
      at: slot * MINUTE + offset * unit,
      slot,
      index,
      kind: random.weighted(ACTIVITY_KIND_WEIGHTS),
      random,
    };
  });
}

/** A Poisson count with mean `mean` from the uniform `u` (inverse CDF; normal approximation above 100). */
export function poisson(mean: number, u: number, second: () => number): number {
  if (mean <= 0) return 0;
  if (mean > 100) {
    const z = Math.sqrt(-2 * Math.log(1 - u)) * Math.cos(2 * Math.PI * second());
    return Math.max(0, Math.round(mean + Math.sqrt(mean) * z));
  }
  let k = 0;
  let p = Math.exp(-mean);
  let cdf = p;
  const limit = Math.ceil(mean * 10 + 50);
  while (u >= cdf && k < limit) {
    k++;
    p *= mean / k;
    cdf += p;
  }
  return k;
}

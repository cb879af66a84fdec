import { MemoryLimitStore } from './memory.ts';
import { type RedisLimitOptions, RedisLimitStore } from './redis.ts';
import type { LimitStore } from './types.ts';

export type { LimitEvent, LimitHealth, LimitOutcome, LimitRequest, LimitStore } from './types.ts';
export { MemoryLimitStore, type RedisLimitOptions, RedisLimitStore };

export function createLimitStore(
  redisUrl: string | undefined,
  prefix?: string,
  options?: RedisLimitOptions,
): LimitStore {
  return redisUrl ? new RedisLimitStore(redisUrl, prefix, options) : new MemoryLimitStore();
}

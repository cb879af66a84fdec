import { MemoryLimitStore } from './memory.ts';
import { RedisLimitStore } from './redis.ts';
import type { LimitStore } from './types.ts';

export type { LimitOutcome, LimitRequest, LimitStore } from './types.ts';
export { MemoryLimitStore, RedisLimitStore };

export function createLimitStore(redisUrl: string | undefined, prefix?: string): LimitStore {
  return redisUrl ? new RedisLimitStore(redisUrl, prefix) : new MemoryLimitStore();
}

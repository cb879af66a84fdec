import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import type { LimitOutcome, LimitRequest, LimitStore } from './types.ts';

/**
 * Exact across processes: one Lua script checks the sliding log (a sorted set of call times) and the
 * quota counter atomically, on the Redis server's own clock so that gateway hosts need not agree.
 */
const SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local count = redis.call('ZCARD', KEYS[1])
if count >= limit then
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return {1, tonumber(oldest[2]) + window - now}
end
local quotaLimit = tonumber(ARGV[4])
if quotaLimit >= 0 then
  local period = tonumber(ARGV[5])
  local index = math.floor(now / period)
  local qkey = KEYS[2] .. ':' .. index
  local used = tonumber(redis.call('GET', qkey) or '0')
  if used >= quotaLimit then
    return {2, (index + 1) * period - now}
  end
  redis.call('INCR', qkey)
  redis.call('PEXPIRE', qkey, period + 60000)
end
redis.call('ZADD', KEYS[1], now, now .. '-' .. ARGV[3])
redis.call('PEXPIRE', KEYS[1], window + 1000)
return {0, 0}
`;

export class RedisLimitStore implements LimitStore {
  readonly kind = 'redis' as const;
  private readonly redis: Redis;
  private sequence = 0;
  private readonly instance = randomBytes(6).toString('hex');

  constructor(
    url: string,
    private readonly prefix = 'rsg:',
  ) {
    this.redis = new Redis(url, { maxRetriesPerRequest: 2, enableAutoPipelining: true, lazyConnect: false });
    this.redis.defineCommand('rsgLimit', { numberOfKeys: 2, lua: SCRIPT });
  }

  async check({ key, rate, quota }: LimitRequest): Promise<LimitOutcome> {
    const member = `${this.instance}-${this.sequence++}`;
    const run = (this.redis as unknown as Record<string, (...args: unknown[]) => Promise<[number, number]>>)
      .rsgLimit;
    const [code, retryAfterMs] = await run!.call(
      this.redis,
      `${this.prefix}rate:${key}`,
      `${this.prefix}quota:${key}`,
      rate.limit,
      rate.windowMs,
      member,
      quota ? quota.limit : -1,
      quota ? quota.periodMs : 0,
    );
    if (code === 0) return { allowed: true };
    return { allowed: false, reason: code === 1 ? 'rate' : 'quota', retryAfterMs };
  }

  /** Tests use this to start from a clean slate. */
  async reset(key: string): Promise<void> {
    const quotaKeys = await this.redis.keys(`${this.prefix}quota:${key}:*`);
    await this.redis.del(`${this.prefix}rate:${key}`, ...quotaKeys);
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => {});
  }
}

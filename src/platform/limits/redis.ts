import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { lazyRequire } from '../lazy-require.ts';
import { MemoryLimitStore } from './memory.ts';
import type { LimitEvent, LimitHealth, LimitOutcome, LimitRequest, LimitStore } from './types.ts';

const ioredis = lazyRequire<typeof import('ioredis')>('ioredis');

/**
 * Exact across processes: one Lua script checks the sliding log (a sorted set of call times) and the
 * quota counter atomically, on the Redis server's own clock so that gateway hosts need not agree.
 *
 * When Redis cannot be used the gateway keeps serving: each decision is made by an in-process
 * `MemoryLimitStore` instead (exact within this process only), at once, never waiting on Redis. The
 * store reports `down` once when the outage begins and `up` once when Redis answers again; counting
 * then returns to Redis and the local counts are dropped.
 */
const NOW = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
`;

/** Counts the call against the quota, or refuses it (code 2) when the quota is spent. */
const QUOTA = `
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
`;

/** KEYS: the key's sliding log, its quota counter. Codes: 0 allowed, 1 the key's rate, 2 the quota. */
const SCRIPT = `${NOW}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local count = redis.call('ZCARD', KEYS[1])
if count >= limit then
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return {1, tonumber(oldest[2]) + window - now}
end
${QUOTA}
redis.call('ZADD', KEYS[1], now, now .. '-' .. ARGV[3])
redis.call('PEXPIRE', KEYS[1], window + 1000)
return {0, 0}
`;

/**
 * The same with a shared sliding log (KEYS[3], limit ARGV[6], window ARGV[7]) that the call must fit
 * too; code 3: the shared log is full (the wait is the later of the two when both are). A separate
 * script, so that a call without a shared log runs exactly the one above.
 */
const SHARED_SCRIPT = `${NOW}
local sharedLimit = tonumber(ARGV[6])
local sharedWindow = tonumber(ARGV[7])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now - sharedWindow)
local wait = -1
if redis.call('ZCARD', KEYS[1]) >= limit then
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  wait = tonumber(oldest[2]) + window - now
end
if redis.call('ZCARD', KEYS[3]) >= sharedLimit then
  local oldest = redis.call('ZRANGE', KEYS[3], 0, 0, 'WITHSCORES')
  return {3, math.max(wait, tonumber(oldest[2]) + sharedWindow - now)}
end
if wait >= 0 then
  return {1, wait}
end
${QUOTA}
redis.call('ZADD', KEYS[1], now, now .. '-' .. ARGV[3])
redis.call('PEXPIRE', KEYS[1], window + 1000)
redis.call('ZADD', KEYS[3], now, now .. '-' .. ARGV[3])
redis.call('PEXPIRE', KEYS[3], sharedWindow + 1000)
return {0, 0}
`;

export interface RedisLimitOptions {
  /** Longest wait for one Redis call before the decision is made locally (ms). */
  commandTimeoutMs?: number;
  /** Longest wait for a TCP connection to Redis (ms); reconnection goes on regardless. */
  connectTimeoutMs?: number;
  /** Longest pause between two reconnection attempts (ms). */
  maxReconnectDelayMs?: number;
}

type RunLimit = (...args: unknown[]) => Promise<[number, number]>;

export class RedisLimitStore implements LimitStore {
  readonly kind = 'redis' as const;
  private readonly redis: Redis;
  private sequence = 0;
  private readonly instance = randomBytes(6).toString('hex');
  private state: LimitHealth['redis'] = 'connecting';
  private local = new MemoryLimitStore();
  private localDecisions = 0;
  private lastError = 'connection closed';
  private closing = false;
  private firstConnection: Promise<void> | undefined;
  private readonly listeners = new Set<(event: LimitEvent) => void>();

  constructor(
    url: string,
    private readonly prefix = 'rsg:',
    options: RedisLimitOptions = {},
  ) {
    const maxDelay = options.maxReconnectDelayMs ?? 2000;
    this.redis = new (ioredis().Redis)(url, {
      enableAutoPipelining: true,
      // A call never waits for a connection: while Redis is away it fails at once and is decided here.
      enableOfflineQueue: false,
      // Calls in flight when the connection drops fail at once instead of being resent later.
      maxRetriesPerRequest: 0,
      autoResendUnfulfilledCommands: false,
      // A server that accepts but never answers (stopped, overloaded) costs one bounded wait.
      commandTimeout: options.commandTimeoutMs ?? 250,
      connectTimeout: options.connectTimeoutMs ?? 2000,
      // Keep trying for ever, backing off to at most `maxDelay` between attempts.
      retryStrategy: (attempt) => Math.min(50 * 2 ** Math.min(attempt, 16), maxDelay),
    });
    // Without a listener ioredis reports every failed attempt on stderr; the state change says it once.
    this.redis.on('error', (error: Error) => {
      this.lastError = error.message || String(error);
    });
    this.redis.on('ready', () => {
      this.lastError = 'connection closed';
      this.markUp();
    });
    this.redis.on('close', () => this.markDown(this.lastError));
    this.redis.defineCommand('rsgLimit', { numberOfKeys: 2, lua: SCRIPT });
    this.redis.defineCommand('rsgLimitShared', { numberOfKeys: 3, lua: SHARED_SCRIPT });
  }

  /**
   * Resolves when the first connection is ready or has failed, or after `timeoutMs` (then the store
   * counts as down). Calls made before then wait for it, so a new store is exact from its first call;
   * no call waits after that.
   */
  ready(timeoutMs = 2000): Promise<void> {
    this.firstConnection ??= new Promise<void>((resolve) => {
      if (this.state !== 'connecting') return resolve();
      const done = () => {
        clearTimeout(timer);
        this.redis.off('ready', done);
        this.redis.off('close', done);
        if (this.state === 'connecting') this.markDown(`no connection within ${timeoutMs} ms`);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      timer.unref();
      this.redis.once('ready', done);
      this.redis.once('close', done);
    });
    return this.firstConnection;
  }

  async check(request: LimitRequest): Promise<LimitOutcome> {
    if (this.state === 'connecting') await this.ready();
    if (this.state !== 'up') return this.decideLocally(request);
    try {
      return await this.checkOnRedis(request);
    } catch (error) {
      const first = this.state === 'up';
      this.markDown(error instanceof Error ? error.message : String(error));
      // A connection that is still open but stopped answering is dropped (once) and made again; until
      // it is ready every decision is local.
      if (first && this.redis.status === 'ready') this.redis.disconnect(true);
      return this.decideLocally(request);
    }
  }

  health(): LimitHealth {
    return { redis: this.state, localDecisions: this.localDecisions };
  }

  watch(listener: (event: LimitEvent) => void): () => void {
    this.listeners.add(listener);
    if (this.state === 'down') listener({ state: 'down', error: this.lastError });
    return () => this.listeners.delete(listener);
  }

  private decideLocally(request: LimitRequest): LimitOutcome {
    this.localDecisions++;
    return this.local.checkSync(request);
  }

  private async checkOnRedis(request: LimitRequest): Promise<LimitOutcome> {
    if (request.shared) return this.checkSharedOnRedis(request, request.shared);
    const { key, rate, quota } = request;
    const member = `${this.instance}-${this.sequence++}`;
    const run = (this.redis as unknown as Record<string, RunLimit>).rsgLimit!;
    const [code, retryAfterMs] = await run.call(
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

  private async checkSharedOnRedis(
    { key, rate, quota }: LimitRequest,
    shared: NonNullable<LimitRequest['shared']>,
  ): Promise<LimitOutcome> {
    const member = `${this.instance}-${this.sequence++}`;
    const run = (this.redis as unknown as Record<string, RunLimit>).rsgLimitShared!;
    const [code, retryAfterMs] = await run.call(
      this.redis,
      `${this.prefix}rate:${key}`,
      `${this.prefix}quota:${key}`,
      `${this.prefix}rate:${shared.key}`,
      rate.limit,
      rate.windowMs,
      member,
      quota ? quota.limit : -1,
      quota ? quota.periodMs : 0,
      shared.limit,
      shared.windowMs,
    );
    if (code === 0) return { allowed: true };
    if (code === 3) return { allowed: false, reason: 'rate', retryAfterMs, shared: true };
    return { allowed: false, reason: code === 1 ? 'rate' : 'quota', retryAfterMs };
  }

  private markDown(error: string): void {
    if (this.closing || this.state === 'down') return;
    this.state = 'down';
    this.emit({ state: 'down', error });
  }

  private markUp(): void {
    if (this.closing || this.state === 'up') return;
    const wasDown = this.state === 'down';
    this.state = 'up';
    // The next outage counts from zero; what was counted in this one is not carried to Redis.
    this.local = new MemoryLimitStore();
    if (wasDown) this.emit({ state: 'up' });
  }

  private emit(event: LimitEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // A listener's fault must not reach the connection's event handlers.
      }
    }
  }

  /**
   * Forgets the counts under `prefix`, here and on Redis: its rate logs and quota periods (found with
   * SCAN, never KEYS, so a large Redis is not blocked). While Redis is away only the local counts go.
   */
  async forget(prefix: string): Promise<void> {
    this.local.forgetSync(prefix);
    if (this.state !== 'up') return;
    const glob = prefix.replace(/[*?[\]\\]/g, (c) => `\\${c}`);
    for (const pattern of [`${this.prefix}rate:${glob}*`, `${this.prefix}quota:${glob}*`]) {
      let cursor = '0';
      do {
        const [next, keys] = await this.redis.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
        if (keys.length > 0) await this.redis.del(...keys);
        cursor = next;
      } while (cursor !== '0');
    }
  }

  /** Tests use this to start from a clean slate. */
  async reset(key: string): Promise<void> {
    const quotaKeys = await this.redis.keys(`${this.prefix}quota:${key}:*`);
    await this.redis.del(`${this.prefix}rate:${key}`, ...quotaKeys);
  }

  async close(): Promise<void> {
    this.closing = true;
    this.listeners.clear();
    if (this.redis.status === 'ready') await this.redis.quit().catch(() => {});
    this.redis.disconnect();
  }
}

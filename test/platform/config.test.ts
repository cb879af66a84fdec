import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';

describe('configuration', () => {
  it('has working defaults', () => {
    const config = loadConfig({}, '/srv/app');
    expect(config).toMatchObject({
      host: '127.0.0.1',
      port: 8080,
      dataDir: '/srv/app/data',
      databaseUrl: undefined,
      sandboxClock: 'real',
      workers: 1,
      redisTimeoutMs: 250,
      passwordCost: 15,
      metrics: { host: '127.0.0.1', port: 9464 },
    });
  });

  it('the metrics port: a number, 0 for any free port, or off; its host', () => {
    expect(loadConfig({ RSG_METRICS_PORT: 'off' }).metrics).toBeUndefined();
    expect(loadConfig({ RSG_METRICS_PORT: '0', RSG_METRICS_HOST: '::1' }).metrics).toEqual({
      host: '::1',
      port: 0,
    });
  });

  it.each([
    [{ PORT: 'eighty' }, 'PORT: must be a whole number from 0 to 65535, got "eighty"'],
    [{ PORT: '70000' }, 'PORT: must be a whole number from 0 to 65535, got "70000"'],
    [{ RSG_WORKERS: '0' }, 'RSG_WORKERS: must be a whole number from 1 to 64, got "0"'],
    [
      { RSG_METRICS_PORT: 'none' },
      'RSG_METRICS_PORT: must be off or a whole number from 0 to 65535, got "none"',
    ],
    [{ DATABASE_URL: 'not a url' }, 'DATABASE_URL: must be a URL such as postgres://host:port/name'],
    [
      { DATABASE_URL: 'mysql://localhost/db' },
      'DATABASE_URL: must use postgres: or postgresql:, got "mysql:"',
    ],
    [{ REDIS_URL: 'http://localhost' }, 'REDIS_URL: must use redis: or rediss:, got "http:"'],
    [{ RSG_REDIS_TIMEOUT_MS: '0' }, 'RSG_REDIS_TIMEOUT_MS: must be a whole number from 10 to 60000, got "0"'],
    [{ RSG_PASSWORD_COST: '9' }, 'RSG_PASSWORD_COST: must be a whole number from 10 to 20, got "9"'],
    [{ RSG_SANDBOX_CLOCK: 'fast' }, 'RSG_SANDBOX_CLOCK: must be one of real, virtual, got "fast"'],
    [
      { LOG_LEVEL: 'loud' },
      'LOG_LEVEL: must be one of fatal, error, warn, info, debug, trace, silent, got "loud"',
    ],
    [{ RSG_ADMIN_EMAIL: 'admin' }, 'RSG_ADMIN_EMAIL: must be an email address, got "admin"'],
  ])('refuses %o with one line naming the variable and the rule', (env, message) => {
    let caught: unknown;
    try {
      loadConfig(env);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as Error).message).toBe(message);
    expect((caught as Error).message).not.toContain('\n');
  });
});

/**
 * The CORS policies every process holds. A preflight carries no key, so its product is found from the
 * path: each service has exactly one product per environment (products are UNIQUE (environment,
 * service)), so a path under a service's address behind `/sandbox` is always that service's sandbox
 * product. Policies are reloaded when the change feed announces a product change, so `rsg products set`
 * applies at once in every process.
 */
import type { Pool } from 'pg';
import type { ChangeFeed } from '../../platform/db/notify.ts';
import { type CorsPolicy, compile } from '../domain/cors.ts';
import { corsPolicyRows } from '../store/cors-policies.ts';

const RETRY_MS = 2_000;

/**
 * Every product's CORS policy in memory, keyed `<environment>:<service>`. Reloaded (all ten rows) on a
 * product change or a feed reset; when the database cannot be read the last policies stay in force and
 * the load is tried again every two seconds.
 */
export class CorsPolicies {
  private policies = new Map<string, CorsPolicy>();
  private running: Promise<void> | undefined;
  private again = false;
  private retry: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly unsubscribe: (() => void) | undefined;

  constructor(
    private readonly pool: Pool,
    feed?: ChangeFeed,
    private readonly log: (error: unknown) => void = () => {},
  ) {
    this.unsubscribe = feed?.on((notice) => {
      if (notice.kind === 'product' || notice.kind === 'reset') void this.reload().catch(() => {});
    });
  }

  static key(environment: string, service: string): string {
    return `${environment}:${service}`;
  }

  get(key: string): CorsPolicy | undefined {
    return this.policies.get(key);
  }

  /**
   * Loads every policy. Loads never overlap: a reload asked for while one runs makes that one load once
   * more, and every caller waits for the load that started after its request, so nothing stale wins.
   */
  reload(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    const running = (async () => {
      try {
        do {
          this.again = false;
          await this.loadOnce();
        } while (this.again);
      } catch (error) {
        this.log(error);
        this.retryLater();
        throw error;
      } finally {
        this.running = undefined;
      }
    })();
    this.running = running;
    return running;
  }

  private async loadOnce(): Promise<void> {
    const next = new Map<string, CorsPolicy>();
    for (const row of await corsPolicyRows(this.pool)) {
      const policy = compile(row);
      if (policy) next.set(CorsPolicies.key(row.environment, row.service), policy);
    }
    this.policies = next;
  }

  /** The database could not be read: the last policies stay in force; try again shortly. */
  private retryLater(): void {
    if (this.closed || this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      if (!this.closed) void this.reload().catch(() => {});
    }, RETRY_MS);
    this.retry.unref();
  }

  close(): void {
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    this.unsubscribe?.();
  }
}

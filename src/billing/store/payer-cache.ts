/**
 * The payer rule's reading of the gateway database, kept in memory per process: for a user and an
 * environment, the user's organisations in the payer rule's order (role, then the oldest membership). A
 * fee-bearing call whose payer is in memory asks the gateway database nothing.
 *
 * An entry is trusted only while this process listens for membership changes (the pattern of
 * `src/services/iponz/store/case-cache.ts`):
 *
 * - Every change to `memberships` sends the user's id on `MEMBERSHIP_CHANNEL`, and every change to
 *   `organisations` (and a TRUNCATE of either) sends `*`, from triggers (identity migration 005), so
 *   whoever makes the change, in whatever process. PostgreSQL delivers the notice at commit to every
 *   listener, and never for a change that rolled back.
 * - A notice drops that user's entries; `*` drops everything.
 * - While the listening connection is down (not yet connected, lost, reconnecting) nothing is served from
 *   memory or kept, and the cache starts empty once listening again.
 * - A lookup under way when any notice arrives (or when listening began) is answered but not kept: its
 *   rows may predate the change (`mark()` / `keep()`).
 * - At most `size` users are kept; the least recently used is dropped first.
 *
 * What the rule also reads in an environment database (production: which candidates hold an approved
 * direct debit authority, when a user has several organisations) is not kept: it is read each time.
 * A membership change takes effect here when its notice arrives, a moment after its commit.
 */
import pg from 'pg';
import type { Environment } from '../../services/contract.ts';

export const MEMBERSHIP_CHANNEL = 'rsg_memberships';
export const PAYER_CACHE_SIZE = 10_000;
const RETRY_MS = 1_000;

export class PayerCache {
  /** User id → environment → the user's organisations there, in the payer rule's order. */
  private readonly entries = new Map<string, Partial<Record<Environment, readonly string[]>>>();
  private client: pg.Client | undefined;
  private listening = false;
  private connecting: Promise<void> | undefined;
  private closed = false;
  private retry: NodeJS.Timeout | undefined;
  /** Counts notices and (re)connections: a lookup is kept only if none came while it ran. */
  private generation = 0;

  constructor(
    private readonly url: string,
    private readonly size = PAYER_CACHE_SIZE,
  ) {}

  /** Whether entries are being served (the listening connection is up). */
  get serving(): boolean {
    return this.listening;
  }

  /** Starts listening now (otherwise the first `get` does); resolves once listening or failed. */
  async start(): Promise<void> {
    this.open();
    await this.connecting;
  }

  /** The user's organisations in the environment, if they may be trusted. */
  get(userId: string, environment: Environment): readonly string[] | undefined {
    if (!this.listening) {
      this.open();
      return undefined;
    }
    const entry = this.entries.get(userId);
    if (!entry) return undefined;
    // Most recently used last.
    this.entries.delete(userId);
    this.entries.set(userId, entry);
    return entry[environment];
  }

  /** The mark to give `keep` for a lookup starting now. */
  mark(): number {
    return this.generation;
  }

  /** Keeps a lookup made since `mark`, unless a notice came meanwhile or nothing is being served. */
  keep(userId: string, environment: Environment, organisations: readonly string[], mark: number): void {
    if (!this.listening || mark !== this.generation || this.closed) return;
    const entry = this.entries.get(userId) ?? {};
    entry[environment] = organisations;
    this.entries.delete(userId);
    this.entries.set(userId, entry);
    if (this.entries.size > this.size) this.entries.delete(this.entries.keys().next().value!);
  }

  private notice(payload: string): void {
    this.generation++;
    if (payload === '*') this.entries.clear();
    else this.entries.delete(payload);
  }

  private open(): void {
    if (this.closed || this.connecting || this.retry || this.listening) return;
    this.connecting = this.connect().finally(() => {
      this.connecting = undefined;
    });
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.url, application_name: 'rsg-billing-payers' });
    client.on('notification', (message) => {
      if (message.channel === MEMBERSHIP_CHANNEL && message.payload) this.notice(message.payload);
    });
    client.on('error', () => this.lost(client));
    client.on('end', () => this.lost(client));
    try {
      await client.connect();
      await client.query(`LISTEN ${MEMBERSHIP_CHANNEL}`);
    } catch {
      this.lost(client);
      return;
    }
    if (this.closed) {
      await client.end().catch(() => {});
      return;
    }
    this.client = client;
    this.generation++;
    this.entries.clear();
    this.listening = true;
  }

  private lost(client: pg.Client): void {
    if (this.client && this.client !== client) return;
    this.client = undefined;
    this.listening = false;
    this.generation++;
    this.entries.clear();
    client.end().catch(() => {});
    if (this.closed || this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      this.open();
    }, RETRY_MS);
    this.retry.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.listening = false;
    this.entries.clear();
    if (this.retry) clearTimeout(this.retry);
    await this.connecting;
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => {});
  }
}

import pg from 'pg';

/**
 * One connection LISTENing on one channel, for a cache that may be trusted only while it hears every
 * change (the business number register's entities, the IP office's cases, the offers register's
 * answers, the billing payers). The one implementation of that connection: a cache adds what it keeps.
 *
 * - `open()` connects (at most one attempt at a time); a lost connection (error, end) is given up and
 *   tried again after `retryMs`, for as long as the listener is not closed. The timer does not keep the
 *   process alive.
 * - `listening` is true only while the connection is up and LISTENing: nothing may be served from memory
 *   or kept otherwise.
 * - `generation` counts notices and (re)connections and losses: work that began at `mark()` may keep its
 *   result only while `current(mark)` holds (no notice came, and listening did not begin or end,
 *   while it ran).
 * - `onNotice(payload)` is called for each notice (after the generation moved); `onReset()` when
 *   listening begins or ends (the cache empties: what it held may have missed a notice); `onListening()`
 *   once listening has begun, after `onReset` (what a cache loads afresh: `query` runs on the listening
 *   connection, after its LISTEN, so a change the answer misses sends a notice that is heard).
 * - A failed connection never throws and never ends the process: it is a loss like any other. The
 *   connection does not keep the process alive (nor does the retry timer): a forgotten `close` holds
 *   nothing open.
 */
export interface NoticeListenerOptions {
  url: string;
  channel: string;
  /** The connection's `application_name` (what an operator sees in pg_stat_activity). */
  applicationName: string;
  onNotice(payload: string): void;
  onReset(): void;
  onListening?(): void;
  retryMs?: number;
}

/** Every listener of this process that is not closed, for `holdListeners` and `releaseListeners`. */
const live = new Set<NoticeListener>();
/** Database URLs whose listeners must not listen now, with how many holders hold each. */
const held = new Map<string, number>();

/**
 * Ends the listening of every listener of this process on the database at `url`, and keeps them from
 * listening again until `releaseListeners(url)` (as often as it was held): the database's content is
 * about to be replaced under the same name (a sandbox reset or restore). Each listener's cache empties
 * at once (`onReset`) and serves nothing from memory meanwhile.
 */
export function holdListeners(url: string): void {
  held.set(url, (held.get(url) ?? 0) + 1);
  for (const listener of live) if (listener.url === url) listener.drop();
}

/** Lets the listeners on `url` listen again once every hold is released (they reconnect at once). */
export function releaseListeners(url: string): void {
  const holds = (held.get(url) ?? 0) - 1;
  if (holds > 0) {
    held.set(url, holds);
    return;
  }
  held.delete(url);
  for (const listener of live) if (listener.url === url) listener.open();
}

export class NoticeListener {
  private client: pg.Client | undefined;
  private connecting: Promise<void> | undefined;
  private retry: NodeJS.Timeout | undefined;
  private closed = false;
  listening = false;
  generation = 0;

  constructor(private readonly options: NoticeListenerOptions) {
    live.add(this);
  }

  /** The database it listens on. */
  get url(): string {
    return this.options.url;
  }

  /** Starts listening (when not already, nor trying, nor closed, nor held: `holdListeners`). */
  open(): void {
    if (this.closed || this.connecting || this.retry || this.listening || held.has(this.url)) return;
    this.connecting = this.connect().finally(() => {
      this.connecting = undefined;
    });
  }

  /** Starts listening now; resolves once listening or failed. */
  async start(): Promise<void> {
    this.open();
    await this.connecting;
  }

  mark(): number {
    return this.generation;
  }

  /** Whether work that began at `mark` may keep its result. */
  current(mark: number): boolean {
    return this.listening && !this.closed && mark === this.generation;
  }

  /** Moves the generation on (a writer of this process dropped entries at once). */
  bump(): void {
    this.generation++;
  }

  /** Runs a query on the listening connection (see `onListening`); rejects when not listening. */
  async query<R extends pg.QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>> {
    const client = this.client;
    if (!client || !this.listening) throw new Error(`not listening on ${this.options.channel}`);
    return client.query<R>(text, values);
  }

  private async connect(): Promise<void> {
    const { url, channel, applicationName } = this.options;
    const client = new pg.Client({ connectionString: url, application_name: applicationName });
    client.on('notification', (message) => {
      if (message.channel !== channel) return;
      this.generation++;
      this.options.onNotice(message.payload ?? '');
    });
    let ended = false;
    const lost = () => {
      ended = true;
      this.lost(client);
    };
    client.on('error', lost);
    client.on('end', lost);
    try {
      await client.connect();
      await client.query(`LISTEN ${channel}`);
    } catch {
      lost();
      return;
    }
    // Closed or held meanwhile, or lost between LISTEN and here (its retry is already set).
    if (this.closed || ended || held.has(this.url)) {
      await client.end().catch(() => {});
      return;
    }
    this.client = client;
    // A forgotten close must not hold the process open.
    (client as unknown as { connection?: { stream?: { unref?(): void } } }).connection?.stream?.unref?.();
    this.generation++;
    this.options.onReset();
    this.listening = true;
    this.options.onListening?.();
  }

  private lost(client: pg.Client): void {
    if (this.client && this.client !== client) return;
    this.client = undefined;
    this.listening = false;
    this.generation++;
    this.options.onReset();
    client.end().catch(() => {});
    if (this.closed || this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      this.open();
    }, this.options.retryMs ?? 1_000);
    this.retry.unref();
  }

  /** Stops listening now, without trying again (`holdListeners`): the cache empties. */
  drop(): void {
    if (this.retry) clearTimeout(this.retry);
    this.retry = undefined;
    const client = this.client;
    if (!client) return;
    this.client = undefined;
    this.listening = false;
    this.generation++;
    this.options.onReset();
    // Its end is no loss to recover from: no retry is set.
    client.removeAllListeners('end');
    client.removeAllListeners('error');
    client.on('error', () => {});
    client.end().catch(() => {});
  }

  async close(): Promise<void> {
    live.delete(this);
    this.closed = true;
    this.listening = false;
    this.options.onReset();
    if (this.retry) clearTimeout(this.retry);
    await this.connecting;
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => {});
  }
}

/**
 * What a cache on a `NoticeListener` keeps: values by key, at most `limit`, the least recently used
 * dropped first, served and kept only while the listener listens (a `get` while it does not opens the
 * connection), and kept only when no notice came since the work began (`mark`).
 */
export class ListenedEntries<V> {
  private readonly map = new Map<string, V>();

  constructor(
    private readonly listener: NoticeListener,
    private readonly limit: number,
  ) {}

  /** How many values are kept. */
  get size(): number {
    return this.map.size;
  }

  /** The kept value, if it may be trusted; most recently used last. */
  get(key: string): V | undefined {
    if (!this.listener.listening) {
      this.listener.open();
      return undefined;
    }
    const value = this.map.get(key);
    if (value !== undefined) {
      this.map.delete(key);
      this.map.set(key, value);
    }
    return value;
  }

  /** The kept value as it is, without trust or recency (to extend it). */
  peek(key: string): V | undefined {
    return this.map.get(key);
  }

  /** Keeps a value made by work begun at `mark`, unless a notice came meanwhile or nothing is served. */
  keep(key: string, value: V, mark: number): void {
    if (!this.listener.current(mark)) return;
    this.map.delete(key);
    this.map.set(key, value);
    if (this.map.size > this.limit) this.map.delete(this.map.keys().next().value!);
  }

  delete(key: string): void {
    this.map.delete(key);
  }

  clear(): void {
    this.map.clear();
  }
}

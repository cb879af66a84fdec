import pg from 'pg';

/**
 * Cross-process change notices over PostgreSQL LISTEN/NOTIFY: a regenerated key or an advanced clock
 * reaches every gateway process at once, and a sandbox reset pauses and resumes them. When the listening connection drops, subscribers are told to
 * forget everything they cached (`{kind: 'reset'}`) and the feed reconnects.
 */
export const CHANNEL = 'rsg_changes';

export type ChangeNotice =
  | { kind: 'subscription'; id: string }
  | { kind: 'product'; id: string }
  | { kind: 'clock'; environment: string }
  | { kind: 'signing-keys' }
  /**
   * A sandbox reset, snapshot or restore (platform/sandbox/): `pause` asks every process serving the
   * sandbox to finish its requests and jobs and let go of the sandbox database; `resume`, that it is
   * back (its content replaced, or kept). `id` names the operation.
   */
  | { kind: 'sandbox'; phase: 'pause' | 'resume'; id: string }
  | { kind: 'reset' };

export type NoticeHandler = (notice: ChangeNotice) => void;

export class ChangeFeed {
  private client: pg.Client | undefined;
  private readonly handlers = new Set<NoticeHandler>();
  private closed = false;
  private retry: NodeJS.Timeout | undefined;

  constructor(private readonly url: string) {}

  on(handler: NoticeHandler): () => void {
    this.handlers.add(handler);
    return () => this.handlers.delete(handler);
  }

  private emit(notice: ChangeNotice): void {
    for (const handler of this.handlers) handler(notice);
  }

  async start(): Promise<void> {
    const client = new pg.Client({ connectionString: this.url });
    client.on('notification', (message) => {
      if (!message.payload) return;
      try {
        this.emit(JSON.parse(message.payload) as ChangeNotice);
      } catch {
        // not ours
      }
    });
    client.on('error', () => this.reconnect());
    client.on('end', () => this.reconnect());
    await client.connect();
    await client.query(`LISTEN ${CHANNEL}`);
    this.client = client;
  }

  private reconnect(): void {
    if (this.closed || this.retry) return;
    this.client = undefined;
    this.emit({ kind: 'reset' });
    this.retry = setTimeout(() => {
      this.retry = undefined;
      this.start().catch(() => this.reconnect());
    }, 1000);
    this.retry.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    await this.client?.end().catch(() => {});
  }
}

export async function publish(queryable: { query: pg.Pool['query'] }, notice: ChangeNotice): Promise<void> {
  await queryable.query('SELECT pg_notify($1, $2)', [CHANNEL, JSON.stringify(notice)]);
}

import { once } from 'node:events';
import type pg from 'pg';

/**
 * `COPY … FROM STDIN` through node-postgres, without another dependency (the same mechanism as the rental
 * statistics' store; a service may not import another's files, so the few lines are repeated here): node-postgres runs any object
 * with a `submit` method as a query and hands it the protocol messages, so this object answers the
 * server's CopyInResponse by streaming the chunks as CopyData, then CopyDone. The chunks are text in
 * COPY's text format (tab-separated, `\N` for NULL). Backpressure follows the socket.
 */
class CopyIn {
  private error: Error | undefined;
  private rowCount = 0;
  private settle!: { resolve: (rows: number) => void; reject: (error: Error) => void };
  readonly done = new Promise<number>((resolve, reject) => {
    this.settle = { resolve, reject };
  });

  constructor(
    private readonly text: string,
    private readonly chunks: AsyncIterable<string | Buffer> | Iterable<string | Buffer>,
  ) {}

  submit(connection: PgConnection): void {
    connection.query(this.text);
  }

  handleCopyInResponse(connection: PgConnection): void {
    this.pump(connection).catch((error: Error) => {
      this.error ??= error;
      connection.sendCopyFail(error.message);
    });
  }

  private async pump(connection: PgConnection): Promise<void> {
    for await (const chunk of this.chunks) {
      const buffer = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
      if (buffer.length === 0) continue;
      connection.sendCopyFromChunk(buffer);
      if (connection.stream.writableNeedDrain) await once(connection.stream, 'drain');
    }
    connection.endCopyFrom();
  }

  handleCommandComplete(message: { text?: string }): void {
    const match = /COPY (\d+)/.exec(message.text ?? '');
    this.rowCount = match ? Number(match[1]) : 0;
  }

  handleError(error: Error): void {
    this.error ??= error;
  }

  handleReadyForQuery(): void {
    if (this.error) this.settle.reject(this.error);
    else this.settle.resolve(this.rowCount);
  }

  handleRowDescription(): void {}
  handleDataRow(): void {}
  handleEmptyQuery(): void {}
  handlePortalSuspended(): void {}
  handleCopyData(): void {}
}

interface PgConnection {
  query(text: string): void;
  sendCopyFromChunk(chunk: Buffer): void;
  endCopyFrom(): void;
  sendCopyFail(message: string): void;
  stream: NodeJS.WritableStream & { writableNeedDrain: boolean };
}

/** Runs `COPY table (…) FROM STDIN` on `client` with the given text chunks; resolves to the rows copied. */
export function copyFrom(
  client: pg.PoolClient | pg.Client,
  sql: string,
  chunks: AsyncIterable<string | Buffer> | Iterable<string | Buffer>,
): Promise<number> {
  const copy = new CopyIn(sql, chunks);
  (client as unknown as { query(submittable: CopyIn): void }).query(copy);
  return copy.done;
}

/** One field in COPY text format: backslash, tab and line breaks escaped; null as \N. */
export function copyField(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return '\\N';
  if (typeof value === 'number') return String(value);
  return /[\\\t\n\r]/.test(value)
    ? value.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r')
    : value;
}

import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setClock } from '../../../../src/platform/environment-clocks.ts';
import type { JobsHandle } from '../../../../src/runtime.ts';
import { FIXTURE, type NzbnTest } from './api.ts';

export interface Received {
  path: string;
  /** The sandbox clock when the request arrived. */
  at: Date;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/**
 * A real HTTP receiver on 127.0.0.1. `answer` decides each request's fate: a status code, or 'hang'
 * (the request is held until `release()`).
 */
export class Receiver {
  readonly received: Received[] = [];
  answer: (request: Received) => number | 'hang' = () => 200;
  private readonly held: http.ServerResponse[] = [];
  private readonly waiters: Array<() => void> = [];
  private server: http.Server | undefined;
  port = 0;

  constructor(private readonly now: () => Date) {}

  async start(): Promise<this> {
    this.server = http.createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const entry: Received = {
          path: request.url ?? '',
          at: this.now(),
          headers: request.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        };
        this.received.push(entry);
        for (const wake of this.waiters.splice(0)) wake();
        const fate = this.answer(entry);
        if (fate === 'hang') this.held.push(response);
        else response.writeHead(fate, { 'content-type': 'text/plain' }).end('ok');
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  endpoint(path = `/hooks/${randomBytes(4).toString('hex')}`): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  on(path: string): Received[] {
    return this.received.filter((entry) => entry.path === path);
  }

  /** Resolves once `count` requests have arrived at `path`. */
  async waitFor(path: string, count: number): Promise<void> {
    while (this.on(path).length < count) await new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  release(status = 200): void {
    for (const response of this.held.splice(0)) {
      if (!response.destroyed) response.writeHead(status).end('late');
    }
  }

  async close(): Promise<void> {
    this.release();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}

/** Moves the sandbox's virtual clock to `at` and lets this process see it at once. */
export async function clockTo(t: NzbnTest, at: Date): Promise<void> {
  await setClock(t.gateway.runtime.gateway.pool, 'sandbox', at.toISOString());
  await t.gateway.runtime.clocks.reload();
}

export const sandboxNow = (t: NzbnTest): Date => t.gateway.runtime.clocks.for('sandbox').now();

export const minutes = (n: number): number => n * 60_000;

let websites = 0;
/** One recorded change (a new website) on the entity the owner may act for; returns its event id. */
export async function makeChange(t: NzbnTest, nzbn: string = FIXTURE.authority): Promise<string> {
  const response = await t.call('POST', `/entities/${nzbn}/websites`, {
    token: t.owner.token,
    // The published body: an array of websites; the answer is the list (200).
    payload: [{ url: `https://change-${++websites}-${randomBytes(3).toString('hex')}.example.nz` }],
  });
  if (response.statusCode !== 200) throw new Error(`change failed: ${response.statusCode} ${response.body}`);
  const latest = await t.gateway.runtime.environments.sandbox.pool.query<{ id: string }>(
    'SELECT id::text AS id FROM nzbn_change_events e WHERE nzbn = $1 ORDER BY e.id DESC LIMIT 1',
    [nzbn],
  );
  return latest.rows[0]!.id;
}

export async function createWatchlist(t: NzbnTest, body: Record<string, unknown>) {
  const response = await t.call('POST', '/watchlists', {
    payload: {
      name: 'Deliveries',
      channel: 'PUSH',
      adminEmailAddress: 'watchlist-admin@example.test',
      changeEventTypes: ['ALL'],
      nzbns: [FIXTURE.authority],
      ...body,
    },
  });
  if (response.statusCode !== 201) throw new Error(`create failed: ${response.statusCode} ${response.body}`);
  return response.json() as { watchlistId: number; webhookSecret: string; pushEndpoint: string };
}

/** The notification records of a watchlist, by its published watchlistId. */
export async function notifications(t: NzbnTest, watchlistId: string | number) {
  const result = await t.gateway.runtime.environments.sandbox.pool.query<{
    id: string;
    change_event_id: string;
    attempts: number;
    first_attempt_at: Date | null;
    next_attempt_at: Date | null;
    delivered_at: Date | null;
    last_error: string | null;
  }>(
    `SELECT id::text AS id, change_event_id::text AS change_event_id, attempts, first_attempt_at,
            next_attempt_at, delivered_at, last_error
       FROM nzbn_notifications n
      WHERE watchlist_id = (SELECT id FROM nzbn_watchlists WHERE number = $1) ORDER BY n.id`,
    [watchlistId],
  );
  return result.rows;
}

export const settle = (jobs: JobsHandle) => jobs.settle();

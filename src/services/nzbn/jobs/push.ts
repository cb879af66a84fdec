/**
 * One push attempt: POST the change item to the watchlist's endpoint and wait for the answer within the
 * two-minute acknowledgement window. The window is measured on both clocks, and the longer reading
 * wins: real time (a receiver that hangs) and the environment's clock (on the sandbox's virtual clock,
 * `rsg clock advance 3m` makes a hanging receiver's attempt fail at once, as two minutes have passed).
 */
import http from 'node:http';
import https from 'node:https';
import type { Clock } from '../../../platform/clock.ts';
import { ACKNOWLEDGEMENT_WINDOW_MS } from '../domain/delivery-schedule.ts';

const agents = {
  'http:': new http.Agent({ keepAlive: true, maxSockets: 256 }),
  'https:': new https.Agent({ keepAlive: true, maxSockets: 256 }),
};

export interface AttemptResult {
  /** The HTTP status, or undefined when no answer came (network error, window passed). */
  status: number | undefined;
  /** Why it failed without a status. */
  error: string | undefined;
  /** The longer of real and environment-clock time between sending and the answer. */
  elapsedMs: number;
  /** The worker is stopping: the attempt was abandoned and must not count. */
  abandoned?: boolean;
}

interface InFlight {
  realStart: number;
  clockStart: number;
  clock: Clock;
  stop: AbortSignal | undefined;
  /** Ends the attempt: the window passed, or the worker is stopping. */
  cancel(reason: 'window' | 'stopped'): void;
}

/**
 * One timer watches every attempt in flight for the window and for the worker's stop (a timer, an
 * AbortController or a listener per attempt costs more than the attempt at thousands a second).
 */
const inFlight = new Set<InFlight>();
let monitor: NodeJS.Timeout | undefined;

function elapsed(entry: InFlight): number {
  return Math.max(Date.now() - entry.realStart, entry.clock.now().getTime() - entry.clockStart);
}

function watch(entry: InFlight): void {
  inFlight.add(entry);
  if (monitor) return;
  monitor = setInterval(() => {
    for (const each of inFlight) {
      if (each.stop?.aborted) each.cancel('stopped');
      else if (elapsed(each) > ACKNOWLEDGEMENT_WINDOW_MS) each.cancel('window');
    }
  }, 100);
  monitor.unref();
}

function unwatch(entry: InFlight): void {
  inFlight.delete(entry);
  if (inFlight.size === 0 && monitor) {
    clearInterval(monitor);
    monitor = undefined;
  }
}

/** Parsed endpoints (a watchlist's endpoint is used for every one of its notifications). */
const targets = new Map<string, { url: URL; transport: typeof http | typeof https; agent: http.Agent }>();

function targetOf(endpoint: string) {
  let target = targets.get(endpoint);
  if (!target) {
    const url = new URL(endpoint);
    const secure = url.protocol === 'https:';
    target = { url, transport: secure ? https : http, agent: agents[secure ? 'https:' : 'http:'] };
    if (targets.size > 10_000) targets.clear();
    targets.set(endpoint, target);
  }
  return target;
}

export function pushAttempt(
  endpoint: string,
  headers: Record<string, string>,
  body: string,
  clock: Clock,
  stop?: AbortSignal,
): Promise<AttemptResult> {
  const { url, transport, agent } = targetOf(endpoint);
  return new Promise<AttemptResult>((resolve) => {
    let settled = false;
    let cancelled: 'window' | 'stopped' | undefined;
    const entry: InFlight = {
      realStart: Date.now(),
      clockStart: clock.now().getTime(),
      clock,
      stop,
      cancel: (reason) => {
        cancelled = reason;
        request.destroy(new Error(reason));
      },
    };
    const settle = (status: number | undefined, error: string | undefined) => {
      if (settled) return;
      settled = true;
      unwatch(entry);
      resolve({
        status,
        error,
        elapsedMs: elapsed(entry),
        ...(cancelled === 'stopped' ? { abandoned: true } : {}),
      });
    };
    const request = transport.request(
      url,
      {
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
          'user-agent': 'register-services-gateway-watchlists',
          ...headers,
        },
      },
      (response) => {
        // The status line is the acknowledgement; the body is read and dropped.
        response.resume();
        response.on('error', () => {});
        settle(response.statusCode, undefined);
      },
    );
    request.on('error', (error) => {
      settle(
        undefined,
        cancelled === 'window'
          ? 'no answer within the two-minute acknowledgement window'
          : error.message.slice(0, 300),
      );
    });
    watch(entry);
    if (stop?.aborted) entry.cancel('stopped');
    request.end(body);
  });
}

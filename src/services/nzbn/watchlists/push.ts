/**
 * One push attempt: POST the change item to the watchlist's endpoint and wait for the answer within the
 * two-minute acknowledgement window. The window is measured on both clocks, and the longer reading
 * wins: real time (a receiver that hangs) and the environment's clock (on the sandbox's virtual clock,
 * `rsg clock advance 3m` makes a hanging receiver's attempt fail at once, as two minutes have passed).
 */
import http from 'node:http';
import https from 'node:https';
import type { Clock } from '../../../platform/clock.ts';
import { ACKNOWLEDGEMENT_WINDOW_MS } from './schedule.ts';

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
  controller: AbortController;
}

/** One timer watches every attempt in flight (a timer per attempt costs more at thousands a second). */
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
      if (elapsed(each) > ACKNOWLEDGEMENT_WINDOW_MS) each.controller.abort();
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

export function pushAttempt(
  endpoint: string,
  headers: Record<string, string>,
  body: string,
  clock: Clock,
  stop?: AbortSignal,
): Promise<AttemptResult> {
  const url = new URL(endpoint);
  const entry: InFlight = {
    realStart: Date.now(),
    clockStart: clock.now().getTime(),
    clock,
    controller: new AbortController(),
  };
  watch(entry);
  const abandon = () => entry.controller.abort();
  stop?.addEventListener('abort', abandon);
  return new Promise<AttemptResult>((resolve) => {
    let settled = false;
    const settle = (status: number | undefined, error: string | undefined) => {
      if (settled) return;
      settled = true;
      unwatch(entry);
      stop?.removeEventListener('abort', abandon);
      resolve({ status, error, elapsedMs: elapsed(entry), ...(stop?.aborted ? { abandoned: true } : {}) });
    };
    const transport = url.protocol === 'https:' ? https : http;
    const request = transport.request(
      url,
      {
        method: 'POST',
        agent: agents[url.protocol as 'http:' | 'https:'],
        signal: entry.controller.signal,
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
        entry.controller.signal.aborted
          ? 'no answer within the two-minute acknowledgement window'
          : error.message.slice(0, 300),
      );
    });
    request.end(body);
  });
}

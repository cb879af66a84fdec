import net from 'node:net';
import * as hdr from 'hdr-histogram-js';

/**
 * Constant-rate HTTP load with latencies in microseconds, for the gateway's "added p99 at a fixed rate"
 * (autocannon reports whole milliseconds; wrk's latency comes from a closed loop, not a fixed rate).
 * Run in its own process (so it can be pinned to a core of its own and keeps the benchmark's event loop
 * out of the timings):
 *
 *   node --import tsx bench/paced-client.ts '{"url":…,"headers":{…},"rate":2000,"seconds":5,"connections":8}'
 *
 * Requests are due at start + i/rate. Node's timers tick once a millisecond, so every tick sends the
 * requests that have fallen due (two per tick at 2,000/s), each on a keep-alive connection that is not
 * waiting for an answer. Latency is from the tick that sends a request to the last byte of its answer,
 * recorded in an HDR histogram (1 µs resolution); a request that finds every connection waiting is sent
 * when one comes free, and that wait is counted in its latency (so a stalled server is not hidden). The
 * timer's own lateness is not: it is the client's, and it would blur both contenders alike. Prints one JSON line: achieved
 * rate, p50, p90, p99, p99.9 and max in µs, answers, non-2xx answers (failures) and requests left unanswered.
 */
interface Options {
  url: string;
  headers: Record<string, string>;
  rate: number;
  seconds: number;
  connections: number;
}

const options = JSON.parse(process.argv[2] ?? '{}') as Options;
const target = new URL(options.url);
const request = Buffer.from(
  `GET ${target.pathname}${target.search} HTTP/1.1\r\nHost: ${target.host}\r\n` +
    Object.entries(options.headers)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('') +
    '\r\n',
);
const histogram = hdr.build({
  lowestDiscernibleValue: 1,
  highestTrackableValue: 60_000_000,
  numberOfSignificantValueDigits: 3,
});

interface Connection {
  socket: net.Socket;
  busy: boolean;
  /** When the request now on this connection was due (ns), its latency's start. */
  due: bigint;
  buffer: Buffer;
}

let answered = 0;
let failures = 0;
const idle: Connection[] = [];
const waiting: bigint[] = [];

function send(connection: Connection, due: bigint): void {
  connection.busy = true;
  connection.due = due;
  connection.socket.write(request);
}

/** One whole answer (status line, headers, Content-Length body) at the buffer's start, or nothing yet. */
function takeAnswer(connection: Connection): number | undefined {
  const end = connection.buffer.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const head = connection.buffer.subarray(0, end).toString('latin1');
  const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
  if (connection.buffer.length < end + 4 + length) return undefined;
  connection.buffer = connection.buffer.subarray(end + 4 + length);
  return Number(head.slice(9, 12));
}

function open(): Promise<Connection> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(target.port), target.hostname, () => resolve(connection));
    socket.setNoDelay(true);
    const connection: Connection = { socket, busy: false, due: 0n, buffer: Buffer.alloc(0) };
    socket.on('error', reject);
    socket.on('data', (chunk: Buffer) => {
      connection.buffer = connection.buffer.length ? Buffer.concat([connection.buffer, chunk]) : chunk;
      for (let status = takeAnswer(connection); status !== undefined; status = takeAnswer(connection)) {
        const now = process.hrtime.bigint();
        if (recording) {
          histogram.recordValue(Math.max(1, Number((now - connection.due) / 1000n)));
          if (status >= 200 && status < 300) answered++;
          else failures++;
        }
        connection.busy = false;
        const next = waiting.shift();
        if (next !== undefined) send(connection, next);
        else idle.push(connection);
      }
    });
  });
}

const connections = await Promise.all(Array.from({ length: options.connections }, open));
idle.push(...connections);
let recording = false;
const interval = 1_000_000_000 / options.rate;
const start = process.hrtime.bigint();
const total = Math.round(options.rate * options.seconds);
let sent = 0;
recording = true;
await new Promise<void>((resolve) => {
  const tick = () => {
    const elapsed = Number(process.hrtime.bigint() - start);
    const due = Math.min(total, Math.floor(elapsed / interval) + 1);
    const now = process.hrtime.bigint();
    for (; sent < due; sent++) {
      const connection = idle.pop();
      // A request that finds every connection waiting is sent when one comes free; its latency still
      // starts now, when it would have been sent.
      if (connection) send(connection, now);
      else waiting.push(now);
    }
    if (sent < total) setTimeout(tick, 1);
    else resolve();
  };
  tick();
});
// Wait for the last answers (bounded).
const deadline = Date.now() + 10_000;
while ((waiting.length || connections.some((c) => c.busy)) && Date.now() < deadline)
  await new Promise((resolve) => setTimeout(resolve, 5));
const elapsedSeconds = Number(process.hrtime.bigint() - start) / 1e9;
for (const connection of connections) connection.socket.destroy();
process.stdout.write(
  `${JSON.stringify({
    rate: answered / elapsedSeconds,
    p50: histogram.getValueAtPercentile(50),
    p90: histogram.getValueAtPercentile(90),
    p99: histogram.getValueAtPercentile(99),
    p999: histogram.getValueAtPercentile(99.9),
    max: histogram.maxValue,
    answered,
    failures,
    /** Sent but not answered within 10 s of the last send (a server that cannot keep the rate). */
    unanswered: total - answered - failures,
  })}\n`,
);

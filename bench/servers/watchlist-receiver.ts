import { createServer } from 'node:http';

/**
 * The push receiver of `npm run bench:watchlists`: node:http on 127.0.0.1 answering 200 to every POST,
 * in a process of its own (a receiver is another system). It counts what arrives and checks it:
 * distinct `webhook-id`s (a repeat is a duplicate delivery) and, per path (one path per watchlist),
 * that the notification numbers ascend (deliveries in order). With `POST /__reset?capture=1` it also
 * keeps every request (path, headers, body), which the benchmark fetches (`GET /__captured`) to replay
 * the same bodies as plain POSTs, the baseline.
 */
const REPLAYED = [
  'content-type',
  'user-agent',
  'authorization',
  'webhook-id',
  'webhook-timestamp',
  'webhook-signature',
];

interface Captured {
  path: string;
  headers: Record<string, string>;
  body: string;
}

let count = 0;
let outOfOrder = 0;
let capture = false;
let captured: Captured[] = [];
const ids = new Set<string>();
const last = new Map<string, number>();

const json = (response: import('node:http').ServerResponse, value: unknown) => {
  const text = JSON.stringify(value);
  response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  response.end(text);
};

const server = createServer((request, response) => {
  const url = request.url ?? '/';
  if (url.startsWith('/__')) {
    request.resume();
    if (url === '/__stats') return json(response, { count, distinct: ids.size, outOfOrder });
    if (url === '/__captured') return json(response, captured);
    if (url.startsWith('/__reset')) {
      count = 0;
      outOfOrder = 0;
      ids.clear();
      last.clear();
      capture = url.includes('capture=1');
      if (capture) captured = [];
      return json(response, { ok: true });
    }
    response.writeHead(404).end();
    return;
  }
  const id = request.headers['webhook-id'];
  if (typeof id === 'string') {
    ids.add(id);
    const number = Number(id.slice(id.lastIndexOf('_') + 1));
    if (number <= (last.get(url) ?? 0)) outOfOrder++;
    last.set(url, number);
  }
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => {
    if (capture) chunks.push(chunk);
  });
  request.on('end', () => {
    count++;
    if (capture) {
      const headers: Record<string, string> = {};
      for (const name of REPLAYED) {
        const value = request.headers[name];
        if (typeof value === 'string') headers[name] = value;
      }
      captured.push({ path: url, headers, body: Buffer.concat(chunks).toString('utf8') });
    }
    response.writeHead(200, { 'content-type': 'text/plain', 'content-length': '2' });
    response.end('ok');
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(
    `${JSON.stringify({ port: typeof address === 'object' && address ? address.port : 0, pid: process.pid })}\n`,
  );
});
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});

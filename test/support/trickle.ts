import { connect } from 'node:net';

export interface TrickledAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Body bytes the client had written when the server closed the connection. */
  sent: number;
}

/**
 * Sends a request whose body comes one byte every `everyMs` (a slow client, or one holding the connection
 * open on purpose) over a real socket, and resolves once the server has closed the connection, with the
 * answer it sent before closing (status 0 when there was none). `length` is announced in Content-Length (never reached), or the body is
 * chunked when it is absent.
 */
export function trickle(
  port: number,
  request: {
    method: string;
    path: string;
    headers: Record<string, string>;
    length?: number;
    everyMs?: number;
  },
): Promise<TrickledAnswer> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let sent = 0;
    const chunked = request.length === undefined;
    const head = [
      `${request.method} ${request.path} HTTP/1.1`,
      'Host: 127.0.0.1',
      ...Object.entries(request.headers).map(([name, value]) => `${name}: ${value}`),
      chunked ? 'Transfer-Encoding: chunked' : `Content-Length: ${request.length}`,
      '',
      '',
    ].join('\r\n');
    const tick = setInterval(() => {
      if (socket.destroyed || socket.writableEnded) return;
      socket.write(chunked ? '1\r\n \r\n' : ' ');
      sent++;
    }, request.everyMs ?? 50);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => {});
    socket.once('close', () => {
      clearInterval(tick);
      const text = Buffer.concat(chunks).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      // Closed without an answer: status 0.
      if (split < 0) return resolve({ status: 0, headers: {}, body: text, sent });
      const [statusLine, ...lines] = text.slice(0, split).split('\r\n');
      const headers = Object.fromEntries(
        lines.map((line) => {
          const colon = line.indexOf(':');
          return [line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim()];
        }),
      );
      resolve({ status: Number(statusLine!.split(' ')[1]), headers, body: text.slice(split + 4), sent });
    });
    socket.write(head);
  });
}

import { once } from 'node:events';
import net from 'node:net';

/**
 * A TCP port free on 127.0.0.1 now, for the machine's embedded server: below Linux's ephemeral range
 * (32768–60999), from which the OS takes the local port of every outgoing connection, so a port
 * chosen here is not taken meanwhile by one of the thousands of connections a test run makes.
 */
const LOWEST = 20_000;
const SPAN = 12_000;

async function canListen(port: number): Promise<boolean> {
  const server = net.createServer();
  server.listen(port, '127.0.0.1');
  const outcome = await Promise.race([
    once(server, 'listening').then(() => true),
    once(server, 'error').then(() => false),
  ]);
  if (outcome) {
    server.close();
    await once(server, 'close');
  }
  return outcome;
}

export async function freeLocalPort(): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = LOWEST + Math.floor(Math.random() * SPAN);
    if (await canListen(port)) return port;
  }
  throw new Error(`no free port between ${LOWEST} and ${LOWEST + SPAN}`);
}

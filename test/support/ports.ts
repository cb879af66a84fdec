import { once } from 'node:events';
import net from 'node:net';

/**
 * Where the tests' own servers listen: below Linux's ephemeral range (32768–60999), from which the OS
 * takes the local port of every outgoing connection. A port the OS picked (`listen(0)`) and released
 * is in that range, and under load (three files side by side, thousands of connections to PostgreSQL,
 * Redis, nginx and the gateways) an outgoing connection could take it before the server that was to
 * listen there did (seen: the embedded PostgreSQL of `rsg start` refused its port). Below the range
 * only servers that choose their port compete, and the choice is random.
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

/** A TCP port free on 127.0.0.1 right now, for a server a test starts itself (see above). */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = LOWEST + Math.floor(Math.random() * SPAN);
    if (await canListen(port)) return port;
  }
  throw new Error(`no free port between ${LOWEST} and ${LOWEST + SPAN}`);
}

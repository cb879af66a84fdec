import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { seeded } from '../../../src/platform/random.ts';
import { marketRentGeography } from '../../../src/services/market-rent/store/geography.ts';
import type { TestGateway } from '../../support/runtime.ts';
import { BASE, type Bond, importInto, marketRentGateway } from './support/api.ts';

/**
 * A computed answer is sent from the encoder's own buffer, lent until the response is closed
 * (encode.ts, `finishLent`; the lending itself is tested in encode.test.ts): over a real socket,
 * answers computed while earlier ones are still being written or wait unread in a socket are each the
 * bytes of the same answer asked alone, with the answer cache off and on (where the cache's copy is
 * made when the response closes). Whether an unread answer still has bytes in the process rather than
 * in the kernel's socket buffers depends on the kernel's buffer sizes.
 */
const queries = [
  ['json', 'period-ending=2025-12&num-months=6&area-definition=SAU2019&include-aggregates=true'],
  ['csv', 'period-ending=2025-12&num-months=6&area-definition=SAU2019&include-aggregates=true'],
  ['json', 'period-ending=2025-11&num-months=3&area-definition=SAU2019'],
  ['json', 'period-ending=2025-12&num-months=6&area-definition=REGC2019&include-aggregates=true'],
] as const;

function bonds(): Bond[] {
  const random = seeded('market-rent-lent-answers');
  const codes = marketRentGeography().sa2Codes;
  return Array.from({ length: 20_000 }, (_, i) => ({
    id: `L${i}`,
    start: `2025-${String(random.int(8, 12)).padStart(2, '0')}-${String(random.int(1, 28)).padStart(2, '0')}`,
    sa2: codes[random.int(0, codes.length - 1)]!,
    dwelling: random.pick(['House', 'Flat', 'Apartment', 'Room']),
    bedrooms: random.pick([1, 2, 3, 4, 5]),
    rent: random.int(20, 90) * 10,
    closed: random.chance(0.2) ? '2026-01-20' : null,
  }));
}

describe.each([
  ['off', '0', '0'],
  ['on', '128', '0'],
  // Answers made on two threads (engine/report-thread.ts): lent from the joined parts' buffer.
  ['off, answers on two threads', '0', '1'],
])('the answer cache %s', (_, megabytes, reportThread) => {
  let gateway: TestGateway;
  let url: string;
  let key: string;

  beforeAll(async () => {
    ({ gateway, key } = await marketRentGateway({
      RSG_MARKET_RENT_ANSWER_CACHE_MB: megabytes,
      RSG_MARKET_RENT_REPORT_THREAD: reportThread,
      // Twelve answers at once wait for the pool's connections; on a loaded machine that wait may pass the
      // default 5 s (a 503, rightly): what is tested here is the bytes, not how long the wait is.
      RSG_DB_ACQUIRE_TIMEOUT_MS: '120000',
    }));
    await importInto(gateway, bonds());
    url = await gateway.app.listen({ port: 0, host: '127.0.0.1' });
  }, 120_000);
  afterAll(() => gateway?.close());

  const ask = async (format: 'json' | 'csv', query: string) => {
    const response = await fetch(`${url}${BASE}/statistics?${query}`, {
      headers: {
        'Ocp-Apim-Subscription-Key': key,
        accept: format === 'csv' ? 'text/csv' : 'application/json',
      },
    });
    expect(response.status).toBe(200);
    const body = Buffer.from(await response.arrayBuffer());
    expect(Number(response.headers.get('content-length'))).toBe(body.length);
    return body;
  };

  it('answers asked together are the bytes of each asked alone', async () => {
    const alone: Buffer[] = [];
    for (const [format, query] of queries) alone.push(await ask(format, query));
    // Larger than what the kernel holds for a socket that is not read.
    expect(alone[0]!.length).toBeGreaterThan(6_000_000);
    // A client that reads nothing yet: the answer waits in the socket, its bytes still lent, while the
    // other answers are computed; it is read last.
    const slow = net.connect(Number(new URL(url).port), '127.0.0.1');
    const received: Buffer[] = [];
    slow.on('data', (chunk: Buffer) => received.push(chunk));
    slow.pause();
    slow.write(
      `GET ${BASE}/statistics?${queries[0][1]} HTTP/1.1\r\nHost: x\r\nOcp-Apim-Subscription-Key: ${key}\r\nConnection: close\r\n\r\n`,
    );
    // Its answer has begun: the first bytes wait, unread, in the paused socket.
    await vi.waitFor(() => expect(slow.readableLength).toBeGreaterThan(0), { timeout: 10_000, interval: 10 });
    for (let round = 0; round < 3; round++) {
      const together = await Promise.all(
        [...queries, ...queries, ...queries].map(([format, query]) => ask(format, query)),
      );
      together.forEach((body, i) => {
        expect(body.equals(alone[i % queries.length]!), `round ${round}, query ${i}`).toBe(true);
      });
    }
    const ended = new Promise((resolve) => slow.once('end', resolve));
    slow.resume();
    await ended;
    const response = Buffer.concat(received);
    const body = response.subarray(response.indexOf('\r\n\r\n') + 4);
    expect(response.subarray(0, 15).toString()).toBe('HTTP/1.1 200 OK');
    expect(body.equals(alone[0]!)).toBe(true);
  }, 120_000);
});

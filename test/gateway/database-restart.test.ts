import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { type EmbeddedServer, startEmbedded } from '../../src/platform/db/embedded.ts';
import { ensureDatabase } from '../../src/platform/db/pool.ts';
import { withDatabase } from '../../src/platform/db/urls.ts';
import { type JobsHandle, startJobs } from '../../src/runtime.ts';
import { FIXTURE, type NzbnTest, nzbnTest } from '../services/nzbn/support/api.ts';
import { freePort } from '../support/ports.ts';
import { subscriber } from '../support/runtime.ts';

/**
 * The database server stopped and started again, and the embedded one killed by its pid: requests
 * during the outage are answered 503 at once (the breaker), /readyz is not ready, and the gateway serves
 * again without a restart once the server is back. Each case runs on an embedded server of its own.
 */

async function gatewayOn(embedded: EmbeddedServer): Promise<NzbnTest & { marketRentKey: string }> {
  const urls = {
    gateway: withDatabase(embedded.serverUrl, 'rsg_gateway'),
    sandbox: withDatabase(embedded.serverUrl, 'rsg_sandbox'),
    production: withDatabase(embedded.serverUrl, 'rsg_production'),
  };
  for (const url of Object.values(urls)) await ensureDatabase(url);
  const t = await nzbnTest({ urls, entities: 200 });
  const { primaryKey } = await subscriber(t.gateway, 'sandbox-market-rent');
  // The keys are looked up before the outage, as a running gateway would have them cached.
  await t.gateway.app.inject({
    method: 'GET',
    url: '/sandbox/tenancy-services/market-rent/v2/statistics',
    headers: { 'Ocp-Apim-Subscription-Key': primaryKey },
  });
  return Object.assign(t, { marketRentKey: primaryKey });
}

/** A client-credentials token request from a client nobody registered. */
const unknownClientToken = (t: NzbnTest) =>
  t.gateway.app.inject({
    method: 'POST',
    url: '/oauth2/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: 'grant_type=client_credentials&client_id=someone&client_secret=x',
  });

const search = (t: NzbnTest) => t.call('GET', '/entities?search-term=limited&page-size=5');

function expectUnavailable(response: LightMyRequestResponse): void {
  expect(response.statusCode, response.body).toBe(503);
  expect(Number(response.headers['retry-after'])).toBeGreaterThan(0);
  expect(response.json()).toMatchObject({ status: '503', errorCode: 'service-unavailable' });
}

/** Requests while the server is down: each answered 503; returns the slowest answer in ms. */
async function duringOutage(t: NzbnTest & { marketRentKey: string }): Promise<number> {
  let slowest = 0;
  for (let i = 0; i < 20; i++) {
    const started = performance.now();
    const response = await (i % 2 ? search(t) : t.call('GET', `/entities/${FIXTURE.company}`));
    slowest = Math.max(slowest, performance.now() - started);
    expectUnavailable(response);
  }
  // The other dialects: OAuth's JSON, the portal's page, problem+json (rental statistics).
  const token = await unknownClientToken(t);
  expect(token.statusCode, token.body).toBe(503);
  expect(token.headers['retry-after']).toBeDefined();
  expect(token.json().error).toBe('temporarily_unavailable');
  const portal = await t.gateway.app.inject({ method: 'GET', url: '/portal/products' });
  expect(portal.statusCode).toBe(503);
  expect(portal.headers['content-type']).toMatch(/text\/html/);
  expect(portal.headers['retry-after']).toBeDefined();
  const statistics = await t.gateway.app.inject({
    method: 'GET',
    url: '/sandbox/tenancy-services/market-rent/v2/statistics?period-ending=2026-06&num-months=12&area-definition=REGC2019',
    headers: { 'Ocp-Apim-Subscription-Key': t.marketRentKey },
  });
  expect(statistics.statusCode, statistics.body).toBe(503);
  expect(statistics.headers['content-type']).toMatch(/application\/problem\+json/);
  expect(statistics.json()).toMatchObject({ status: 503, type: 'about:blank#service-unavailable' });
  const ready = await t.gateway.app.inject({ method: 'GET', url: '/readyz' });
  expect(ready.statusCode).toBe(503);
  expect(ready.json().status).toBe('not ready');
  return slowest;
}

/** Each test starts an embedded server and a gateway twice over: on a busy machine (the suite's other
 * workers on two cores) that takes longer than the default bound, which is a hang guard, not a goal. */
const START_TWICE = 120_000;

describe('the database server stopped and started again', () => {
  const cleanup: Array<() => Promise<unknown>> = [];
  afterAll(async () => {
    for (const step of cleanup.reverse()) await step().catch(() => {});
  });

  it(
    'an operator stops the server: 503 at once, not ready; started again: serving without a restart',
    async () => {
      const dataDir = await mkdtemp(path.join(tmpdir(), 'rsg-restart-'));
      cleanup.push(() => rm(dataDir, { recursive: true, force: true }));
      const port = await freePort();
      let server = await startEmbedded({ dataDir, port, restart: false });
      cleanup.push(() => server.stop());
      const t = await gatewayOn(server);
      cleanup.push(() => t.close());
      const jobs: JobsHandle = await startJobs(t.gateway.runtime, 'http://127.0.0.1:8080');
      cleanup.push(() => jobs.stop());
      expect((await search(t)).statusCode).toBe(200);

      await server.stop();
      const slowest = await duringOutage(t);

      server = await startEmbedded({ dataDir, port, restart: false });
      const restarted = performance.now();
      await vi.waitFor(async () => expect((await search(t)).statusCode).toBe(200), {
        timeout: 5_000,
        interval: 50,
      });
      const back = performance.now() - restarted;
      // Ready once every database's breaker has closed: each has its own probe (every 500 ms), so the
      // others may close a probe after the one the search needed.
      await vi.waitFor(
        async () =>
          expect((await t.gateway.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200),
        { timeout: 5_000, interval: 50 },
      );
      // Writes work again, and so do the jobs (they paused and resumed).
      const write = await t.call('POST', `/entities/${FIXTURE.authority}/websites`, {
        token: t.owner.token,
        // The published body and answer of POST websites: an array, 200 with the list.
        payload: [{ url: 'https://after-restart.example.nz' }],
      });
      expect(write.statusCode, write.body).toBe(200);
      // The authorization server, first asked for during the outage, is built now: an unknown client
      // is refused in OAuth's words, not 503.
      const token = await unknownClientToken(t);
      expect(token.statusCode, token.body).toBe(401);
      expect(token.json().error).toBe('invalid_client');
      await jobs.settle();
      console.log(
        `server stopped: slowest 503 ${slowest.toFixed(1)} ms; serving ${back.toFixed(0)} ms after the server was back`,
      );
    },
    START_TWICE,
  );

  it(
    'the embedded server killed by its pid is started again by its keeper, and the gateway follows',
    async () => {
      const dataDir = await mkdtemp(path.join(tmpdir(), 'rsg-killed-'));
      cleanup.push(() => rm(dataDir, { recursive: true, force: true }));
      const server = await startEmbedded({ dataDir, port: await freePort() });
      cleanup.push(() => server.stop());
      const t = await gatewayOn(server);
      cleanup.push(() => t.close());
      expect((await search(t)).statusCode).toBe(200);

      const pid = server.pid!;
      process.kill(pid, 'SIGKILL');
      await vi.waitFor(() => expect(server.pid).not.toBe(pid));
      // Until the keeper has it running again, requests are refused at once.
      const started = performance.now();
      const refused = await search(t);
      if (refused.statusCode !== 200) expectUnavailable(refused);
      await vi.waitFor(async () => expect((await search(t)).statusCode).toBe(200), {
        timeout: 30_000,
        interval: 100,
      });
      expect(server.pid).toBeGreaterThan(0);
      expect(server.pid).not.toBe(pid);
      console.log(
        `embedded server killed: serving again ${(performance.now() - started).toFixed(0)} ms later`,
      );
    },
    START_TWICE,
  );
});

import { existsSync } from 'node:fs';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Receiver } from '../services/nzbn/support/watchlists.ts';
import { rsg } from '../support/cli.ts';
import { freshDatabases } from '../support/runtime.ts';
import { freePort, Gateway, NGINX, Nginx, rsgEnv, Worker } from './support/cluster.ts';
import { type Call, Load, send } from './support/load.ts';

/**
 * Scale-out behind a real load balancer: 3 gateways (`rsg start`, jobs off) and 2 `rsg worker`s on one
 * PostgreSQL and one Redis, behind nginx. Figures are printed; see test/scale/README.md.
 */
const redisUrl = process.env.REDIS_URL;
const hasNginx = existsSync(NGINX);
if (!hasNginx)
  console.warn(`scale-out test skipped: nginx is not installed at ${NGINX} (apt-get install nginx)`);
if (!redisUrl)
  console.warn('scale-out test skipped: REDIS_URL is not set (the gateways share limits in Redis)');

const COMPANY = '9429000001007';
const RATE_LIMIT = 20;

describe.runIf(hasNginx && redisUrl)('scale-out: 3 gateways and 2 workers behind nginx', () => {
  let databases: Awaited<ReturnType<typeof freshDatabases>>;
  const gateways: Gateway[] = [];
  const workers: Worker[] = [];
  let nginx: Nginx;
  let receiver: Receiver;
  let nzbnKey: string;
  let rentKey: string;
  let sandbox: pg.Pool;
  const watched: Array<{ id: string; path: string }> = [];
  const figures: string[] = [];

  /** Mixed load: reads, searches, and watchlist creations (writes) whose acknowledged ids are kept. */
  const acknowledged: number[] = [];
  const mix = (n: number): Call => {
    switch (n % 4) {
      case 0:
        return {
          kind: 'write',
          method: 'POST',
          path: '/sandbox/nzbn/v5/watchlists',
          body: {
            name: `load ${n}`,
            channel: 'PUSH',
            pushEndpoint: receiver.endpoint('/load'),
            adminEmailAddress: 'load@example.test',
            nzbns: [COMPANY],
          },
          ok: [201],
        };
      case 1:
        return {
          kind: 'search',
          method: 'GET',
          path: '/sandbox/nzbn/v5/entities?search-term=sandbox&page-size=5',
          ok: [200],
        };
      default:
        return { kind: 'read', method: 'GET', path: `/sandbox/nzbn/v5/entities/${COMPANY}`, ok: [200] };
    }
  };
  const load = () =>
    new Load(nginx.base, nzbnKey, mix, { concurrency: 6, maxRequests: 50_000, maxMs: 240_000 }).start();
  const collect = (finished: Load) => {
    for (const r of finished.results) {
      if (r.kind === 'write' && r.status === 201)
        acknowledged.push((JSON.parse(r.body) as { watchlistId: number }).watchlistId);
    }
  };

  beforeAll(async () => {
    databases = await freshDatabases();
    const env = rsgEnv(databases, redisUrl!);
    const cli = async (args: string[]) => {
      const result = await rsg(args, { urls: databases, env: { REDIS_URL: redisUrl! } });
      if (result.code !== 0) throw new Error(`rsg ${args.join(' ')}: ${result.stderr}`);
      return result.stdout;
    };
    await cli(['migrate']);
    await cli(['seed']);
    // Limits are set before the gateways start: the load's product is wide open, the rental one small.
    await cli(['products', 'set', 'sandbox-nzbn', '--rate-limit', '1000000', '--no-quota']);
    await cli(['products', 'set', 'sandbox-market-rent', '--rate-limit', String(RATE_LIMIT), '--no-quota']);
    nzbnKey = JSON.parse(
      await cli([
        'subscriptions',
        'create',
        '--user',
        'admin@localhost',
        '--product',
        'sandbox-nzbn',
        '--json',
      ]),
    ).primaryKey;
    rentKey = JSON.parse(
      await cli([
        'subscriptions',
        'create',
        '--user',
        'admin@localhost',
        '--product',
        'sandbox-market-rent',
        '--json',
      ]),
    ).primaryKey;

    for (let i = 0; i < 3; i++) gateways.push(new Gateway(i, await freePort(), env));
    await Promise.all(gateways.map((g) => g.start()));
    nginx = await Nginx.create(gateways);
    await nginx.start();
    // Simulated register activity (2 changes a second on the real clock) gives the workers work.
    const workerEnv = { ...env, RSG_SANDBOX_ACTIVITY_PER_HOUR: '7200' };
    for (let i = 0; i < 2; i++) workers.push(new Worker(i, workerEnv));
    await Promise.all(workers.map((w) => w.start()));

    receiver = await new Receiver(() => new Date()).start();
    sandbox = new pg.Pool({ connectionString: databases.sandbox, max: 2 });
    // Three watchlists that see every change in the register, created through the load balancer.
    for (let i = 0; i < 3; i++) {
      const endpoint = receiver.endpoint(`/watch/${i}`);
      const created = await send(nginx.base, nzbnKey, {
        kind: 'write',
        method: 'POST',
        path: '/sandbox/nzbn/v5/watchlists',
        body: {
          name: `all ${i}`,
          channel: 'PUSH',
          pushEndpoint: endpoint,
          adminEmailAddress: 'w@example.test',
          wildcard: 'ALL',
        },
        ok: [201],
      });
      expect(created.status, created.body).toBe(201);
      // The published watchlistId is a number; notifications name the watchlist by its internal key.
      const number = (JSON.parse(created.body) as { watchlistId: number }).watchlistId;
      const internal = await sandbox.query<{ id: string }>(
        'SELECT id::text AS id FROM nzbn_watchlists WHERE number = $1',
        [number],
      );
      watched.push({ id: internal.rows[0]!.id, path: `/watch/${i}` });
    }
  }, 180_000);

  afterAll(async () => {
    await Promise.allSettled(workers.map((w) => w.stop('SIGKILL')));
    await Promise.allSettled(gateways.map((g) => g.stop('SIGKILL')));
    await nginx?.stop();
    await receiver?.close();
    await sandbox?.end();
    await databases?.drop();
    if (figures.length) console.log(`scale-out figures:\n  ${figures.join('\n  ')}`);
  });

  it('rate limits are exact across the three gateways (Redis)', async () => {
    const extra = 7;
    const answers = await Promise.all(
      Array.from({ length: RATE_LIMIT + extra }, () =>
        send(nginx.base, rentKey, {
          kind: 'rate',
          method: 'GET',
          path: '/sandbox/tenancy-services/market-rent/v2/area-definitions/REGC2019',
          ok: [200, 429],
        }),
      ),
    );
    const accepted = answers.filter((a) => a.status === 200).length;
    const refused = answers.filter((a) => a.status === 429).length;
    figures.push(
      `rate limit ${RATE_LIMIT}/min: ${answers.length} tried, ${accepted} accepted, ${refused} refused (429)`,
    );
    expect(new Set(answers.map((a) => a.upstream)).size, 'spread over all three gateways').toBe(3);
    expect(accepted).toBe(RATE_LIMIT);
    expect(refused).toBe(extra);
  });

  it('one gateway SIGKILLed mid-load: no acknowledged write lost, no failure beyond its requests in flight', async () => {
    const running = load();
    await running.waitForMore(150);
    const victim = gateways[1]!;
    const inFlight = running.inFlight;
    expect(await victim.stop('SIGKILL')).toBe('SIGKILL');
    await running.waitForMore(300);
    await running.stop();
    collect(running);
    const failed = running.failed;
    figures.push(
      `SIGKILL: ${running.results.length} tried, ${failed.length} failed (≤ ${inFlight} in flight at the kill), ` +
        `${running.results.filter((r) => r.kind === 'write' && r.ok).length} writes acknowledged`,
    );
    expect(failed.length).toBeLessThanOrEqual(inFlight);
    // Each failure is a request nginx had sent to the killed gateway (a POST, never passed on twice).
    for (const failure of failed) {
      expect(failure.upstream, JSON.stringify(failure)).toContain(victim.address);
      expect(failure.method).toBe('POST');
    }
    await victim.start();
  }, 180_000);

  it('a rolling restart of all three under load fails no request (drain in nginx, then SIGTERM)', async () => {
    const running = load();
    await running.waitForMore(50);
    const exits: Array<number | string> = [];
    for (const gateway of gateways) {
      nginx.down.add(gateway.index);
      await nginx.reload();
      exits.push(await gateway.stop('SIGTERM'));
      await gateway.start();
      nginx.down.delete(gateway.index);
      await nginx.reload();
      await running.waitForMore(30);
    }
    await running.stop();
    collect(running);
    figures.push(
      `rolling restart: ${running.results.length} tried, ${running.failed.length} failed, exits ${exits.join(', ')}`,
    );
    expect(exits).toEqual([0, 0, 0]);
    // On a failure, what each failed request was answered and what the gateways logged meanwhile.
    expect(
      running.failed.map(
        (f) => `${f.method} ${f.status} ${f.upstream} ${f.error ?? ''} ${f.body.slice(0, 300)}`,
      ),
      gateways.map((gateway) => gateway.troubles()).join('\n'),
    ).toEqual([]);
    expect(new Set(running.results.map((r) => r.upstream)).size).toBeGreaterThanOrEqual(3);
  }, 300_000);

  it('a worker SIGTERMed while deliveries flow exits 0; every notification arrives once per id, in order', async () => {
    await vi.waitFor(
      () => expect(receiver.received.filter((r) => r.path.startsWith('/watch/')).length).toBeGreaterThan(20),
      {
        timeout: 60_000,
        interval: 200,
      },
    );
    const worker = workers[0]!;
    expect(await worker.stop('SIGTERM')).toBe(0);
    await worker.start();
    // Everything recorded so far is delivered by the two workers.
    const ids = watched.map((w) => w.id);
    const snapshot = await sandbox.query<{ n: string }>(
      'SELECT coalesce(max(id), 0)::text AS n FROM nzbn_notifications WHERE watchlist_id = ANY($1)',
      [ids],
    );
    const upTo = snapshot.rows[0]!.n;
    await vi.waitFor(
      async () => {
        const left = await sandbox.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM nzbn_notifications WHERE watchlist_id = ANY($1) AND id <= $2 AND delivered_at IS NULL',
          [ids, upTo],
        );
        expect(left.rows[0]!.n).toBe(0);
      },
      { timeout: 60_000, interval: 250 },
    );
    let deliveries = 0;
    let repeats = 0;
    for (const { id, path } of watched) {
      const rows = await sandbox.query<{ id: string; change_event_id: string }>(
        'SELECT id::text AS id, change_event_id::text AS change_event_id FROM nzbn_notifications WHERE watchlist_id = $1 AND id <= $2 ORDER BY id',
        [id, upTo],
      );
      const arrived = receiver.on(path);
      const idsByEvent = new Map<string, Set<string>>();
      const bodies = new Map<string, Set<string>>();
      for (const request of arrived) {
        const webhookId = String(request.headers['webhook-id']);
        const event = String((JSON.parse(request.body) as { changeEventId: string | number }).changeEventId);
        idsByEvent.set(event, (idsByEvent.get(event) ?? new Set()).add(webhookId));
        bodies.set(webhookId, (bodies.get(webhookId) ?? new Set()).add(request.body));
      }
      // Never one change under two ids; a repeat keeps its id and its body.
      for (const [event, webhookIds] of idsByEvent)
        expect([...webhookIds], `change ${event}`).toHaveLength(1);
      for (const [webhookId, seen] of bodies) expect(seen.size, webhookId).toBe(1);
      // Every record delivered, and first arrivals in record order (so in change order).
      for (const row of rows.rows)
        expect(bodies.has(`msg_${id.replace(/-/g, '')}_${row.id}`), `record ${row.id}`).toBe(true);
      const firstArrivals = [...new Set(arrived.map((r) => String(r.headers['webhook-id'])))];
      const order = firstArrivals.map((w) => Number(w.slice(w.lastIndexOf('_') + 1)));
      expect(order).toEqual([...order].sort((a, b) => a - b));
      deliveries += rows.rows.length;
      repeats += arrived.length - firstArrivals.length;
    }
    figures.push(
      `watchlists: ${deliveries} notifications delivered to 3 receivers, ${repeats} repeats (same id)`,
    );
    expect(deliveries).toBeGreaterThan(20);
  }, 240_000);

  it('every acknowledged write is in the database', async () => {
    expect(acknowledged.length).toBeGreaterThan(0);
    const found = await sandbox.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM nzbn_watchlists WHERE number = ANY($1::int[])',
      [acknowledged],
    );
    figures.push(
      `writes: ${acknowledged.length} acknowledged, ${acknowledged.length - found.rows[0]!.n} lost`,
    );
    expect(found.rows[0]!.n).toBe(acknowledged.length);
  });
});

import http from 'node:http';
import os from 'node:os';
import { realClock } from '../src/platform/clock.ts';
import { openDatabase } from '../src/platform/db/pool.ts';
import { DeliveryWorker } from '../src/services/nzbn/jobs/delivery.ts';
import { FANOUT_BATCH, fanOutAll } from '../src/services/nzbn/store/fanout.ts';
import { benchDatabases, median, recordResults, startServer, stopServer } from './support.ts';

/**
 * The business number register's watchlist delivery, each contender against a
 * baseline measured in the same run, interleaved round by round (the order alternates), medians:
 *
 * 1. Fan-out: 100,000 waiting change events over 10,000 watchlists turned into notification records by
 *    `fanOutAll` (batches of FANOUT_BATCH events, one transaction each). Baseline: a bare
 *    `INSERT … SELECT … FROM generate_series` of the same number of rows into a copy of
 *    nzbn_notifications with the same indexes, the database's raw insert speed here.
 *    Goal ≥ 20,000 records/s.
 * 2. Push: 1,000 watchlists (BENCH_PUSH_WATCHLISTS) × 10 due notifications delivered by a
 *    DeliveryWorker (concurrency 64) to a node:http receiver on 127.0.0.1 answering 200, in a process
 *    of its own. Baseline: the same
 *    bodies and headers (captured at the receiver) as plain keep-alive POSTs, 64 at a time, to the same
 *    receiver. Goal ≥ 2,000 deliveries/s.
 *
 * The data goes in with SQL (no API calls); every round starts from the same state (tables truncated
 * and refilled, vacuumed, checkpointed). Each round is checked: records made = the count the data was
 * designed for; every notification delivered; the receiver got each exactly once, in order per watchlist.
 */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CHANGES = 100_000;
const WATCHLISTS = 10_000;
const ALL_WILDCARDS = 1;
const NEW_WILDCARDS = 4;
const LISTED_PER_WATCHLIST = 10;
/** Changes fall on entities 0 … CHANGED-1 (CHANGES / CHANGED each); lists draw from 0 … NUMBER_SPACE-1. */
const CHANGED = 50_000;
const NUMBER_SPACE = 150_000;
/** 1,000 keeps the run within about three minutes at today's speed; BENCH_PUSH_WATCHLISTS for more. */
const PUSH_WATCHLISTS = Number(process.env.BENCH_PUSH_WATCHLISTS ?? 1_000);
const PUSH_PER_WATCHLIST = 10;
const CONCURRENCY = 64;
/** The type of change i is TYPES[i % 20]: 5% new registrations, the rest a spread of entity changes. */
const TYPES = [
  'NEW',
  'ENTITY_NAME',
  'ENTITY_STATUS',
  'ROLES_DIRECTOR',
  'ADDRESS',
  'ADDRESS',
  'WEBSITE',
  'PHONENUMBER',
  'EMAILADDRESS',
  'TRADINGNAME',
  'INDUSTRYCLASSIFICATION',
  'GSTNUMBER',
  'ROLES_SHAREHOLDER',
  'COMPANYDETAILS_ANNUALRETURNS',
  'COMPANYDETAILS_ANNUALRETURNS',
  'ADDRESS',
  'ROLES_DIRECTOR',
  'ROLES_SHAREHOLDER',
  'TRADINGAREA',
  'ORGANISATIONPART',
];
const NAMED_TYPES = ['ENTITY_NAME', 'ENTITY_STATUS', 'ROLES_DIRECTOR'];
const WILDCARDS = ALL_WILDCARDS + NEW_WILDCARDS;

// The watchlists, by ordinal g: the wildcards first, then the listed ones. Of the listed, one in four
// takes ENTITY (every type but NEW), one in ten three named types, the rest ALL.
const wildcardOf = (g: number) => (g < ALL_WILDCARDS ? 'ALL' : g < WILDCARDS ? 'NEW' : null);
const typesOf = (g: number) =>
  g >= WILDCARDS && g % 4 === 0 ? ['ENTITY'] : g >= WILDCARDS && g % 10 === 3 ? NAMED_TYPES : ['ALL'];
/** The k-th number watchlist g lists (an entity ordinal; 7,919 is prime, so a list has no repeats). */
const listed = (g: number, k: number) => ((g * LISTED_PER_WATCHLIST + k) * 7_919) % NUMBER_SPACE;
const accepts = (types: string[], type: string) =>
  types.includes('ALL') || (type !== 'NEW' && types.includes('ENTITY')) || types.includes(type);

/** Records the fan-out must make: the matching rules of fanout.ts applied to the design above. */
function expectedRecords(): { total: number; wildcard: number; listed: number; listedChanged: number } {
  let wildcard = 0;
  let fromLists = 0;
  let listedChanged = 0;
  for (let g = 0; g < WATCHLISTS; g++) {
    const types = typesOf(g);
    const wild = wildcardOf(g);
    if (wild) {
      for (let i = 0; i < CHANGES; i++) {
        const type = TYPES[i % TYPES.length]!;
        if ((wild === 'ALL' || type === 'NEW') && accepts(types, type)) wildcard++;
      }
      continue;
    }
    for (let k = 0; k < LISTED_PER_WATCHLIST; k++) {
      const entity = listed(g, k);
      if (entity < CHANGED) listedChanged++;
      for (let i = entity; i < CHANGES && entity < CHANGED; i += CHANGED) {
        if (accepts(types, TYPES[i % TYPES.length]!)) fromLists++;
      }
    }
  }
  return { total: wildcard + fromLists, wildcard, listed: fromLists, listedChanged };
}

const benchStarted = performance.now();
const log = (line: string) =>
  process.stderr.write(`[${((performance.now() - benchStarted) / 1000).toFixed(0)} s] ${line}\n`);
const databases = await benchDatabases('watchlists');
const { setup } = databases;

let receiver: Awaited<ReturnType<typeof startServer<{ port: number; pid: number }>>> | undefined;
// The environment's pool as the runtime opens it (10 connections), shared by the jobs and the bench.
const database = openDatabase(setup.urls.sandbox);
const { pool } = database;
try {
  receiver = await startServer<{ port: number; pid: number }>('bench/servers/watchlist-receiver.ts');
  const receiverPort = receiver.info.port;
  const control = async <T>(pathname: string): Promise<T> => {
    const response = await fetch(`http://127.0.0.1:${receiverPort}${pathname}`, {
      method: pathname.startsWith('/__reset') ? 'POST' : 'GET',
    });
    return (await response.json()) as T;
  };
  const since = new Date(Date.now() - 30 * 86_400_000);

  // Watchlists and their numbers (once; the rounds leave them as they are but for next_due_at/leases).
  const ordinals = Array.from({ length: WATCHLISTS }, (_, g) => g);
  await pool.query(
    `INSERT INTO nzbn_watchlists (id, owner_key, name, channel, frequency, wildcard, change_event_types,
       push_endpoint, webhook_secret, from_date, created_at, updated_at)
     SELECT md5('bench-watchlist-' || g)::uuid, 'sub:bench-' || (g % 500), 'bench watchlist ' || g, 'PUSH',
            'IMMEDIATE', w.wildcard, string_to_array(w.types, ','), $4 || g,
            'whsec_' || encode(decode(md5('bench-secret-' || g), 'hex'), 'base64'), $5, $5, $5
       FROM unnest($1::int[], $2::text[], $3::text[]) AS w (g, wildcard, types)`,
    [
      ordinals,
      ordinals.map(wildcardOf),
      ordinals.map((g) => typesOf(g).join(',')),
      `http://127.0.0.1:${receiverPort}/hooks/`,
      since,
    ],
  );
  const listOwners: number[] = [];
  const listNumbers: number[] = [];
  for (let g = WILDCARDS; g < WATCHLISTS; g++) {
    for (let k = 0; k < LISTED_PER_WATCHLIST; k++) {
      listOwners.push(g);
      listNumbers.push(listed(g, k));
    }
  }
  await pool.query(
    `INSERT INTO nzbn_watchlist_nzbns (watchlist_id, nzbn, added_at)
     SELECT md5('bench-watchlist-' || g)::uuid, '9429' || lpad(e::text, 9, '0'), $3
       FROM unnest($1::int[], $2::int[]) AS l (g, e)`,
    [listOwners, listNumbers, since],
  );
  // A copy of nzbn_notifications (same columns, defaults and indexes) for the raw-insert baseline.
  await pool.query('CREATE TABLE bench_notifications (LIKE nzbn_notifications INCLUDING ALL)');
  const expected = expectedRecords();
  log(
    `${WATCHLISTS.toLocaleString('en-NZ')} watchlists, ${listNumbers.length.toLocaleString('en-NZ')} listed numbers; ` +
      `${CHANGES.toLocaleString('en-NZ')} changes make ${expected.total.toLocaleString('en-NZ')} records`,
  );

  const settleDatabase = async () => {
    await pool.query(
      'VACUUM ANALYZE nzbn_watchlists, nzbn_watchlist_nzbns, nzbn_change_events, nzbn_notifications, bench_notifications',
    );
    // CHECKPOINT needs pg_checkpoint (or a superuser) on a server of your own; without it, carry on.
    await pool.query('CHECKPOINT').catch(() => {});
  };
  /** The 100,000 changes, waiting for the fan-out, ids 1 … CHANGES; no records, nothing due. */
  const resetChanges = async () => {
    await pool.query('TRUNCATE nzbn_notifications, nzbn_change_events, bench_notifications RESTART IDENTITY');
    await pool.query(
      `INSERT INTO nzbn_change_events (nzbn, entity_name, entity_type_code, change_event_type, change_date,
         new_value, fanned_out)
       SELECT '9429' || lpad((i % $1)::text, 9, '0'), 'BENCH ENTITY ' || (i % $1) || ' LIMITED', 'LTD',
              ($2::text[])[1 + i % array_length($2::text[], 1)], $3::timestamptz + i * interval '10 ms',
              json_build_object('addressType', 'REGISTERED', 'address1', (i % 997) || ' Queen Street',
                                'address2', 'Auckland Central', 'postCode', '1010', 'countryCode', 'NZ'),
              false
         FROM generate_series(0, $4 - 1) i ORDER BY i`,
      [CHANGED, TYPES, new Date(Date.now() - 2 * 86_400_000), CHANGES],
    );
    await pool.query(
      'UPDATE nzbn_watchlists SET next_due_at = NULL, lease_worker = NULL WHERE next_due_at IS NOT NULL OR lease_worker IS NOT NULL',
    );
    await settleDatabase();
  };

  // 1. Fan-out against the raw insert.
  const fanout = { ours: [] as number[], raw: [] as number[] };
  const runFanOut = async () => {
    await pool.query('CHECKPOINT').catch(() => {});
    const now = new Date();
    const started = performance.now();
    const result = await fanOutAll(pool, () => now);
    const seconds = (performance.now() - started) / 1000;
    const counted = (
      await pool.query<{ records: number; waiting: number }>(
        `SELECT (SELECT count(*) FROM nzbn_notifications) AS records,
                (SELECT count(*) FROM nzbn_change_events WHERE NOT fanned_out) AS waiting`,
      )
    ).rows[0]!;
    if (result.events !== CHANGES || result.records !== expected.total || counted.records !== expected.total)
      throw new Error(
        `fan-out: ${result.events} events, ${result.records} records reported, ${counted.records} stored; expected ${CHANGES} events, ${expected.total} records`,
      );
    if (counted.waiting !== 0) throw new Error(`fan-out left ${counted.waiting} events waiting`);
    return seconds;
  };
  const runRawInsert = async () => {
    await pool.query('CHECKPOINT').catch(() => {});
    const now = new Date();
    const started = performance.now();
    const inserted = await pool.query(
      `INSERT INTO bench_notifications (watchlist_id, change_event_id, created_at)
       SELECT w.ids[1 + g % w.n], 1 + g % $2, $3 FROM generate_series(0, $1 - 1) g,
              (SELECT array_agg(id ORDER BY id) AS ids, count(*)::int AS n FROM nzbn_watchlists) w`,
      [expected.total, CHANGES, now],
    );
    const seconds = (performance.now() - started) / 1000;
    if (inserted.rowCount !== expected.total) throw new Error(`raw insert: ${inserted.rowCount} rows`);
    return seconds;
  };
  for (let round = 0; round < ROUNDS; round++) {
    await resetChanges();
    const order = round % 2 ? (['raw', 'ours'] as const) : (['ours', 'raw'] as const);
    for (const which of order) fanout[which].push(await (which === 'ours' ? runFanOut() : runRawInsert()));
    log(
      `fan-out round ${round + 1}: ${(expected.total / fanout.ours.at(-1)!).toFixed(0)} records/s, ` +
        `raw insert ${(expected.total / fanout.raw.at(-1)!).toFixed(0)} rows/s`,
    );
  }

  // 2. Push: PUSH_WATCHLISTS × 10 due notifications, over the same 100,000 changes.
  const pushTotal = PUSH_WATCHLISTS * PUSH_PER_WATCHLIST;
  const resetPush = async () => {
    await pool.query('TRUNCATE nzbn_notifications RESTART IDENTITY');
    const due = new Date(Date.now() - 60_000);
    await pool.query(
      `INSERT INTO nzbn_notifications (watchlist_id, change_event_id, created_at)
       SELECT md5('bench-watchlist-' || g)::uuid, 1 + (g * $3::int + j) % $4::int, $5
         FROM generate_series($1::int, $1::int + $2::int - 1) g, generate_series(0, $3::int - 1) j
        ORDER BY g, j`,
      [WILDCARDS, PUSH_WATCHLISTS, PUSH_PER_WATCHLIST, CHANGES, due],
    );
    await pool.query(
      `UPDATE nzbn_watchlists SET lease_worker = NULL, last_successful_change_notice_id = NULL,
              next_due_at = CASE WHEN id IN (SELECT watchlist_id FROM nzbn_notifications) THEN $1::timestamptz END`,
      [due],
    );
    await settleDatabase();
  };
  let captured: { path: string; headers: Record<string, string>; body: string }[] = [];
  type Stats = { count: number; distinct: number; outOfOrder: number };
  const checkReceived = (who: string, stats: Stats, ordered: boolean) => {
    if (stats.count !== pushTotal || stats.distinct !== pushTotal || (ordered && stats.outOfOrder !== 0))
      throw new Error(
        `${who}: the receiver got ${stats.count} requests (${stats.distinct} distinct webhook-ids, ${stats.outOfOrder} out of order); expected ${pushTotal}`,
      );
  };
  const runWorker = async () => {
    const errors: unknown[] = [];
    const worker = new DeliveryWorker({
      pool,
      clock: realClock,
      apiBase: 'http://127.0.0.1:8080/sandbox/nzbn/v5',
      concurrency: CONCURRENCY,
      onError: (error) => errors.push(error),
    });
    await worker.start(setup.urls.sandbox);
    await control(`/__reset${captured.length ? '' : '?capture=1'}`);
    const started = performance.now();
    worker.wake();
    await worker.idle();
    const seconds = (performance.now() - started) / 1000;
    await worker.stop();
    if (errors.length) throw new Error(`delivery worker: ${String(errors[0])}`);
    checkReceived('worker', await control<Stats>('/__stats'), true);
    const state = (
      await pool.query<{ delivered: number; pending: number; leased: number; due: number }>(
        `SELECT count(*) FILTER (WHERE delivered_at IS NOT NULL) AS delivered,
                count(*) FILTER (WHERE delivered_at IS NULL) AS pending,
                (SELECT count(*) FROM nzbn_watchlists WHERE lease_worker IS NOT NULL) AS leased,
                (SELECT count(*) FROM nzbn_watchlists WHERE next_due_at IS NOT NULL) AS due
           FROM nzbn_notifications`,
      )
    ).rows[0]!;
    if (state.delivered !== pushTotal || state.pending !== 0 || state.leased !== 0 || state.due !== 0)
      throw new Error(`after delivery: ${JSON.stringify(state)}`);
    if (!captured.length) captured = await control('/__captured');
    return seconds;
  };
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const post = (request: (typeof captured)[number]) =>
    new Promise<number>((resolve, reject) => {
      const outgoing = http.request(
        {
          host: '127.0.0.1',
          port: receiverPort,
          path: request.path,
          method: 'POST',
          agent,
          headers: { ...request.headers, 'content-length': String(Buffer.byteLength(request.body)) },
        },
        (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        },
      );
      outgoing.on('error', reject);
      outgoing.end(request.body);
    });
  const runPlainPosts = async () => {
    await control('/__reset');
    let next = 0;
    let failed = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < captured.length) {
          if ((await post(captured[next++]!)) !== 200) failed++;
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    if (failed) throw new Error(`plain POSTs: ${failed} not answered 200`);
    checkReceived('plain POSTs', await control<Stats>('/__stats'), false);
    return seconds;
  };
  const push = { ours: [] as number[], raw: [] as number[] };
  const bodyBytes: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    await resetPush();
    // The worker goes first in the first round: its deliveries are what the baseline replays.
    const order = round % 2 ? (['raw', 'ours'] as const) : (['ours', 'raw'] as const);
    for (const which of order) {
      if (which === 'raw') await pool.query('CHECKPOINT').catch(() => {});
      push[which].push(await (which === 'ours' ? runWorker() : runPlainPosts()));
    }
    if (!bodyBytes.length) bodyBytes.push(...captured.map((c) => Buffer.byteLength(c.body)));
    log(
      `push round ${round + 1}: worker ${(pushTotal / push.ours.at(-1)!).toFixed(0)} deliveries/s, ` +
        `plain POSTs ${(pushTotal / push.raw.at(-1)!).toFixed(0)}/s`,
    );
  }

  // Report.
  const rate = (count: number, seconds: number[]) => median(seconds.map((s) => count / s));
  const ratio = (ours: number[], raw: number[]) => median(ours.map((s, i) => raw[i]! / s));
  const n = (value: number) => Math.round(value).toLocaleString('en-NZ');
  const pct = (value: number) => `${(value * 100).toFixed(1)}%`;
  const ms = (values: number[]) => values.map((s) => (s * 1000).toFixed(0)).join(', ');
  const goal = (ok: boolean) => (ok ? 'met' : '**not met**');
  const fanoutRate = rate(expected.total, fanout.ours);
  const pushRate = rate(pushTotal, push.ours);
  const cpu = os.cpus()[0]?.model.split(' ').slice(0, 2).join(' ') ?? 'unknown CPU';
  const lines = [
    '## Watchlist delivery: fan-out and push (`npm run bench:watchlists`)',
    '',
    `Measured ${new Date().toISOString().slice(0, 10)} on ${os.cpus().length} cores (${cpu}), Node ${process.version}, ` +
      `load average ${os.loadavg()[0]!.toFixed(1)} at the end (the machine is shared; PostgreSQL, the receiver and the benchmark share the cores); ` +
      `database: ${databases.label}, the fan-out on the environment pool (10 connections), the delivery worker on its own (8). ` +
      `${ROUNDS} rounds, each contender against its baseline in the same round (the order alternates); medians, and ratios as medians of the per-round ratios. ` +
      `Every round starts from the same rows (truncated, refilled, vacuumed, checkpointed).`,
    '',
    `**Fan-out.** ${n(CHANGES)} waiting change events over ${n(WATCHLISTS)} watchlists: ${ALL_WILDCARDS} ALL wildcard, ${NEW_WILDCARDS} NEW wildcards, ` +
      `${n(WATCHLISTS - WILDCARDS)} listing ${LISTED_PER_WATCHLIST} numbers each (${n(listNumbers.length)} listed, ${n(expected.listedChanged)} of them on changed entities); ` +
      `of the listed watchlists ¼ take ENTITY, 1/10 three named types, the rest ALL. The changes fall on ${n(CHANGED)} entities (${CHANGES / CHANGED} each), 5% are NEW. ` +
      `They make ${n(expected.total)} notification records (${n(expected.wildcard)} from wildcards, ${n(expected.listed)} from lists), checked every round.`,
    '',
    '| contender | median time | rows/s | changes/s | ÷ raw insert |',
    '|---|---|---|---|---|',
    `| \`fanOutAll\`: batches of ${n(FANOUT_BATCH)} events, one transaction each (match, insert records, mark events, wake watchlists) | ${n(median(fanout.ours) * 1000)} ms | **${n(fanoutRate)} records/s** | ${n(rate(CHANGES, fanout.ours))} | ${pct(ratio(fanout.ours, fanout.raw))} |`,
    `| baseline: one bare \`INSERT … SELECT … FROM generate_series\` of ${n(expected.total)} rows into a copy of nzbn_notifications (same indexes) | ${n(median(fanout.raw) * 1000)} ms | ${n(rate(expected.total, fanout.raw))} rows/s | | |`,
    '',
    `**Push.** ${n(PUSH_WATCHLISTS)} watchlists × ${PUSH_PER_WATCHLIST} due notifications (${n(pushTotal)}) to a node:http receiver on 127.0.0.1 answering 200, in its own process; ` +
      `bodies ${n(median(bodyBytes))} bytes (median) plus Standard Webhooks headers. Checked every round: every notification delivered_at set, no lease or due time left, ` +
      `the receiver got ${n(pushTotal)} requests with ${n(pushTotal)} distinct webhook-ids, in order per watchlist.`,
    '',
    '| contender | median time | deliveries/s | ÷ plain POSTs |',
    '|---|---|---|---|',
    `| \`DeliveryWorker\`, concurrency ${CONCURRENCY}: claim, read pending, build and sign the item, POST, mark delivered, release | ${n(median(push.ours) * 1000)} ms | **${n(pushRate)}** | ${pct(ratio(push.ours, push.raw))} |`,
    `| baseline: the same bodies and headers as plain keep-alive POSTs, ${CONCURRENCY} at a time, to the same receiver | ${n(median(push.raw) * 1000)} ms | ${n(rate(pushTotal, push.raw))} | |`,
    '',
    '| goal | measured | |',
    '|---|---|---|',
    `| fan-out ≥ 20,000 notification records/s | ${n(fanoutRate)} records/s | ${goal(fanoutRate >= 20_000)} |`,
    `| push ≥ 2,000 deliveries/s to a local receiver | ${n(pushRate)} deliveries/s | ${goal(pushRate >= 2_000)} |`,
    '',
    `Samples (ms): fan-out ${ms(fanout.ours)}; raw insert ${ms(fanout.raw)}; worker ${ms(push.ours)}; plain POSTs ${ms(push.raw)}. ` +
      `Whole run ${((performance.now() - benchStarted) / 1000).toFixed(0)} s.`,
  ];
  process.stdout.write(`\n${lines.join('\n')}\n`);
  if (process.env.BENCH_RECORD !== '0') await recordResults('bench:watchlists', lines.join('\n'));
  agent.destroy();
} finally {
  await database.close();
  if (receiver) await stopServer(receiver.child);
  await databases.release();
}

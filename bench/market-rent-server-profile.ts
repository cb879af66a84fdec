import { latestPeriodEnding } from '../src/services/market-rent/domain/period.ts';
import { marketRentDatabases } from './market-rent-databases.ts';
import { SERVER_NODE_ARGS, startServer, stopServer, timedGet } from './support.ts';

/**
 * A computed national answer inside the server, for CPU profiles of the whole path (gateway, store,
 * computation): the bench's database (`npm run bench:market-rent` builds it once), one server with
 * the answer cache off and `PROFILE_NODE_ARGS` (say `--cpu-prof --cpu-prof-dir=/tmp/prof`), its blocks
 * read by a first query, then `PROFILE_ROUNDS` computed answers, each timed until its last byte.
 */
const ROUNDS = Number(process.env.PROFILE_ROUNDS ?? 20);
const setup = await marketRentDatabases();
const periodEnding = latestPeriodEnding(new Date(), 'Pacific/Auckland');
const query = `period-ending=${periodEnding}&num-months=24&area-definition=SAU2019&include-aggregates=true`;
const extra = (process.env.PROFILE_NODE_ARGS ?? '').split(' ').filter(Boolean);
const server = await startServer<{ port: number; key: string }>(
  'bench/servers/service.ts',
  {
    RSG_BENCH_URLS: JSON.stringify(setup.urls),
    RSG_BENCH_SERVICE: 'market-rent',
    RSG_MARKET_RENT_ANSWER_CACHE_MB: '0',
    // More of the server's environment, as JSON (say {"RSG_MARKET_RENT_REPORT_THREAD":"0"}).
    ...(JSON.parse(process.env.PROFILE_SERVER_ENV ?? '{}') as Record<string, string>),
  },
  undefined,
  [...SERVER_NODE_ARGS, ...extra],
);
try {
  const times: number[] = [];
  for (let i = 0; i <= ROUNDS; i++) {
    if (process.env.PROFILE_PAUSE) await new Promise((r) => setTimeout(r, Number(process.env.PROFILE_PAUSE)));
    const answer = await timedGet(
      `http://127.0.0.1:${server.info.port}/sandbox/tenancy-services/market-rent/v2/statistics?${query}`,
      { 'Ocp-Apim-Subscription-Key': server.info.key },
    );
    const headers = answer.headersMs;
    if (i > 0) times.push(answer.ms);
    if (i > 0)
      process.stderr.write(`headers ${headers.toFixed(0)} ms, last byte ${times.at(-1)!.toFixed(0)} ms\n`);
  }
  times.sort((a, b) => a - b);
  process.stdout.write(`median ${times[Math.floor(times.length / 2)]!.toFixed(0)} ms\n`);
} finally {
  await stopServer(server.child);
  await setup.embedded?.stop();
}

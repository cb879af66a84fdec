/**
 * `npm run bench:harness`: a start of the test harness (`startSandbox`, src/testing/) once the machine's
 * template exists, against a baseline measured in the same run: the bare `CREATE DATABASE … TEMPLATE`
 * copies of the template's three databases a start makes. Goal: a start ≤ 3 s after the first.
 *
 * The first start (which makes the template when it is missing) is timed apart. Then each round times
 * the baseline and a start in this process (the gateway's modules loaded), the order alternating, then
 * a start in a new process (Node, the loader and the gateway's modules too: what a new test worker
 * pays), timed from the process's start until `startSandbox` resolves. Every started sandbox answers a
 * register call before it is stopped. On `DATABASE_URL`'s server, else the machine's embedded one (as
 * a suite uses it). Knobs: BENCH_ROUNDS (5), BENCH_RECORD=0 to only print.
 */
import { execFile } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { dropDatabaseNamed } from '../src/platform/db/databases.ts';
import { databaseName } from '../src/platform/db/urls.ts';
import { startSandbox } from '../src/testing/index.ts';
import { cacheFolder, leaseServer } from '../src/testing/machine.ts';
import { copyTemplate, ensureTemplate } from '../src/testing/template.ts';
import type { Sandbox } from '../src/testing/types.ts';
import { median, recordResults, root } from './support.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const GOAL_MS = 3_000;
const began = Date.now();
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

const lease = process.env.DATABASE_URL ? undefined : await leaseServer(cacheFolder(), async () => {});
const server = process.env.DATABASE_URL ?? `${lease!.serverUrl}/postgres`;

/** A register call the sandbox must answer: a fixed test case of the business number register. */
async function answers(sandbox: Sandbox): Promise<void> {
  const response = await fetch(`${sandbox.registers.nzbn}/entities/9429000001007`, {
    headers: { 'Ocp-Apim-Subscription-Key': sandbox.keys.nzbn },
  });
  if (response.status !== 200) throw new Error(`the started sandbox answered ${response.status}`);
}

/** A start in a new process: milliseconds from its start until `startSandbox` resolved. */
function coldStart(): Promise<number> {
  const script = `
    const began = performance.timeOrigin;
    const { startSandbox } = await import(${JSON.stringify(path.join(root, 'src/testing/entry.js'))});
    const sandbox = await startSandbox();
    const ms = Date.now() - began;
    const r = await fetch(sandbox.registers.nzbn + '/entities/9429000001007', { headers: { 'Ocp-Apim-Subscription-Key': sandbox.keys.nzbn } });
    await sandbox.stop();
    process.stdout.write(JSON.stringify({ ms, status: r.status }));`;
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--input-type=module', '-e', script],
      { cwd: root },
      (error, stdout, stderr) => {
        if (error) return reject(new Error(`${error.message}\n${stderr}`));
        const { ms, status } = JSON.parse(stdout) as { ms: number; status: number };
        if (status !== 200) return reject(new Error(`the started sandbox answered ${status}`));
        resolve(ms);
      },
    );
  });
}

try {
  const firstStarted = performance.now();
  const first = await startSandbox();
  const firstMs = performance.now() - firstStarted;
  await answers(first);
  await first.stop();
  const template = await ensureTemplate(server, 'small');

  const samples = { baseline: [] as number[], start: [] as number[], cold: [] as number[] };
  const baseline = async () => {
    const started = performance.now();
    const urls = await copyTemplate(server, template, `bench${Date.now().toString(36)}`);
    const ms = performance.now() - started;
    for (const url of Object.values(urls)) await dropDatabaseNamed(url, databaseName(url));
    return ms;
  };
  const start = async () => {
    const started = performance.now();
    const sandbox = await startSandbox();
    const ms = performance.now() - started;
    await answers(sandbox);
    await sandbox.stop();
    return ms;
  };
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? ['baseline', 'start'] : ['start', 'baseline'];
    for (const contender of order) {
      if (contender === 'baseline') samples.baseline.push(await baseline());
      else samples.start.push(await start());
    }
    samples.cold.push(await coldStart());
    process.stderr.write(`round ${round + 1}/${ROUNDS} done\n`);
  }

  const baselineMedian = median(samples.baseline);
  const startMedian = median(samples.start);
  const coldMedian = median(samples.cold);
  const worst = Math.max(...samples.cold, ...samples.start);
  const lines = [
    '## Test harness start (`npm run bench:harness`)',
    '',
    `Measured ${new Date().toISOString().slice(0, 10)} on ${os.cpus().length} cores (${os.cpus()[0]?.model.trim()}), Node ${process.version}, load average ${os.loadavg()[0]!.toFixed(1)} at the end (the machine is shared); database: ${process.env.DATABASE_URL ? 'DATABASE_URL' : "the machine's embedded server"}. The small seed. ${ROUNDS} rounds; each times the baseline and a start in this process (the order alternating), then a start in a new process; every started sandbox answers a register call before it is stopped.`,
    '',
    '| contender | median | ÷ baseline |',
    '|---|---|---|',
    `| a start in a new process (Node, the loader, the gateway's modules, then \`startSandbox\`: what a new test worker pays) | **${seconds(coldMedian)}** | ${(coldMedian / baselineMedian).toFixed(1)}× |`,
    `| a start in a process that started one before (\`startSandbox\`: three copies, the gateway's runtime, routes and jobs, a user with five keys) | ${seconds(startMedian)} | ${(startMedian / baselineMedian).toFixed(1)}× |`,
    `| baseline: the three \`CREATE DATABASE … TEMPLATE\` copies of the template, at once | ${seconds(baselineMedian)} | |`,
    `| the run's first start (${template.made ? 'made the template' : 'the template was there'}) | ${seconds(firstMs)} | |`,
    '',
    '| goal | measured | |',
    '|---|---|---|',
    `| a start ≤ 3 s after the first on the machine | ${seconds(worst)} at most | ${worst <= GOAL_MS ? 'met' : 'missed'} |`,
    '',
    `Samples (ms): new process ${samples.cold.map(Math.round).join(', ')}; this process ${samples.start.map(Math.round).join(', ')}; baseline ${samples.baseline.map(Math.round).join(', ')}. Whole run ${Math.round((Date.now() - began) / 1000)} s.`,
  ];
  const markdown = lines.join('\n');
  process.stdout.write(`${markdown}\n`);
  await recordResults('bench:harness', markdown);
} finally {
  await lease?.release();
}

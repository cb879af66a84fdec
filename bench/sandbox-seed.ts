/**
 * `npm run bench:sandbox-seed`: `rsg seed` of all five sandbox registers at the full scale, on empty
 * databases, each register timed (the four after the business number register run side by side, so
 * their times overlap); the small seed, timed the same way on its own empty databases in the
 * same run, is the baseline (the ratio says how the full scale grows on this machine as it is loaded
 * now). Goal: all five registers at the full scale ≤ 5 minutes. Then, unless BENCH_CHECK=0,
 * `rsg sandbox check` of the full sandbox (every register's invariants), timed, its report printed.
 *
 * One full seed takes minutes, so there is one round of each by default (BENCH_ROUNDS small rounds, each
 * on fresh databases; the full seed once). Knobs: BENCH_ROUNDS (1), BENCH_CHECK (1), BENCH_RECORD=0 to
 * only print.
 */
import os from 'node:os';
import { checkSandbox, seedSandbox } from '../src/runtime.ts';
import type { SeedContext, ServiceDefinition } from '../src/services/contract.ts';
import { invariantReport, invariantsHold } from '../src/services/invariants.ts';
import { SERVICES } from '../src/services/registry.ts';
import { benchDatabases, median, recordResults } from './support.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 1);
const CHECK = process.env.BENCH_CHECK !== '0';
const GOAL_MS = 5 * 60_000;

/** Each register's seed, timed: the registry's hooks wrapped for this process only. */
const timings = new Map<string, number>();
for (const service of SERVICES as ServiceDefinition[]) {
  const seed = service.seed;
  if (!seed) continue;
  (service as { seed: typeof seed }).seed = async (context: SeedContext) => {
    const started = performance.now();
    try {
      return await seed.call(service, context);
    } finally {
      timings.set(service.id, performance.now() - started);
    }
  };
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

async function seeded(scale: 'small' | 'full', check: boolean) {
  const databases = await benchDatabases(`sandbox-seed-${scale}`);
  try {
    timings.clear();
    const started = performance.now();
    const summaries = await seedSandbox(databases.setup.urls, scale, (line) =>
      process.stderr.write(`  ${line}\n`),
    );
    const totalMs = performance.now() - started;
    const byService = new Map(timings);
    process.stderr.write(
      `${scale} seed: ${seconds(totalMs)} (${[...byService].map(([id, ms]) => `${id} ${seconds(ms)}`).join(', ')}), load average ${os.loadavg()[0]!.toFixed(1)}\n`,
    );
    let checked: { ms: number; held: boolean; report: string } | undefined;
    if (check) {
      const began = performance.now();
      const results = await checkSandbox(databases.setup.urls);
      checked = {
        ms: performance.now() - began,
        held: invariantsHold(results),
        report: invariantReport(results, 3),
      };
    }
    return { totalMs, byService, summaries, checked, label: databases.label };
  } finally {
    await databases.release();
  }
}

const smallRuns: Awaited<ReturnType<typeof seeded>>[] = [];
for (let round = 0; round < ROUNDS; round++) {
  process.stderr.write(`small seed, round ${round + 1} of ${ROUNDS}\n`);
  smallRuns.push(await seeded('small', false));
}
process.stderr.write('full seed\n');
const full = await seeded('full', CHECK);

const smallOf = (id: string) => median(smallRuns.map((run) => run.byService.get(id) ?? 0));
const smallTotal = median(smallRuns.map((run) => run.totalMs));
const rows = SERVICES.filter((s) => s.seed).map((s) => {
  const big = full.byService.get(s.id) ?? 0;
  const small = smallOf(s.id);
  return `| ${s.id} | ${seconds(small)} | ${seconds(big)} | ${small > 0 ? `${(big / small).toFixed(0)}×` : '–'} |`;
});
const met = full.totalMs <= GOAL_MS;
const load = os.loadavg()[0]!.toFixed(1);
const markdown = [
  '## Sandbox seed: all five registers at the full scale (`npm run bench:sandbox-seed`)',
  '',
  `Measured ${new Date().toISOString().slice(0, 10)} on ${os.cpus().length} cores (${os.cpus()[0]?.model.trim()}), Node ${process.version}, load average ${load} at the end (the machine is shared); database: ${full.label}. \`rsg seed\` on empty databases, each register timed (the business number register first, then the other four side by side: their times overlap, and the total is the wall time of all five); the small seed on its own empty databases in the same run is the baseline (${ROUNDS} round${ROUNDS === 1 ? '' : 's'}, median); the full seed once.`,
  '',
  '| register | small | full | full ÷ small |',
  '|---|---|---|---|',
  ...rows,
  `| **all five** | ${seconds(smallTotal)} | **${seconds(full.totalMs)}** | ${(full.totalMs / smallTotal).toFixed(0)}× |`,
  '',
  `Goal: all five registers at the full scale ≤ 5 minutes: **${met ? 'met' : 'not met'}** (${seconds(full.totalMs)}).`,
  ...(full.checked
    ? [
        '',
        `\`rsg sandbox check\` of the full sandbox just seeded took ${seconds(full.checked.ms)}: ${full.checked.held ? 'every rule holds' : '**rules broken** (below)'}.`,
        '',
        '```',
        full.checked.report.trimEnd(),
        '```',
      ]
    : []),
].join('\n');
process.stdout.write(`${markdown}\n\n${full.summaries.join('\n')}\n`);
await recordResults('sandbox-seed', markdown);
process.exit(met && (full.checked?.held ?? true) ? 0 : 1);

import path from 'node:path';
import { loadGeography } from '../src/platform/geography.ts';
import { REFERENCE_DATA_DIR } from '../src/platform/paths.ts';
/**
 * Sandbox generator speed for the business number register: generates N entities of one seed in this
 * process and prints entities per second, the projected time for the national scale (700,000
 * entities) and the mean JSON size. Only generator CPU is measured (process CPU time, so a busy
 * machine does not skew it): no database, no serialisation beyond the size sample.
 *
 *   npx tsx bench/nzbn-generator.ts [count=100000] [geography directory=reference-data/geo]
 */
import { generateEntityAt } from '../src/services/nzbn/sandbox/entity.ts';

const count = Number(process.argv[2] ?? 100_000);
const directory = process.argv[3] ?? path.join(REFERENCE_DATA_DIR, 'geo');
const NATIONAL_SCALE = 700_000;

const geography = loadGeography(directory);
const context = { geography };

// Warm up the JIT and the per-year time zone cache, so the figure is the steady state.
for (let i = 0; i < 5_000; i++) generateEntityAt('bench-warmup', i, context);

let bytes = 0;
const started = process.hrtime.bigint();
const cpuBefore = process.cpuUsage();
for (let i = 0; i < count; i++) {
  const entity = generateEntityAt('bench', i, context);
  if (i % 1_000 === 0) bytes += JSON.stringify(entity).length;
}
const seconds = Number(process.hrtime.bigint() - started) / 1e9;
const cpu = process.cpuUsage(cpuBefore);
// CPU time rather than wall time: on a shared machine other processes stretch the wall clock.
const cpuSeconds = (cpu.user + cpu.system) / 1e6;
const perSecond = count / cpuSeconds;

console.log(`generated ${count} entities in ${seconds.toFixed(2)} s wall, ${cpuSeconds.toFixed(2)} s CPU`);
console.log(`${Math.round(perSecond).toLocaleString('en-NZ')} entities/second of CPU (one core)`);
console.log(
  `national scale (${NATIONAL_SCALE.toLocaleString('en-NZ')}): ${(NATIONAL_SCALE / perSecond).toFixed(1)} s of generator CPU`,
);
console.log(
  `mean entity JSON: ${Math.round(bytes / Math.ceil(count / 1_000)).toLocaleString('en-NZ')} bytes`,
);

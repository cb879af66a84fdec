/**
 * `npm run examples:record`: writes `sandbox-answers.json` beside this file. Makes three throwaway
 * databases on the PostgreSQL server of `DATABASE_URL` (required; nothing of a running gateway is
 * touched) with a known server secret (`presetServerSecret`: keyed random rounding repeats), seeds the
 * sandbox at the small scale with its clock frozen at a fixed instant (so answers that show "now" come
 * out the same each time) after making the recorder's operator (access.ts), subscribes it to each
 * sandbox product, records (record.ts; stable.ts renumbers what is drawn at random) and drops the
 * databases. Recording twice gives the same file.
 */
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildApp } from '../../app.ts';
import { loadConfig } from '../../config.ts';
import { dropDatabase, ensureDatabase } from '../../platform/db/pool.ts';
import { withDatabase } from '../../platform/db/urls.ts';
import { freezeClock } from '../../platform/environment-clocks.ts';
import { openRuntime, presetServerSecret, seedSandbox } from '../../runtime.ts';
import { grantExampleEntity, RECORDING_SECRET, recorderAccess, recorderUser } from './access.ts';
import { RECORDED_AT, recordExamples } from './record.ts';

const here = path.dirname(fileURLToPath(import.meta.url));

async function main(): Promise<void> {
  const server = process.env.DATABASE_URL;
  if (!server) throw new Error('DATABASE_URL: give a PostgreSQL server to make throwaway databases on');
  const stem = `rsg_examples_${randomBytes(4).toString('hex')}`;
  const urls = {
    gateway: withDatabase(server, `${stem}_gateway`),
    sandbox: withDatabase(server, `${stem}_sandbox`),
    production: withDatabase(server, `${stem}_production`),
  };
  for (const url of Object.values(urls)) await ensureDatabase(url);
  try {
    await presetServerSecret(urls, RECORDING_SECRET);
    const config = loadConfig({
      LOG_LEVEL: 'silent',
      RSG_SANDBOX_ACTIVITY_PER_HOUR: '0',
      RSG_SERVER_SECRET: RECORDING_SECRET,
    });
    const runtime = await openRuntime(config, { urls, embedded: undefined }, { clockMode: 'virtual' });
    try {
      await freezeClock(runtime.gateway.pool, 'sandbox', RECORDED_AT);
      await runtime.clocks.reload();
      // Before the seed, which grants operators the fixtures' authorities.
      const user = await recorderUser(runtime.gateway.pool);
      for (const line of await seedSandbox(urls, 'small')) console.log(line);
      const app = await buildApp(runtime, { logger: false });
      await app.ready();
      await grantExampleEntity(
        app,
        runtime.gateway.pool,
        user,
        runtime.services,
        runtime.clocks.for('sandbox'),
      );
      const recorded = await recordExamples(
        app,
        runtime.services,
        recorderAccess(app, runtime.gateway.pool, user),
      );
      await app.close();
      const file = path.join(here, 'sandbox-answers.json');
      await writeFile(file, `${JSON.stringify(recorded, null, 1)}\n`);
      for (const [service, { answers, missing }] of Object.entries(recorded)) {
        console.log(
          `${service}: ${Object.keys(answers).length} answers, ${Object.keys(missing).length} without`,
        );
      }
      console.log(`written: ${path.relative(process.cwd(), file)}`);
    } finally {
      await runtime.close();
    }
  } finally {
    await Promise.all(Object.values(urls).map(dropDatabase));
  }
}

await main();

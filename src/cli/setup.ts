import type { Config } from '../config.ts';
import { bootstrapIfNeeded } from '../gateway/operations/bootstrap.ts';
import { openDatabase } from '../platform/db/pool.ts';
import { migrateAll, prepareDatabases, seedSandbox } from '../runtime.ts';
import { SERVICES } from '../services/registry.ts';
import { parse, UsageError } from './args.ts';
import { keepSeededState } from './sandbox.ts';
import { printBootstrap } from './start.ts';

/** `rsg migrate` and `rsg seed`: setting up the databases. */

export async function migrateCommand(config: Config, args: string[]): Promise<number> {
  parse(args, {});
  const setup = await prepareDatabases(config);
  try {
    const applied = await migrateAll(setup.urls);
    process.stdout.write(
      applied.length ? `applied:\n  ${applied.join('\n  ')}\n` : 'databases are up to date\n',
    );
  } finally {
    await setup.embedded?.stop();
  }
  return 0;
}

export async function seedCommand(config: Config, args: string[]): Promise<number> {
  const { values } = parse(args, { scale: { type: 'string' } });
  if (values.scale !== undefined && values.scale !== 'small' && values.scale !== 'full') {
    throw new UsageError('--scale must be small or full');
  }
  const scale = values.scale ?? config.seedScale;
  const setup = await prepareDatabases(config);
  try {
    await migrateAll(setup.urls);
    const gateway = openDatabase(setup.urls.gateway, 2);
    const result = await bootstrapIfNeeded(gateway.pool, config.adminEmail, SERVICES).finally(() =>
      gateway.close(),
    );
    if (result) printBootstrap(result, config);
    else process.stdout.write('the operator and sandbox subscriptions exist already\n');
    const log = (line: string) => process.stderr.write(`${line}\n`);
    const summaries = await seedSandbox(setup.urls, scale, log);
    for (const summary of summaries) process.stdout.write(`${summary}\n`);
    if (await keepSeededState(config, setup, scale, { prepare: true })) {
      process.stdout.write(`kept the sandbox's seeded state (${scale}) for "rsg sandbox reset"\n`);
    }
  } finally {
    await setup.embedded?.stop();
  }
  return 0;
}

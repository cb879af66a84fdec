import type { Config } from '../config.ts';
import { migrateAll, prepareDatabases } from '../runtime.ts';
import { parse, UsageError } from './args.ts';

/** `rsg import bonds`: market rent's rental bond import (the service's own command). */
export async function importCommand(config: Config, args: string[]): Promise<number> {
  const { values, positionals } = parse(args, { environment: { type: 'string' } });
  const [kind, file] = positionals;
  if (kind !== 'bonds' || !file)
    throw new UsageError('import bonds FILE.csv [--environment sandbox|production]');
  const environment = values.environment ?? 'production';
  if (environment !== 'sandbox' && environment !== 'production') {
    throw new UsageError('--environment must be sandbox or production');
  }
  const { importBondsCommand } = await import('../services/market-rent/commands/import-bonds.ts');
  const setup = await prepareDatabases(config);
  try {
    await migrateAll(setup.urls);
    return await importBondsCommand(setup.urls[environment], file, environment);
  } finally {
    await setup.embedded?.stop();
  }
}

import { existsSync } from 'node:fs';
import { openDatabase } from '../../../platform/db/pool.ts';
import type { ServiceCommand } from '../../contract.ts';
import { ImportError, importBonds } from '../operations/bonds.ts';
import { progressBar } from './progress.ts';

const USAGE = 'import bonds FILE.csv [--environment sandbox|production]';

/** `rsg import bonds`: market rent's rental bond import, into production unless told otherwise. */
export const importCommand: ServiceCommand = {
  name: 'import',
  usage: `${USAGE}   rental bonds, all or nothing (default production)`,
  async run(context, args) {
    const { values, positionals } = context.parse(args, { environment: { type: 'string' } });
    const [kind, file] = positionals;
    if (kind !== 'bonds' || !file) throw context.usageError(USAGE);
    const environment = values.environment ?? 'production';
    if (environment !== 'sandbox' && environment !== 'production') {
      throw context.usageError('--environment must be sandbox or production');
    }
    return context.withEnvironmentDatabase(environment, (url) => importBondsCommand(url, file, environment));
  },
};

/** The body of `rsg import bonds FILE.csv`: runs the import, prints the outcome; returns the exit code. */
export async function importBondsCommand(url: string, file: string, environment: string): Promise<number> {
  if (!existsSync(file)) {
    process.stderr.write(`rsg: no file ${file}\n`);
    return 2;
  }
  const database = openDatabase(url, 2);
  const bar = progressBar(`importing bonds into ${environment}`);
  try {
    const result = await importBonds({ database }, { file }, { progress: bar.update });
    bar.finish();
    process.stdout.write(
      `${result.rows.toLocaleString('en-NZ')} rows: ${result.inserted.toLocaleString('en-NZ')} new, ${result.updated.toLocaleString('en-NZ')} updated, ${result.unchanged.toLocaleString('en-NZ')} unchanged (monthly cells ${result.aggregates})\n`,
    );
    return 0;
  } catch (error) {
    bar.finish();
    if (!(error instanceof ImportError)) throw error;
    for (const e of error.errors) process.stderr.write(`${file}:${e.line}: ${e.message}\n`);
    if (error.total > error.errors.length) {
      process.stderr.write(`… and ${error.total - error.errors.length} more\n`);
    }
    process.stderr.write(`rsg: ${error.message}\n`);
    return 1;
  } finally {
    await database.close();
  }
}

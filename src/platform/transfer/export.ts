/** An export of one register to an NDJSON file (gzip when its name ends in `.gz`) or standard output. */
import type { Database } from '../db/pool.ts';
import { ndjsonOutput } from './ndjson.ts';
import type { OptionValues, TransferEnvironment, TransferRegister } from './register.ts';

export async function exportRegister(
  database: Database,
  register: Pick<TransferRegister, 'exportAll'>,
  file: string | undefined,
  options: OptionValues = {},
  environment: TransferEnvironment = 'production',
): Promise<number> {
  const output = ndjsonOutput(file);
  const count = await register.exportAll({ database, environment, options, output, file });
  await output.close();
  return count;
}

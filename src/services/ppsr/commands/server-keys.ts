import { loadConfig } from '../../../config.ts';
import { openDatabase } from '../../../platform/db/pool.ts';
import { loadServerKeys } from '../../../platform/server-keys.ts';
import type { ServiceCommand } from '../../contract.ts';
import { serverKeysInUse } from '../store/key-conversion.ts';

/**
 * `rsg ppsr-server-keys`: which server keys the register's PIN verifiers and kept answers still name, per
 * environment, so an operator knows when a previous secret may be dropped after a rotation.
 */
export const serverKeysCommand: ServiceCommand = {
  name: 'ppsr-server-keys',
  usage: 'ppsr-server-keys   server keys the secured interests register still uses (after a rotation)',
  async run(context, args) {
    context.parse(args, {});
    const config = loadConfig();
    const { keys, source } = loadServerKeys(config.variables, config.dataDir);
    process.stdout.write(`server secret from ${source}: current key ${keys.current.id}\n`);
    for (const environment of ['sandbox', 'production'] as const) {
      const uses = await context.withEnvironmentDatabase(environment, async (url) => {
        const database = openDatabase(url, 1);
        try {
          return await serverKeysInUse(database.pool);
        } finally {
          await database.close();
        }
      });
      for (const [id, count] of uses) {
        const state =
          id === keys.current.id ? 'current' : keys.find(id) ? 'previous' : 'NOT CONFIGURED (its PINs fail)';
        process.stdout.write(`${environment}: key ${id} named ${count} times (${state})\n`);
      }
      if (uses.size === 0) process.stdout.write(`${environment}: no key named\n`);
    }
    return 0;
  },
};

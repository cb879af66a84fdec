import { type Config, readSettings, readUserRateLimit } from '../config.ts';
import { migrateAll, prepareDatabases } from '../runtime.ts';
import type { CommandContext } from '../services/contract.ts';
import { SERVICES } from '../services/registry.ts';
import { parse, UsageError } from './args.ts';

/**
 * What the services bring to `rsg` through the contract: their commands (`ServiceDefinition.commands`,
 * rows of the command table after the gateway's own) and their settings (with the per-user rate limit's
 * variable), checked before any command runs as the gateway's own settings are.
 */
export const SERVICE_COMMANDS = SERVICES.flatMap((service) => service.commands ?? []).map((command) => ({
  name: command.name,
  usage: command.usage,
  run: (config: Config, args: string[]) => command.run(commandContext(config), args),
}));

/** Throws a ConfigError naming the variable when a service's setting has a wrong value. */
export function checkServiceSettings(config: Config): void {
  for (const service of SERVICES) {
    readSettings(config.variables, service.settings);
    readUserRateLimit(config.variables, service.userRateLimit);
  }
}

function commandContext(config: Config): CommandContext {
  return {
    parse: (args, options) => parse(args, options),
    usageError: (message) => new UsageError(message),
    async withEnvironmentDatabase(environment, work) {
      const setup = await prepareDatabases(config);
      try {
        await migrateAll(setup.urls);
        return await work(setup.urls[environment]);
      } finally {
        await setup.embedded?.stop();
      }
    },
  };
}

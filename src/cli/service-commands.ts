import { type Config, readSettings, readUserRateLimit } from '../config.ts';
import { migrateAll, prepareDatabases } from '../runtime.ts';
import type { CommandContext, ServiceCommand } from '../services/contract.ts';
import { SERVICES } from '../services/registry.ts';
import { parse, UsageError } from './args.ts';

/**
 * What the services bring to `rsg` through the contract: their commands (`ServiceDefinition.commands`,
 * rows of the command table after the gateway's own) and their settings (with the per-user rate limit's
 * variable), checked before any command runs as the gateway's own settings are.
 */
export const SERVICE_COMMANDS = groupedByName(SERVICES.flatMap((service) => service.commands ?? [])).map(
  (commands) => ({
    name: commands[0]!.name,
    usage: commands.map((command) => command.usage).join('\n'),
    run: (config: Config, args: string[]) => {
      const command =
        commands.find((candidate) => candidate.subject !== undefined && candidate.subject === args[0]) ??
        commands.find((candidate) => candidate.subject === undefined);
      if (!command) {
        const subjects = commands.map((candidate) => candidate.subject).join(', ');
        throw new UsageError(`${commands[0]!.name}: name one of ${subjects}`);
      }
      return command.run(commandContext(config), args);
    },
  }),
);

/** Commands of one name together (`import` from every register), in the order first met. */
function groupedByName(commands: readonly ServiceCommand[]): ServiceCommand[][] {
  const groups = new Map<string, ServiceCommand[]>();
  for (const command of commands) {
    const group = groups.get(command.name) ?? [];
    group.push(command);
    groups.set(command.name, group);
  }
  return [...groups.values()];
}

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

import { UsageError } from './cli/args.ts';
import { helpText, runCommand } from './cli/commands.ts';
import { ConfigError } from './config.ts';

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === 'help' || command === '--help' || command === '-h') {
    process.stdout.write(`${helpText()}\n`);
    return command ? 0 : 2;
  }
  return runCommand(command, rest);
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== undefined && code !== 0) process.exitCode = code;
  },
  (error: unknown) => {
    let code = 1;
    if (error instanceof UsageError) {
      process.stderr.write(`rsg: ${error.message}\nRun "rsg help" for usage.\n`);
      code = 2;
    } else if (error instanceof ConfigError) {
      process.stderr.write(`rsg: configuration error: ${error.message}\n`);
    } else {
      process.stderr.write(`rsg: ${(error as Error)?.message ?? String(error)}\n`);
    }
    // Exit explicitly: the embedded server's exit hook would otherwise end the process with status 0.
    process.exit(code);
  },
);

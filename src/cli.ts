import { helpText, runCommand } from './cli/commands.ts';
import { reportFailure } from './cli/run.ts';

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
    // Exit explicitly: the embedded server's exit hook would otherwise end the process with status 0.
    process.exit(reportFailure(error));
  },
);

import { ConfigError } from '../config.ts';
import { UsageError } from './args.ts';

/**
 * How `rsg` reports a command that threw: the message on stderr and the exit status — 2 for a usage
 * error (with a pointer to `rsg help`), 1 for a configuration error or anything else. Shared by the
 * `rsg` entry point (src/cli.ts) and the tests' in-process runner (test/support/cli.ts).
 */
export function reportFailure(
  error: unknown,
  write: (text: string) => void = (t) => process.stderr.write(t),
): number {
  if (error instanceof UsageError) {
    write(`rsg: ${error.message}\nRun "rsg help" for usage.\n`);
    return 2;
  }
  if (error instanceof ConfigError) {
    write(`rsg: configuration error: ${error.message}\n`);
    return 1;
  }
  write(`rsg: ${(error as Error)?.message ?? String(error)}\n`);
  return 1;
}

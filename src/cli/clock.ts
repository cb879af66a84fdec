import type { Config } from '../config.ts';
import { advanceClock, type ClockReading, readClock, setClock } from '../platform/environment-clocks.ts';
import { parse, UsageError, withGateway } from './args.ts';

/** `rsg clock`: the sandbox clock. */

/** One line for a clock reading (`rsg clock`, `rsg sandbox`). */
export const clockLine = (r: ClockReading) =>
  `${r.environment} clock: ${r.now.toISOString()} (${r.mode}${r.mode === 'virtual' ? `, offset ${r.offsetMs} ms${r.frozen ? ', frozen' : ''}` : ''})`;

export async function clockCommand(config: Config, args: string[]): Promise<number> {
  const { positionals } = parse(args, {});
  const [action, argument] = positionals;
  const reading = await withGateway(config, (pool) => {
    if (action === 'show' || action === undefined) return readClock(pool, 'sandbox');
    if (action === 'advance' && argument) return advanceClock(pool, 'sandbox', argument);
    if (action === 'set' && argument) return setClock(pool, 'sandbox', argument);
    throw new UsageError('clock show | clock advance <duration> | clock set <iso-time>');
  });
  process.stdout.write(`${clockLine(reading)}\n`);
  return 0;
}

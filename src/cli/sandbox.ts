import type { Config } from '../config.ts';
import { checkSandbox } from '../runtime.ts';
import type { ServiceId } from '../services/contract.ts';
import { invariantReport, invariantsHold } from '../services/invariants.ts';
import { SERVICES } from '../services/registry.ts';
import { optional, parse, print, UsageError, withMigrated } from './args.ts';

/** `rsg sandbox`: the sandbox as a whole. */
export const SANDBOX_USAGE = `sandbox check [--service S] [--json]   the sandbox registers against the rules their generated data
                                 keeps (each register's README lists them); exit 1 when one is broken`;

export async function sandboxCommand(config: Config, args: string[]): Promise<number> {
  const { values, positionals } = parse(args, { service: { type: 'string' }, json: { type: 'boolean' } });
  const [action] = positionals;
  if (action !== 'check') throw new UsageError(SANDBOX_USAGE);
  const service = optional(values, 'service');
  if (service !== undefined && !SERVICES.some((s) => s.id === service)) {
    throw new UsageError(`--service must be one of ${SERVICES.map((s) => s.id).join(', ')}`);
  }
  const results = await withMigrated(config, (urls) =>
    checkSandbox(urls, service ? [service as ServiceId] : undefined),
  );
  print(results, values.json === true, () => invariantReport(results).trimEnd());
  return invariantsHold(results) ? 0 : 1;
}

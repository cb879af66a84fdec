import type { Config } from '../config.ts';
import { openDatabase } from '../platform/db/pool.ts';
import {
  type Replacement,
  SandboxStateError,
  type SandboxStates,
  type SnapshotSummary,
} from '../platform/sandbox/states.ts';
import { checkSandbox, type DatabaseSetup, openLimitStore, openSandboxStates } from '../runtime.ts';
import type { ServiceId } from '../services/contract.ts';
import { invariantReport, invariantsHold } from '../services/invariants.ts';
import { SERVICES } from '../services/registry.ts';
import { optional, parse, print, UsageError, withMigrated } from './args.ts';
import { clockLine } from './clock.ts';

/**
 * `rsg sandbox`: the sandbox back to its seeded state, and named snapshots of it
 * (platform/sandbox/states.ts). Running gateways and workers on the same databases pause for it on
 * their own (the change feed); none needs to be stopped. And the sandbox registers checked against the
 * rules their generated data keeps (services/invariants.ts).
 */
export const SANDBOX_USAGE = `sandbox reset [--scale small|full] [--reseed]   the sandbox back to its seeded state
                                 (--reseed: make the seeded state again from a fresh seed first)
sandbox snapshot NAME | restore NAME | delete NAME   keep the sandbox as it is now, put it back, forget it
sandbox snapshots [--json]       the kept snapshots
sandbox check [--service S] [--json]   the sandbox registers against the rules their generated data
                                 keeps (each register's README lists them); exit 1 when one is broken`;

/** `rsg sandbox check`: every register's invariants, or one's; exit 1 when one is broken. */
async function check(config: Config, service: string | undefined, json: boolean): Promise<number> {
  if (service !== undefined && !SERVICES.some((s) => s.id === service)) {
    throw new UsageError(`--service must be one of ${SERVICES.map((s) => s.id).join(', ')}`);
  }
  const results = await withMigrated(config, (urls) =>
    checkSandbox(urls, service ? [service as ServiceId] : undefined),
  );
  print(results, json, () => invariantReport(results).trimEnd());
  return invariantsHold(results) ? 0 : 1;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

function replacedLine(what: string, replacement: Replacement): string {
  const seeded = replacement.seeded ? ' (its seeded state was made first, from a fresh seed)' : '';
  return [
    `${what} in ${seconds(replacement.tookMs)}${seeded}; sandbox requests were held ${seconds(replacement.pausedMs)}`,
    clockLine(replacement.clock),
  ].join('\n');
}

const snapshotLine = (snapshot: SnapshotSummary) =>
  `${snapshot.name}  kept ${snapshot.createdAt.toISOString()}  sandbox clock then ${snapshot.clockAt.toISOString()}${snapshot.clockFrozen ? ' (frozen)' : ''}`;

async function run(
  states: SandboxStates,
  config: Config,
  action: string | undefined,
  name: string | undefined,
  values: {
    scale?: string | boolean | undefined;
    reseed?: string | boolean | undefined;
    json?: string | boolean | undefined;
  },
): Promise<number> {
  switch (action) {
    case 'reset': {
      const scale = typeof values.scale === 'string' ? values.scale : config.seedScale;
      const replacement = await states.reset(scale, { reseed: values.reseed === true });
      process.stdout.write(`${replacedLine(`sandbox reset to its seeded state (${scale})`, replacement)}\n`);
      return 0;
    }
    case 'snapshot': {
      const snapshot = await states.snapshot(name!);
      process.stdout.write(`kept the sandbox as "${snapshot.name}"\n${snapshotLine(snapshot)}\n`);
      return 0;
    }
    case 'restore': {
      const replacement = await states.restore(name!);
      process.stdout.write(`${replacedLine(`sandbox restored to "${name}"`, replacement)}\n`);
      return 0;
    }
    case 'delete': {
      if (!(await states.delete(name!))) throw new Error(`there is no snapshot named "${name}"`);
      process.stdout.write(`deleted the snapshot "${name}"\n`);
      return 0;
    }
    default: {
      const snapshots = await states.snapshots();
      print(snapshots, values.json === true, () =>
        snapshots.length ? snapshots.map(snapshotLine).join('\n') : 'no snapshots kept',
      );
      return 0;
    }
  }
}

export async function sandboxCommand(config: Config, args: string[]): Promise<number> {
  const { values, positionals } = parse(args, {
    scale: { type: 'string' },
    reseed: { type: 'boolean' },
    json: { type: 'boolean' },
    service: { type: 'string' },
  });
  const [action, name, ...extra] = positionals;
  if (action === 'check' && name === undefined && extra.length === 0) {
    return check(config, optional(values, 'service'), values.json === true);
  }
  const named = ['snapshot', 'restore', 'delete'].includes(action ?? '');
  if (
    !['reset', 'snapshots', 'snapshot', 'restore', 'delete'].includes(action ?? '') ||
    (named ? name === undefined : name !== undefined) ||
    extra.length > 0
  ) {
    throw new UsageError(
      'sandbox reset [--scale small|full] [--reseed] | sandbox snapshot NAME | sandbox restore NAME | sandbox delete NAME | sandbox snapshots [--json] | sandbox check [--service S] [--json]',
    );
  }
  if (values.scale !== undefined && values.scale !== 'small' && values.scale !== 'full') {
    throw new UsageError('--scale must be small or full');
  }
  return withMigrated(config, async (urls) => {
    const gateway = openDatabase(urls.gateway, 2);
    const limits = await openLimitStore(config, gateway);
    try {
      const states = openSandboxStates(urls, gateway, {
        graceMs: config.sandboxReset.graceMs,
        limits,
        log: (line) => process.stderr.write(`${line}\n`),
      });
      const code = await run(states, config, action, name, values).catch((error: unknown) => {
        if (error instanceof SandboxStateError && error.kind === 'invalid-name') {
          throw new UsageError(error.message.replace(/^name:/, 'NAME'));
        }
        throw error;
      });
      // The old sandbox database, dropped once the sandbox serves again.
      await states.settled();
      return code;
    } finally {
      await limits.close();
      await gateway.close();
    }
  });
}

/**
 * After a seed: the sandbox's seeded state for `rsg sandbox reset`. A sandbox database made by this
 * setup was just seeded and nothing else: it is kept as it is (a copy). Otherwise, with `prepare`, the
 * seeded state is made from a fresh seed when it is missing or out of date; without, it is left for the
 * first reset to make. True when a state was kept or made.
 */
export async function keepSeededState(
  config: Config,
  setup: DatabaseSetup,
  scale: string,
  options: { prepare: boolean },
): Promise<boolean> {
  if (!setup.freshSandbox && !options.prepare) return false;
  const gateway = openDatabase(setup.urls.gateway, 2);
  try {
    const states = openSandboxStates(setup.urls, gateway, {
      graceMs: config.sandboxReset.graceMs,
      log: (line) => process.stderr.write(`${line}\n`),
    });
    return setup.freshSandbox ? await states.keepSeeded(scale) : await states.prepareSeed(scale);
  } finally {
    await gateway.close();
  }
}

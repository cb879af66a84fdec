/**
 * The `rsg` command table: each command's name, its usage lines (`rsg help` is built from them) and its
 * handler. The handlers live by area (setup.ts, users.ts and identity.ts, subscriptions.ts,
 * products.ts, clock.ts, sandbox.ts, start.ts); the services' own commands come from their definitions
 * (service-commands.ts). The argument helpers they share are args.ts, which imports none of them, so the
 * CLI has no import cycle.
 */
import { type Config, loadConfig } from '../config.ts';
import { setPasswordCost } from '../identity/domain/passwords.ts';
import { UsageError } from './args.ts';
import { BILLING_USAGE, billingCommand } from './billing.ts';
import { clockCommand } from './clock.ts';
import { oauthCommand, organisationsCommand } from './identity.ts';
import { INVOICES_USAGE, invoicesCommand } from './invoices.ts';
import { productsCommand } from './products.ts';
import { SANDBOX_USAGE, sandboxCommand } from './sandbox.ts';
import { checkServiceSettings, SERVICE_COMMANDS } from './service-commands.ts';
import { migrateCommand, seedCommand } from './setup.ts';
import { startCommand, workerCommand } from './start.ts';
import { keysCommand, subscriptionsCommand } from './subscriptions.ts';
import { usersCommand } from './users.ts';

export interface Command {
  name: string;
  /** Its lines in `rsg help`, without the two-space indent. */
  usage: string;
  run: (config: Config, args: string[]) => Promise<number>;
}

export const COMMANDS: readonly Command[] = [
  {
    name: 'start',
    usage: `start [--port N] [--host H] [--workers N] [--clock real|virtual] [--scale small|full]
                                 run the gateway (embedded PostgreSQL unless DATABASE_URL is set)`,
    run: (_config, args) => startCommand(args),
  },
  {
    name: 'worker',
    usage: `worker [--once]                  run the background jobs only (watchlist delivery, digests, sandbox
                                 activity) beside running gateways; --once: what is due, then exit`,
    run: (_config, args) => workerCommand(args),
  },
  {
    name: 'migrate',
    usage: 'migrate                          apply pending migrations to every database',
    run: migrateCommand,
  },
  {
    name: 'seed',
    usage: `seed [--scale small|full]        create the operator and sandbox subscriptions if missing, then
                                 generate the sandbox registers`,
    run: seedCommand,
  },
  {
    name: 'sandbox',
    usage: SANDBOX_USAGE,
    run: sandboxCommand,
  },
  {
    name: 'users',
    usage: `users add --email E [--name N] [--operator] | users list [--json]
users set-password --email E --password-file F|-
users grant-authority --email E|--organisation ID --service S --kind K --id X [--environment E]
users revoke-authority --authority ID --service S --kind K --id X [--environment E]
users authorities --service S --kind K --id X [--environment E]
users pending-authorities [--json]   requests for authority waiting for an operator
users decide-authority --authority ID --decision accept|reject [--reason TEXT] [--by EMAIL]`,
    run: usersCommand,
  },
  {
    name: 'organisations',
    usage: `organisations add --identifier ID [--name N] [--environment E]
organisations add-member --identifier ID --email E [--role owner|admin|member] [--environment E]`,
    run: organisationsCommand,
  },
  {
    name: 'oauth',
    usage: `oauth clients create --user EMAIL [--name N] [--environment E] [--grant G,…] [--redirect-uri U,…] [--public] [--json]
oauth rotate-key                 new token signing key (the old one keeps verifying its tokens)`,
    run: oauthCommand,
  },
  {
    name: 'subscriptions',
    usage: `subscriptions create --user EMAIL --product ID [--name N] [--json]
subscriptions list [--user EMAIL] [--json]
subscriptions approve|suspend|resume|cancel --subscription ID
subscriptions usage --subscription ID [--hours N] [--json]
subscriptions scenario --subscription ID [--set SCENARIO | --clear] [--json]
                                       the fault scenario every call of a sandbox subscription meets
                                       (throttled[=S], maintenance[=S], slow=MS, drop, flaky=P, timeout)`,
    run: subscriptionsCommand,
  },
  {
    name: 'keys',
    usage: 'keys regenerate --subscription ID --which primary|secondary [--json]',
    run: keysCommand,
  },
  {
    name: 'products',
    usage: `products list [--json]
products set ID [--rate-limit N] [--quota N --quota-period SECONDS | --no-quota] [--approval required|none]
             [--cors-origins https://a.example,…|*|none] [--cors-methods GET,POST,…|*]
             [--cors-headers H,…|*|none] [--cors-expose-headers H,…|none] [--cors-max-age SECONDS]
             [--cors-credentials true|false]   CORS per product (off until origins are named)`,
    run: productsCommand,
  },
  {
    name: 'billing',
    usage: BILLING_USAGE,
    run: billingCommand,
  },
  {
    name: 'invoices',
    usage: INVOICES_USAGE,
    run: invoicesCommand,
  },
  {
    name: 'clock',
    usage: 'clock show | clock advance <duration> | clock set <iso-time>   (sandbox clock)',
    run: clockCommand,
  },
  {
    name: 'sandbox',
    usage: SANDBOX_USAGE,
    run: sandboxCommand,
  },
  // The services' own commands (e.g. `import bonds`), from their definitions.
  ...SERVICE_COMMANDS,
];

/** `rsg help`. */
export function helpText(): string {
  const lines = COMMANDS.flatMap((command) => command.usage.split('\n')).map((line) => `  ${line}`);
  return `rsg — Register Services Gateway

Usage: rsg <command> [options]

${lines.join('\n')}

Configuration comes from environment variables; see the README.`;
}

export async function runCommand(command: string, args: string[]): Promise<number> {
  const config = loadConfig();
  checkServiceSettings(config);
  setPasswordCost(config.passwordCost);
  const entry = COMMANDS.find((candidate) => candidate.name === command);
  if (!entry) throw new UsageError(`unknown command "${command}"`);
  return entry.run(config, args);
}

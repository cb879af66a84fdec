import { runCommand } from './cli/commands.ts';
import { reportFailure } from './cli/run.ts';

const HELP = `rsg — Register Services Gateway

Usage: rsg <command> [options]

  start [--port N] [--host H] [--workers N] [--clock real|virtual] [--scale small|full]
                                   run the gateway (embedded PostgreSQL unless DATABASE_URL is set)
  worker [--once]                  run the background jobs only (watchlist delivery, digests, sandbox
                                   activity) beside running gateways; --once: what is due, then exit
  migrate                          apply pending migrations to every database
  seed [--scale small|full]        create the operator and sandbox subscriptions if missing, then
                                   generate the sandbox registers
  users add --email E [--name N] [--operator] | users list [--json]
  users set-password --email E --password-file F|-
  users grant-authority --email E|--organisation ID --service S --kind K --id X [--environment E]
  users revoke-authority --authority ID --service S --kind K --id X [--environment E]
  users authorities --service S --kind K --id X [--environment E]
  organisations add --identifier ID [--name N] [--environment E]
  organisations add-member --identifier ID --email E [--role owner|admin|member] [--environment E]
  oauth clients create --user EMAIL [--name N] [--environment E] [--grant G,…] [--redirect-uri U,…] [--public] [--json]
  oauth rotate-key                 new token signing key (the old one keeps verifying its tokens)
  subscriptions create --user EMAIL --product ID [--name N] [--json]
  subscriptions list [--user EMAIL] [--json]
  subscriptions approve|suspend|resume|cancel --subscription ID
  subscriptions usage --subscription ID [--hours N] [--json]
  keys regenerate --subscription ID --which primary|secondary [--json]
  products list [--json]
  products set ID [--rate-limit N] [--quota N --quota-period SECONDS | --no-quota] [--approval required|none]
               [--cors-origins https://a.example,…|*|none] [--cors-methods GET,POST,…|*]
               [--cors-headers H,…|*|none] [--cors-expose-headers H,…|none] [--cors-max-age SECONDS]
               [--cors-credentials true|false]   CORS per product (off until origins are named)
  clock show | clock advance <duration> | clock set <iso-time>   (sandbox clock)
  import bonds FILE.csv [--environment sandbox|production]   rental bonds, all or nothing (default production)

Configuration comes from environment variables; see the README.`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === 'help' || command === '--help' || command === '-h') {
    process.stdout.write(`${HELP}\n`);
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

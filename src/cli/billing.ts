import type { Pool } from 'pg';
import type { AuthorityState } from '../billing/domain/authority.ts';
import { AUTHORITY_STATES } from '../billing/domain/authority.ts';
import {
  approveAuthority,
  cancelAuthority,
  type DirectDebitAuthority,
  declineAuthority,
  findAuthority,
  listAuthorities,
  requestAuthority,
} from '../billing/store/authorities.ts';
import type { Config } from '../config.ts';
import { findOrganisation, organisationIdentifiers } from '../identity/store/organisations.ts';
import { readClock } from '../platform/environment-clocks.ts';
import { ENVIRONMENTS, type Environment } from '../services/contract.ts';
import {
  type Databases,
  optional,
  parse,
  print,
  required,
  UsageError,
  userId,
  withDatabases,
} from './args.ts';
import { CREDIT_USAGE, creditCommand, creditText } from './billing-credit.ts';

/**
 * `rsg billing authorities`: direct debit authorities, per environment (the operator's side);
 * `rsg billing credit`: direct credit accounts (cli/billing-credit.ts).
 */

const USAGE = `billing authorities list [--environment E] [--organisation ID] [--state S] [--json]
billing authorities request --environment E --organisation ID [--account-name N --account-number N] [--email E]
billing authorities approve|decline --authority ID [--note TEXT] [--by EMAIL]
billing authorities cancel --authority ID [--by EMAIL]
${CREDIT_USAGE}`;
export const BILLING_USAGE = USAGE;

function environmentOption(values: Record<string, unknown>, required: boolean): Environment | undefined {
  const value = values.environment;
  if (value === undefined && !required) return undefined;
  if (value !== 'sandbox' && value !== 'production')
    throw new UsageError('--environment must be sandbox or production');
  return value;
}

async function organisationId(gateway: Pool, environment: Environment, identifier: string): Promise<string> {
  const organisation = await findOrganisation(gateway, environment, identifier);
  if (!organisation)
    throw new UsageError(`no ${environment} organisation "${identifier}" (rsg organisations add)`);
  return organisation.id;
}

/** The environment's time: the sandbox's clock may be virtual. */
const environmentNow = async (gateway: Pool, environment: Environment) =>
  (await readClock(gateway, environment)).now;

/** Finds an authority by id in either environment (ids are UUIDs: at most one has it). */
async function locate(
  databases: Databases,
  id: string,
): Promise<{ environment: Environment; authority: DirectDebitAuthority }> {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id))
    throw new UsageError(`--authority must be an authority id, a UUID (got "${id.slice(0, 60)}")`);
  for (const environment of ENVIRONMENTS) {
    const authority = await findAuthority(databases.environments[environment], id);
    if (authority) return { environment, authority };
  }
  throw new UsageError(
    `no direct debit authority ${id} in either environment (rsg billing authorities list)`,
  );
}

type Row = DirectDebitAuthority & { environment: Environment; organisation: string };

const line = (a: Row) =>
  [
    a.id,
    a.environment,
    a.organisation,
    a.state,
    a.accountName ?? '',
    a.accountNumberMasked ?? '',
    `requested ${a.requestedAt.toISOString()}`,
    a.decidedAt ? `decided ${a.decidedAt.toISOString()}` : '',
    a.cancelledAt ? `cancelled ${a.cancelledAt.toISOString()}` : '',
    a.decisionNote ?? '',
  ]
    .filter(Boolean)
    .join('\t');

export async function billingCommand(config: Config, args: string[]): Promise<number> {
  const { values, positionals } = parse(args, {
    environment: { type: 'string' },
    organisation: { type: 'string' },
    state: { type: 'string' },
    authority: { type: 'string' },
    'account-name': { type: 'string' },
    'account-number': { type: 'string' },
    email: { type: 'string' },
    by: { type: 'string' },
    note: { type: 'string' },
    amount: { type: 'string' },
    json: { type: 'boolean' },
  });
  const json = values.json === true;
  const [area, action] = positionals;
  if (area === 'credit') {
    const environment = environmentOption(values, true)!;
    const row = await withDatabases(config, (databases) =>
      creditCommand(databases, action, values, environment),
    );
    print(row, json, () => creditText(row));
    return 0;
  }
  if (area !== 'authorities' || !action) throw new UsageError(USAGE.replaceAll('\n', ' | '));
  const rows = await withDatabases(config, async (databases): Promise<Row[]> => {
    const named = async (environment: Environment, list: DirectDebitAuthority[]) => {
      const names = await organisationIdentifiers(databases.gateway, [
        ...new Set(list.map((a) => a.organisationId)),
      ]);
      return list.map((a) => ({
        ...a,
        environment,
        organisation: names.get(a.organisationId) ?? a.organisationId,
      }));
    };
    const by = async () => {
      const email = optional(values, 'by');
      return email ? await userId(databases.gateway, email) : null;
    };
    switch (action) {
      case 'list': {
        const state = optional(values, 'state');
        if (state !== undefined && !AUTHORITY_STATES.includes(state as AuthorityState))
          throw new UsageError(`--state must be one of ${AUTHORITY_STATES.join(', ')}`);
        const only = environmentOption(values, false);
        const identifier = optional(values, 'organisation');
        const found: Row[] = [];
        for (const environment of only ? [only] : ENVIRONMENTS) {
          const filter = {
            ...(identifier
              ? { organisationId: await organisationId(databases.gateway, environment, identifier) }
              : {}),
            ...(state ? { state: state as AuthorityState } : {}),
          };
          found.push(
            ...(await named(environment, await listAuthorities(databases.environments[environment], filter))),
          );
        }
        return found;
      }
      case 'request': {
        const environment = environmentOption(values, true)!;
        const organisation = await organisationId(
          databases.gateway,
          environment,
          required(values, 'organisation'),
        );
        const email = optional(values, 'email');
        const accountName = optional(values, 'account-name');
        const accountNumber = optional(values, 'account-number');
        const created = await requestAuthority(databases.environments[environment], environment, {
          organisationId: organisation,
          requestedBy: email ? await userId(databases.gateway, email) : null,
          ...(accountName !== undefined ? { accountName } : {}),
          ...(accountNumber !== undefined ? { accountNumber } : {}),
          now: await environmentNow(databases.gateway, environment),
        });
        return named(environment, [created]);
      }
      case 'approve':
      case 'decline':
      case 'cancel': {
        const { environment, authority } = await locate(databases, required(values, 'authority'));
        const decision = {
          by: await by(),
          note: optional(values, 'note') ?? null,
          now: await environmentNow(databases.gateway, environment),
        };
        const pool = databases.environments[environment];
        const move =
          action === 'approve' ? approveAuthority : action === 'decline' ? declineAuthority : cancelAuthority;
        return named(environment, [await move(pool, authority.id, decision)]);
      }
      default:
        throw new UsageError(USAGE.replaceAll('\n', ' | '));
    }
  });
  print(rows, json, () => (rows.length ? rows.map(line).join('\n') : 'no direct debit authorities'));
  return 0;
}

import type { Pool } from 'pg';
import { directCreditOf, parseNzdAmount, topUp } from '../billing/direct-credit.ts';
import { findOrganisation } from '../identity/store/organisations.ts';
import { readClock } from '../platform/environment-clocks.ts';
import { RuleError } from '../platform/errors.ts';
import type { Environment } from '../services/contract.ts';
import { type Databases, type Options, optional, required, UsageError } from './args.ts';

/**
 * `rsg billing credit top-up|show`: an organisation's direct credit account (a prepaid balance the
 * registers that accept direct credit charge their fees to), topped up and read by the operator.
 */
export const CREDIT_USAGE = `billing credit top-up --environment E --organisation ID --amount NZD [--note TEXT] [--by EMAIL]
billing credit show --environment E --organisation ID`;

const dollars = (cents: number) => `NZ$${(cents / 100).toFixed(2)}`;

export interface CreditRow {
  environment: Environment;
  organisation: string;
  balanceCents: number;
  movements: {
    kind: string;
    amountCents: number;
    balanceAfterCents: number;
    madeAt: string;
    note: string | null;
  }[];
}

export async function creditCommand(
  databases: Databases,
  action: string | undefined,
  values: Options,
  environment: Environment,
): Promise<CreditRow> {
  const identifier = required(values, 'organisation');
  const organisation = await findOrganisation(databases.gateway, environment, identifier);
  if (!organisation)
    throw new UsageError(`no ${environment} organisation "${identifier}" (rsg organisations add)`);
  const pool = databases.environments[environment];
  if (action === 'top-up') {
    let amountCents: number;
    try {
      amountCents = parseNzdAmount(required(values, 'amount'));
    } catch (error) {
      if (error instanceof RuleError) throw new UsageError(`--amount ${error.rule}`);
      throw error;
    }
    await topUp(pool, {
      organisationId: organisation.id,
      amountCents,
      note: optional(values, 'note') ?? null,
      madeBy: optional(values, 'by') ?? 'cli',
      at: await environmentNow(databases.gateway, environment),
    });
  } else if (action !== 'show') throw new UsageError(CREDIT_USAGE.replaceAll('\n', ' | '));
  const found = await directCreditOf(pool, organisation.id);
  return {
    environment,
    organisation: identifier,
    balanceCents: found?.account.balanceCents ?? 0,
    movements: (found?.movements ?? []).map((m) => ({
      kind: m.kind,
      amountCents: m.amountCents,
      balanceAfterCents: m.balanceAfterCents,
      madeAt: m.madeAt.toISOString(),
      note: m.note,
    })),
  };
}

const environmentNow = async (gateway: Pool, environment: Environment) =>
  (await readClock(gateway, environment)).now;

/** The text form: the balance, then the movements, newest first. */
export function creditText(row: CreditRow): string {
  const head = `${row.environment}\t${row.organisation}\tdirect credit balance ${dollars(row.balanceCents)}`;
  const lines = row.movements.map((m) =>
    [m.madeAt, m.kind, dollars(m.amountCents), `balance ${dollars(m.balanceAfterCents)}`, m.note ?? '']
      .filter(Boolean)
      .join('\t'),
  );
  return [head, ...lines].join('\n');
}

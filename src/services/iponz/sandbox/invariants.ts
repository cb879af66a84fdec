/**
 * The rules the IP office's generated sandbox keeps (`rsg sandbox check`; listed in the README): a trade
 * mark's type follows what it has, numbers follow filing order, dates in order, renewals paid in the
 * history, persons as inventors and attorney firms as agents. The queries are the store's
 * (store/invariants.ts).
 */
import { nzDate } from '../../../platform/calendar.ts';
import type { SandboxInvariant } from '../../contract.ts';
import { CASE_NUMBER_RANGES } from '../domain/identifiers.ts';
import {
  agentsNotFirms,
  datesOutOfOrder,
  inventorsNotPersons,
  marksTypedAgainstContent,
  numbersAgainstFilingOrder,
  renewalsMissingFromHistory,
} from '../store/invariants.ts';
import { FIXED_CLIENTS, FIXTURE_CASES, fixedCases } from './fixtures.ts';
import { AGENT_FIRM_TITLES } from './generator.ts';

/**
 * The fixed cases filed before the case numbered just below them: their dates count back from today for
 * their purpose (one per status, each older than the last; renewals due now or in grace), whatever their
 * number. The order is the same whatever today is; a reference day finds it. So is each series' first
 * generated case, filed at the far end of the years back, after the fixed cases' numbers.
 */
function fixedCasesOutOfFilingOrder(): Record<string, string> {
  const exceptions: Record<string, string> = {};
  const cases = fixedCases('2026-01-15').sort((a, b) => a.caseNumber - b.caseNumber);
  cases.forEach((c, i) => {
    const previous = cases[i - 1];
    if (previous?.kind === c.kind && c.applicationDate < previous.applicationDate)
      exceptions[String(c.caseNumber)] = `fixed case (${c.purpose}), dated back from today for its purpose`;
  });
  for (const range of Object.values(CASE_NUMBER_RANGES))
    exceptions[String(range.first + FIXTURE_CASES)] =
      'the first generated case, filed at the far end of the years back, numbered after the fixed cases';
  return exceptions;
}

const firmName = `(${AGENT_FIRM_TITLES.join('|')})$`;

/** The rules, by name. */
export const IPONZ_RULES = {
  markType: {
    id: 'mark-type-follows-content',
    description:
      'A trade mark with an image is typed Image or Combined; one without is typed Word, Colour, Shape or Sound; every type has marks',
    check: async ({ database }) => marksTypedAgainstContent(database.pool),
  },
  numbering: {
    id: 'numbers-follow-filing',
    description: 'Within each series (patents, trade marks, designs) a higher number was filed no earlier',
    exceptions: fixedCasesOutOfFilingOrder(),
    check: async ({ database }) => numbersAgainstFilingOrder(database.pool),
  },
  dates: {
    id: 'dates-in-order',
    description:
      'Filing ≤ registration ≤ later statuses and renewals ≤ today, history dated in order, a Granted or Registered status dated on the registration, the status date the last status change’s',
    check: async ({ database, clock }) => datesOutOfOrder(database.pool, nzDate(clock.now().getTime())),
  },
  renewals: {
    id: 'renewals-in-history',
    description:
      'A trade mark renewed (its renewals paid up to its expiry) is registered and shows each of those renewals in its history',
    check: async ({ database }) => renewalsMissingFromHistory(database.pool),
  },
  inventors: {
    id: 'inventors-are-persons',
    description: 'A patent’s inventors are persons',
    check: async ({ database }) => inventorsNotPersons(database.pool),
  },
  agents: {
    id: 'agents-are-firms',
    description: `An agent is a firm of attorneys (an organisation named … ${AGENT_FIRM_TITLES.join(', … ')})`,
    exceptions: {
      [String(FIXED_CLIENTS[2]!.clientId)]:
        'the fixed cases’ agent, Service Line Three Trust, is the client search’s fixed case for a term in an address for service’s third line',
    },
    check: async ({ database }) => agentsNotFirms(database.pool, firmName),
  },
} satisfies Record<string, SandboxInvariant>;

export const IPONZ_INVARIANTS: readonly SandboxInvariant[] = Object.values(IPONZ_RULES);

/**
 * The rules the IP office's generated sandbox keeps (`rsg sandbox check`; listed in the README): a trade
 * mark's type follows what it has, numbers follow filing order, dates in order, renewals paid in the
 * history, persons as inventors and attorney firms as agents. The queries are the store's
 * (store/invariants.ts).
 */
import { nzDate } from '../../../platform/calendar.ts';
import type { SandboxInvariant } from '../../contract.ts';
import {
  agentsNotFirms,
  datesOutOfOrder,
  inventorsNotPersons,
  marksTypedAgainstContent,
  numbersAgainstFilingOrder,
  renewalsMissingFromHistory,
} from '../store/invariants.ts';
import { FIXED_CLIENTS } from './fixtures.ts';
import { AGENT_FIRM_TITLES } from './generator.ts';

const firmName = `(${AGENT_FIRM_TITLES.join('|')})$`;

/** Every rule, whether or not the generator keeps it yet (IPONZ_INVARIANTS: those it keeps). */
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

/**
 * The rules the generator keeps, as the definition registers them. Numbers following filing order is
 * not yet one of them: the generator draws each case's filing date from its own stream, whatever its
 * number.
 */
export const IPONZ_INVARIANTS: readonly SandboxInvariant[] = [
  IPONZ_RULES.markType,
  IPONZ_RULES.dates,
  IPONZ_RULES.renewals,
  IPONZ_RULES.inventors,
  IPONZ_RULES.agents,
];

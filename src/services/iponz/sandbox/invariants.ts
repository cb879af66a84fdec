/**
 * The rules the IP office's generated sandbox keeps (`rsg sandbox check`; listed in the README): a trade
 * mark's type follows what it has, numbers follow filing order, dates in order, renewals paid in the
 * history, every status time has given shown, persons as inventors and attorney firms as agents. The
 * queries are the store's (store/invariants.ts; the daily pass's own for the statuses time gives).
 */
import { addDays, nzDate } from '../../../platform/calendar.ts';
import { nzPlaces, placeProblem } from '../../../platform/geography.ts';
import type { InvariantBreak, SandboxInvariant } from '../../contract.ts';
import { overseasPartiesInBusinessRegister, partiesUnlikeBusinessRegister } from '../../invariants.ts';
import type { ClientAddress } from '../domain/client-search.ts';
import { CASE_NUMBER_RANGES } from '../domain/identifiers.ts';
import { expiryDateOf, nextSlot, termEnd } from '../domain/renewals.ts';
import {
  agentsNotFirms,
  type CaseTerm,
  caseTerms,
  datesOutOfOrder,
  inventorsNotPersons,
  marksTypedAgainstContent,
  numberedClients,
  numbersAgainstFilingOrder,
  type PlacedClient,
  renewalsMissingFromHistory,
  seededClientPlaces,
  seededOrganisationClients,
} from '../store/invariants.ts';
import { casesDue } from '../store/lifecycle.ts';
import { FIXED_CLIENTS, FIXTURE_CASES, FIXTURE_CLIENTS, fixedCases } from './fixtures.ts';
import { AGENT_FIRM_TITLES, clientIdAt, PLANS } from './generator.ts';

/** The seeded clients' ids are below this (fixed and generated, at either scale). */
const SEEDED_CLIENTS_BELOW = clientIdAt(FIXTURE_CLIENTS + PLANS.full.clients);
/** The entity types of overseas companies registered in New Zealand, the only ones abroad it holds. */
const OVERSEAS_COMPANY_TYPES: ReadonlySet<string> = new Set(['ASIC', 'NON_ASIC']);
const isAbroad = (c: PlacedClient) => c.countryCode !== null && c.countryCode !== 'NZ';

/** The fixed clients that are businesses here: each named for its client search case, none in the register. */
const FIXED_BUSINESSES: Readonly<Record<string, string>> = Object.fromEntries(
  FIXED_CLIENTS.filter((c) => c.clientType === 'Organisation').map((c) => [
    String(c.clientId),
    `fixed client (${c.name}): named for its client search case, no business of the register`,
  ]),
);

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

/**
 * A case whose status date disagrees with its expiry (the published ExpiryDate: paid to, or the term's
 * end): one in force (a fee-taking status) dated after it; a trade mark past its expiry date dated
 * otherwise than the day after it; an expired patent or design dated before its term's end.
 */
function statusAgainstExpiry(c: CaseTerm): string | undefined {
  if (c.status === 'Expired' && c.kind !== 'trademark') {
    const end = termEnd(c.kind, c.termDate)!;
    return c.statusDate < end ? `Expired dated ${c.statusDate}, before its term ends ${end}` : undefined;
  }
  if (c.status === 'Registered - past expiry date') {
    const due = nextSlot(c.kind, c.termDate, c.lastRenewalDueDate ?? undefined)?.dueDate;
    return due && c.statusDate !== addDays(due, 1)
      ? `${c.status} dated ${c.statusDate}, its expiry ${due}`
      : undefined;
  }
  const expiry = expiryDateOf({
    kind: c.kind,
    status: c.status,
    filingDate: c.termDate,
    registrationDate: c.registrationDate ?? undefined,
    lastRenewalDueDate: c.lastRenewalDueDate ?? undefined,
    classes: 1,
  });
  return expiry !== null && c.statusDate > expiry
    ? `${c.status} dated ${c.statusDate}, after its expiry ${expiry}`
    : undefined;
}

/**
 * The fixed cases of one status each whose status cannot agree with their term: filed 30 months or more
 * back for their place in the list, an expired patent or design, or a mark past its expiry date, years
 * before the term allows (a reference day finds them; which they are does not depend on the day).
 */
function fixedCasesAgainstExpiry(): Record<string, string> {
  const exceptions: Record<string, string> = {};
  for (const c of fixedCases('2026-01-15'))
    if (statusAgainstExpiry(c) !== undefined)
      exceptions[String(c.caseNumber)] = `fixed case (${c.purpose}), dated back from today for its purpose`;
  return exceptions;
}

async function statusesAgainstExpiry(pool: Parameters<typeof caseTerms>[0]): Promise<InvariantBreak[]> {
  const breaks: InvariantBreak[] = [];
  for (const c of await caseTerms(pool)) {
    const detail = statusAgainstExpiry(c);
    if (detail) breaks.push({ record: String(c.caseNumber), detail });
  }
  return breaks;
}

/** The cases the register's daily pass (jobs/timed-statuses.ts) would move on `today`, read as it reads them. */
async function casesDueToMove(
  pool: Parameters<typeof caseTerms>[0],
  today: string,
): Promise<InvariantBreak[]> {
  const breaks: InvariantBreak[] = [];
  for await (const { caseNumber, renewal, step } of casesDue(pool, today, 5000))
    breaks.push({
      record: String(caseNumber),
      detail: `${renewal.status}, but ${step.status} since ${step.date}`,
    });
  return breaks;
}

/** An address's non-empty lines, the city last: what `placeProblem` reads. */
const addressLines = (a: ClientAddress) =>
  [a.line1, a.line2, a.line3, a.city].filter((line): line is string => line != null && line !== '');

/**
 * The fixed clients whose New Zealand addresses are not real places: they are the client search's test
 * cases (a term in a line, a town, a box), written before the rule and kept as they are documented.
 */
function fixedClientsOffTheMap(): Record<string, string> {
  const places = nzPlaces();
  const exceptions: Record<string, string> = {};
  for (const c of FIXED_CLIENTS)
    for (const a of Object.values(c.addresses)) {
      const problem =
        (a.countryCode ?? 'NZ') === 'NZ'
          ? placeProblem(addressLines(a), a.postcode ?? null, places)
          : undefined;
      if (problem && !exceptions[String(c.clientId)])
        exceptions[String(c.clientId)] =
          `fixed client (${c.name}), a client search test case as documented (${problem})`;
    }
  return exceptions;
}

let offTheMap: Record<string, string> | undefined;

async function clientAddressesOffTheMap(pool: Parameters<typeof caseTerms>[0]): Promise<InvariantBreak[]> {
  const places = nzPlaces();
  const breaks: InvariantBreak[] = [];
  for await (const batch of seededClientPlaces(pool, SEEDED_CLIENTS_BELOW))
    for (const a of batch) {
      const problem = placeProblem(a.lines, a.postcode, places);
      if (problem) breaks.push({ record: a.record, detail: `${a.addressType} address: ${problem}` });
    }
  return breaks;
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
      'Filing ≤ registration ≤ later statuses and renewals (a patent’s maintenance fees before its grant) ≤ today, history dated in order, a Granted or Registered status dated on the registration, the status date the last status change’s',
    check: async ({ database, clock }) => datesOutOfOrder(database.pool, nzDate(clock.now().getTime())),
  },
  renewals: {
    id: 'renewals-in-history',
    description:
      'A case shows in its history each renewal or maintenance fee paid up to its expiry (a patent’s from its filing, a trade mark’s or design’s once registered)',
    check: async ({ database }) => renewalsMissingFromHistory(database.pool),
  },
  expiry: {
    id: 'status-within-expiry',
    exceptions: fixedCasesAgainstExpiry(),
    description:
      'A case in force has its status dated no later than its expiry; a trade mark past its expiry date is so from the day after it; an expired patent or design expired at its term’s end',
    check: async ({ database }) => statusesAgainstExpiry(database.pool),
  },
  timed: {
    id: 'statuses-up-to-date',
    description:
      'No case is due a status by the passing of time: a trade mark unrenewed past its expiry date shows it, a patent or design past its term has expired, a fee unpaid past its grace has lapsed or removed its case (what the daily pass would otherwise change)',
    check: async ({ database, clock }) => casesDueToMove(database.pool, nzDate(clock.now().getTime())),
  },
  businesses: {
    id: 'clients-in-business-register',
    description:
      'A client with a business number is that entity of the business number register, under its name there',
    check: async ({ database, registers }) =>
      partiesUnlikeBusinessRegister(registers, await numberedClients(database.pool)),
  },
  nzBusinesses: {
    id: 'nz-clients-in-business-register',
    description:
      'A seeded organisation client in New Zealand (an attorney firm aside: a partnership, which the register holds only if it opts in) has its business number',
    exceptions: FIXED_BUSINESSES,
    check: async ({ database }) =>
      (await seededOrganisationClients(database.pool, SEEDED_CLIENTS_BELOW, firmName))
        .filter((c) => !isAbroad(c) && c.nzbn === null)
        .map((c) => ({ record: c.record, detail: `${c.name}, in New Zealand, without a business number` })),
  },
  overseas: {
    id: 'overseas-clients-not-in-business-register',
    description:
      'A seeded client abroad is no entity of the business number register, by number or by name, unless it is an overseas company registered here (ASIC or non-ASIC)',
    check: async ({ database, registers }) =>
      overseasPartiesInBusinessRegister(
        registers,
        (await seededOrganisationClients(database.pool, SEEDED_CLIENTS_BELOW, firmName)).filter(isAbroad),
        OVERSEAS_COMPANY_TYPES,
      ),
  },
  addresses: {
    id: 'addresses-real',
    description:
      'Every New Zealand address of a seeded client names a suburb of its town and that suburb’s postcode (without a suburb line, one of the town’s), on the 2019 statistical geography',
    // Read at the check, not when the register's definition loads: the geography is read only then.
    get exceptions() {
      offTheMap ??= fixedClientsOffTheMap();
      return offTheMap;
    },
    check: async ({ database }) => clientAddressesOffTheMap(database.pool),
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

/**
 * The rules the secured interests register's generated sandbox keeps (`rsg sandbox check`; listed in the
 * README): a statement's history in order, from its registration to its discharge; its expiry after its
 * registration and no more than five years after its last registration or renewal; its debtor
 * companies and secured parties businesses of the business number register. The queries are the
 * store's (store/invariants.ts).
 */
import type { SandboxInvariant } from '../../contract.ts';
import { namedPartiesNotInBusinessRegister, partiesUnlikeBusinessRegister } from '../../invariants.ts';
import {
  expiriesOutOfRange,
  historyOutOfOrder,
  numberedDebtors,
  type RuleBreak,
  seededSecuredParties,
  statementsDisagreeingWithHistory,
} from '../store/invariants.ts';
import { fixtureStatements } from './fixtures.ts';

/** The fixed statements keep the secured party the guide and the examples show, a made-up lender. */
const FIXED_LENDER: Readonly<Record<string, string>> = Object.fromEntries(
  fixtureStatements(Date.parse('2026-01-15T00:00:00Z'), undefined).map((s) => [
    s.registrationNumber,
    'fixed test case: its secured party, Sandbox Finance Limited, is the made-up lender its documentation and examples show',
  ]),
);

const breaks = (found: RuleBreak[]) => found.map((b) => ({ record: b.registrationNumber, detail: b.detail }));

export const PPSR_INVARIANTS: readonly SandboxInvariant[] = [
  {
    id: 'history-in-order',
    description:
      'A statement’s first version is its registration, its versions are numbered from 1 without gaps and dated in order, and nothing follows a discharge',
    check: async ({ database }) => breaks(await historyOutOfOrder(database.pool)),
  },
  {
    id: 'statement-agrees-with-history',
    description:
      'A statement’s registration date, version, discharge date and expiry are those of its first and last versions',
    check: async ({ database }) => breaks(await statementsDisagreeingWithHistory(database.pool)),
  },
  {
    id: 'expiry-within-five-years',
    description:
      'A statement expires after it was registered, and at most five years after its registration or its latest renewal',
    check: async ({ database }) => breaks(await expiriesOutOfRange(database.pool)),
  },
  {
    id: 'debtors-in-business-register',
    description:
      'A debtor organisation with a business number is that entity of the business number register, under its name there',
    check: async ({ database, registers }) =>
      partiesUnlikeBusinessRegister(registers, await numberedDebtors(database.pool)),
  },
  {
    id: 'secured-parties-in-business-register',
    description:
      'A generated statement’s secured party is a company of the business number register, under a name it has or had there',
    exceptions: FIXED_LENDER,
    check: async ({ database, registers }) =>
      namedPartiesNotInBusinessRegister(registers, await seededSecuredParties(database.pool)),
  },
];

/**
 * The rules the secured interests register's generated sandbox keeps (`rsg sandbox check`; listed in the
 * README): a statement's history in order, from its registration to its discharge; its expiry after its
 * registration and no more than five years after its last registration or renewal. The queries are the
 * store's (store/invariants.ts).
 */
import type { SandboxInvariant } from '../../contract.ts';
import { partiesUnlikeBusinessRegister } from '../../invariants.ts';
import {
  expiriesOutOfRange,
  historyOutOfOrder,
  numberedDebtors,
  type RuleBreak,
  statementsDisagreeingWithHistory,
} from '../store/invariants.ts';

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
];

/**
 * The rules the offers register's generated sandbox keeps (`rsg sandbox check`; listed in the README):
 * a fund's assets and returns are those of its type, its actual allocation near its targets, its
 * holdings of its classes, named and listed as they are, worth its size; an offer named for what it
 * offers; versions dated in order; compliance filed on time but for a few. The queries are the store's (store/invariants.ts); the
 * activities are the domain's, as `GET /activities` works them out.
 */
import { nzDate } from '../../../platform/calendar.ts';
import type { InvariantContext, SandboxInvariant } from '../../contract.ts';
import { partiesUnlikeBusinessRegister } from '../../invariants.ts';
import { activitiesOfFund, periodEnds } from '../domain/activities.ts';
import { complianceFunds } from '../store/compliance.ts';
import {
  allocationsOffTarget,
  allocationsUnlikeType,
  fundNumbers,
  holdingsNotFundSize,
  holdingsOutsideAllocation,
  holdingsUnlikeThemselves,
  numberedParties,
  offersMisnamed,
  returnsUnlikeType,
  tooManyKiwiSaver,
  versionsOutOfOrder,
} from '../store/invariants.ts';
import { FIXTURES } from './fixtures.ts';
import { KIWISAVER_SHARE, OFFER_NAMES } from './generator.ts';
import { FUND_MIXES } from './generator-funds.ts';

/** What a fund of a type must mostly hold: cash funds cash and near-cash, property funds property… */
const TYPE_HOLDS = {
  Cash: { classes: ['CASH_AND_CASH_EQUIVALENTS', 'NEW_ZEALAND_FIXED_INTEREST'], minimum: 90 },
  Property: { classes: ['LISTED_PROPERTY', 'UNLISTED_PROPERTY'], minimum: 60 },
  'NZ Bond': { classes: ['NEW_ZEALAND_FIXED_INTEREST', 'CASH_AND_CASH_EQUIVALENTS'], minimum: 90 },
  'Global Equity': { classes: ['INTERNATIONAL_EQUITIES'], minimum: 80 },
};
/** How far an actual allocation may stray from its target, in points. */
const OFF_TARGET = 5;
/** How far a holdings filing's total may be from the fund's size, as a fraction of it. */
const SIZE_TOLERANCE = 0.001;
/** The share of generated funds that may have an overdue activity. */
const OVERDUE_SHARE = 0.1;

/** The fixed test cases that leave periods unfiled on purpose (fixtures.ts, the README's table). */
const LAST_UNFILED = 'FND10001';
const NEVER_FILED_FPH = 'FND10014';
const NEVER_FILED_WHY = 'a fixed test case: a fund that has never filed its full portfolio holdings';

/**
 * Each fund's unfiled activities whose period has ended on the sandbox clock (Upcoming or Overdue), and
 * those of them before the last ended period of their kind.
 */
async function unfiled(context: InvariantContext) {
  const today = nzDate(context.clock.now().getTime());
  const funds = await complianceFunds(context.database.pool, await fundNumbers(context.database.pool));
  return {
    funds: funds.length,
    unfiled: funds.flatMap((fund) => {
      const kinds = fund.fphRequired
        ? (['FUND_UPDATE', 'FULL_PORTFOLIO_HOLDINGS'] as const)
        : (['FUND_UPDATE'] as const);
      const missing = activitiesOfFund(kinds, fund.registeredOn, today, fund.filings).filter(
        (a) => a.status !== 'Filed' && a.periodEndDate < today,
      );
      if (missing.length === 0) return [];
      const older = missing.filter(
        (a) =>
          a.periodEndDate !==
          periodEnds(a.kind, fund.registeredOn, today)
            .filter((end) => end < today)
            .at(-1),
      );
      return [{ fund: fund.fundNumber, missing, older }];
    }),
  };
}

const describe = (missing: { kind: string; periodEndDate: string; status: string }[]) =>
  missing.map((a) => `${a.kind} for ${a.periodEndDate} (${a.status})`).join('; ');

export const DISCLOSE_INVARIANTS: readonly SandboxInvariant[] = [
  {
    id: 'assets-match-fund-type',
    description:
      'A cash fund holds at least 90% cash and New Zealand fixed interest, a bond fund 90% fixed interest and cash, a property fund 60% property, a global equity fund 80% international equities',
    check: async ({ database }) => allocationsUnlikeType(database.pool, TYPE_HOLDS),
  },
  {
    id: 'returns-match-fund-type',
    description:
      'A fund’s one-year return is within its type’s range (a cash fund’s 2% to 6%, an aggressive fund’s −8% to 20%…)',
    check: async ({ database }) =>
      returnsUnlikeType(
        database.pool,
        Object.fromEntries(Object.entries(FUND_MIXES).map(([type, mix]) => [type, mix.oneYear])),
      ),
  },
  {
    id: 'allocation-near-target',
    description: `A fund’s actual allocation is within ${OFF_TARGET} points of each target, and not equal to every target`,
    check: async ({ database }) => allocationsOffTarget(database.pool, OFF_TARGET),
  },
  {
    id: 'holdings-in-allocation',
    description: 'A fund’s holdings are of the asset classes its allocation names',
    check: async ({ database }) => holdingsOutsideAllocation(database.pool),
  },
  {
    id: 'holdings-named-and-listed',
    description:
      'A holding named a bond or note is fixed interest, one named a property is property, and its ISIN’s country is its currency’s (NZ with NZD…)',
    check: async ({ database }) => holdingsUnlikeThemselves(database.pool),
  },
  {
    id: 'holdings-worth-fund-size',
    description:
      'A holdings filing’s values add up to the fund’s size as its fund update for the same period reports it',
    check: async ({ database }) => holdingsNotFundSize(database.pool, SIZE_TOLERANCE),
  },
  {
    id: 'offer-named-for-product',
    description:
      'An offer outside a scheme is named for its product type: a bond offer debt securities, a share offer equity securities',
    check: async ({ database }) => offersMisnamed(database.pool, OFFER_NAMES),
  },
  {
    id: 'few-kiwisaver-schemes',
    description: `At most ${KIWISAVER_SHARE * 100}% of the generated schemes (one at least) are KiwiSaver schemes; the fixed test cases, KiwiSaver schemes all, aside`,
    check: async ({ database }) => tooManyKiwiSaver(database.pool, FIXTURES.length, KIWISAVER_SHARE),
  },
  {
    id: 'versions-dated-in-order',
    description:
      'A scheme’s, an offer’s and a fund’s versions are dated in the order of their numbers: no version is dated before the one it follows',
    check: async ({ database }) => versionsOutOfOrder(database.pool),
  },
  {
    id: 'only-last-period-unfiled',
    description:
      'A fund has filed every ended compliance period but its last of each kind (a late filing is filed)',
    exceptions: { [NEVER_FILED_FPH]: NEVER_FILED_WHY },
    check: async (context) =>
      (await unfiled(context)).unfiled
        .filter((f) => f.older.length > 0)
        .map((f) => ({ record: f.fund, detail: describe(f.older) })),
  },
  {
    id: 'few-overdue',
    description: `At most ${OVERDUE_SHARE * 100}% of funds have an overdue compliance activity (when broken, each of them is reported); the fixed test cases that leave ended periods unfiled break it on purpose`,
    exceptions: {
      [LAST_UNFILED]:
        'a fixed test case: its last ended fund update and FPH periods are unfiled (Upcoming or Overdue)',
      [NEVER_FILED_FPH]: NEVER_FILED_WHY,
    },
    check: async (context) => {
      const { funds, unfiled: missing } = await unfiled(context);
      const fixed = missing.filter((f) => f.fund === LAST_UNFILED || f.fund === NEVER_FILED_FPH);
      const overdue = missing.filter(
        (f) => !fixed.includes(f) && f.missing.some((a) => a.status === 'Overdue'),
      );
      const over = overdue.length > Math.floor((funds - fixed.length) * OVERDUE_SHARE);
      return [...fixed, ...(over ? overdue : [])].map((f) => ({
        record: f.fund,
        detail: `${describe(f.missing)}${over ? ` (${overdue.length} of ${funds} funds)` : ''}`,
      }));
    },
  },
  {
    id: 'businesses-in-business-register',
    description:
      'A scheme’s manager and supervisor, an offer’s issuer and every other organisation named on them by business number (custodians, auditors, offerors) are that entity of the business number register, under a name it has or had there',
    check: async ({ database, registers }) =>
      partiesUnlikeBusinessRegister(registers, await numberedParties(database.pool)),
  },
];

/**
 * The sandbox register's funds: each with its figures, the compliance periods it has filed (a few late,
 * the last ended period of some left unfiled) as fund versions, and the holdings of its last FPH filing.
 * Deterministic for the random source each fund is given (generator.ts forks one per fund).
 */
import { addDays, addMonths, nzDate } from '../../../platform/calendar.ts';
import { type Random, seeded } from '../../../platform/random.ts';
import { type ActivityKind, dueDateOf, periodEnds } from '../domain/activities.ts';
import type { AssetType } from '../domain/holdings.ts';
import { withIsinCheckDigit } from '../domain/isin.ts';
import type { FixtureShape, GeneratedFund, GeneratedVersion } from './generator.ts';

/** What the making of a fund needs of the register's making: the clock and the fund numbers. */
export interface FundMaking {
  readonly now: Date;
  /** `now` as a New Zealand date. */
  readonly today: string;
  /** The next fund number (`FND10001`, …), in the order funds are made. */
  nextFund(): string;
}

export const FUND_KINDS = [
  'Conservative',
  'Balanced',
  'Growth',
  'Aggressive',
  'Cash',
  'Global Equity',
  'NZ Bond',
  'Property',
];

/**
 * What each fund kind holds (target weights of the asset classes, in percent) and the range of its
 * one-year return: a cash fund holds cash and near-cash and returns little, a property fund holds
 * property, an aggressive fund mostly shares. The sandbox's invariants (invariants.ts) check the same.
 */
export const FUND_MIXES: Readonly<
  Record<
    string,
    { targets: Readonly<Partial<Record<AssetType, number>>>; oneYear: readonly [number, number] }
  >
> = {
  Conservative: {
    targets: {
      CASH_AND_CASH_EQUIVALENTS: 10,
      NEW_ZEALAND_FIXED_INTEREST: 35,
      INTERNATIONAL_FIXED_INTEREST: 30,
      AUSTRALASIAN_EQUITIES: 10,
      INTERNATIONAL_EQUITIES: 15,
    },
    oneYear: [-1, 8],
  },
  Balanced: {
    targets: {
      CASH_AND_CASH_EQUIVALENTS: 5,
      NEW_ZEALAND_FIXED_INTEREST: 20,
      INTERNATIONAL_FIXED_INTEREST: 20,
      AUSTRALASIAN_EQUITIES: 20,
      INTERNATIONAL_EQUITIES: 30,
      LISTED_PROPERTY: 5,
    },
    oneYear: [-3, 12],
  },
  Growth: {
    targets: {
      CASH_AND_CASH_EQUIVALENTS: 3,
      NEW_ZEALAND_FIXED_INTEREST: 10,
      INTERNATIONAL_FIXED_INTEREST: 12,
      AUSTRALASIAN_EQUITIES: 25,
      INTERNATIONAL_EQUITIES: 45,
      LISTED_PROPERTY: 5,
    },
    oneYear: [-5, 16],
  },
  Aggressive: {
    targets: {
      CASH_AND_CASH_EQUIVALENTS: 2,
      NEW_ZEALAND_FIXED_INTEREST: 3,
      INTERNATIONAL_FIXED_INTEREST: 5,
      AUSTRALASIAN_EQUITIES: 30,
      INTERNATIONAL_EQUITIES: 55,
      LISTED_PROPERTY: 5,
    },
    oneYear: [-8, 20],
  },
  Cash: {
    targets: { CASH_AND_CASH_EQUIVALENTS: 85, NEW_ZEALAND_FIXED_INTEREST: 15 },
    oneYear: [2, 6],
  },
  'Global Equity': {
    targets: { CASH_AND_CASH_EQUIVALENTS: 3, INTERNATIONAL_EQUITIES: 97 },
    oneYear: [-8, 22],
  },
  'NZ Bond': {
    targets: { CASH_AND_CASH_EQUIVALENTS: 5, NEW_ZEALAND_FIXED_INTEREST: 95 },
    oneYear: [-2, 8],
  },
  Property: {
    targets: { CASH_AND_CASH_EQUIVALENTS: 5, LISTED_PROPERTY: 70, UNLISTED_PROPERTY: 25 },
    oneYear: [-6, 12],
  },
};

const round = (n: number, places: number) => Math.round(n * 10 ** places) / 10 ** places;
const HOUR_MS = 3_600_000;

/** Weights that sum to 100 at `places` decimals, the rounding's remainder on the largest. */
function toHundred(weights: number[], places: number): number[] {
  const total = weights.reduce((a, b) => a + b, 0);
  const shares = weights.map((w) => round((w / total) * 100, places));
  const largest = shares.indexOf(Math.max(...shares));
  shares[largest] = round(shares[largest]! + 100 - shares.reduce((a, b) => a + b, 0), places);
  return shares;
}

/** Where a holding of an asset class is listed (its ISIN's country and its currency), and its name. */
const HOLDING_KINDS: Readonly<Record<AssetType, { countries: readonly string[]; names: readonly string[] }>> =
  {
    CASH_AND_CASH_EQUIVALENTS: { countries: [], names: ['Call account', 'Term deposit'] },
    NEW_ZEALAND_FIXED_INTEREST: {
      countries: ['NZ'],
      names: ['Local Government Bond 2031', 'Kauri Senior Bond 2029'],
    },
    INTERNATIONAL_FIXED_INTEREST: {
      countries: ['AU', 'US', 'GB'],
      names: ['Treasury Bond 2033', 'Corporate Note 2030'],
    },
    AUSTRALASIAN_EQUITIES: { countries: ['NZ', 'AU'], names: ['Southern Energy', 'Harbour Industries'] },
    INTERNATIONAL_EQUITIES: { countries: ['US', 'GB'], names: ['Pacific Holdings', 'Summit Industries'] },
    LISTED_PROPERTY: { countries: ['NZ', 'AU'], names: ['Property Trust', 'Industrial Property'] },
    UNLISTED_PROPERTY: { countries: [], names: ['Office Building', 'Retail Centre'] },
    COMMODITIES: { countries: ['US'], names: ['Gold Trust'] },
    OTHER: { countries: ['US'], names: ['Currency Forward'] },
  };
const CURRENCIES: Readonly<Record<string, string>> = { NZ: 'NZD', AU: 'AUD', US: 'USD', GB: 'GBP' };

/**
 * A fund's full portfolio holdings worth `fundSize`: `lines` lines of the classes its kind holds (drawn
 * by their weights), whose percentages sum to 100; each named for its class, its ISIN from the country
 * it is listed in (none for cash and unlisted property), in that country's currency.
 */
function holdingsFor(
  random: Random,
  kind: string,
  fundSize: number,
  lines: number,
): GeneratedFund['holdings'] {
  const mix = Object.entries(FUND_MIXES[kind]!.targets) as [AssetType, number][];
  const percentages = toHundred(
    Array.from({ length: lines }, () => 0.2 + random.next()),
    4,
  );
  return percentages.map((percentageOfFund, i) => {
    const assetType = random.weighted(mix);
    const { countries, names } = HOLDING_KINDS[assetType];
    const country = countries.length > 0 ? random.pick(countries) : null;
    return {
      assetName: `${random.pick(names)} ${i + 1}`,
      assetType,
      isin: country
        ? withIsinCheckDigit(`${country}${String(random.int(0, 999_999_999)).padStart(9, '0')}`)
        : null,
      value: round((fundSize * percentageOfFund) / 100, 2),
      percentageOfFund,
      currency: country ? CURRENCIES[country]! : 'NZD',
    };
  });
}

/**
 * A fund's document: its unit price, returns in its kind's range, fees, and its asset allocation: its
 * kind's targets, each actual near its target (within a few points) and not all equal to it.
 */
function fundDocument(
  random: Random,
  fundNumber: string,
  name: string,
  fundType: string,
): Record<string, unknown> {
  const { targets, oneYear } = FUND_MIXES[fundType]!;
  const classes = Object.entries(targets) as [AssetType, number][];
  // The classes in pairs, each pair's actuals moved apart by up to 2 points (a class at most half its
  // target): they still sum to 100, each near its target, and the first pair off it.
  const actual = classes.map(([, target]) => target);
  for (let i = 0; i + 1 < classes.length; i += 2) {
    const most = Math.min(2, actual[i]! / 2, actual[i + 1]! / 2);
    const move = round((0.1 + random.next() * (most - 0.1)) * (random.chance(0.5) ? 1 : -1), 2);
    actual[i] = round(actual[i]! + move, 2);
    actual[i + 1] = round(actual[i + 1]! - move, 2);
  }
  const [low, high] = oneYear;
  return {
    fundNumber,
    name,
    fundType,
    unitPrice: { price: round(0.8 + random.next() * 2, 4), currency: 'NZD' },
    returns: [
      { period: '1y', percentage: round(low + random.next() * (high - low), 2) },
      { period: '5y', percentage: round(low / 2 + random.next() * (high - low) * 0.6, 2) },
    ],
    fees: [{ feeType: 'TOTAL_ANNUAL', percentage: round(0.2 + random.next() * 1.2, 2) }],
    assetAllocation: classes.map(([assetType, target], i) => ({
      assetType,
      actualPercentage: actual[i],
      targetPercentage: target,
    })),
  };
}

/**
 * The optional figures of a fund update (fund size, investors, risk indicator), drawn from a source of
 * their own keyed by the fund and period: the rest of the register draws as it did before they existed.
 */
function reportedFigures(
  fundNumber: string,
  periodEnd: string,
): { fundSize: number; numberOfInvestors: number; riskIndicator: number } {
  const random = seeded('fund-figures', fundNumber, periodEnd);
  return {
    fundSize: Math.round((1 + random.next() * 999) * 1_000_000 * 100) / 100,
    numberOfInvestors: random.int(50, 250_000),
    riskIndicator: random.int(1, 7),
  };
}

/** A fund to make: its offer, its place among the offer's funds, and a fixture's filings. */
export interface FundPlan {
  offerName: string;
  fphRequired: boolean;
  registered: Date;
  offerVersions: GeneratedVersion[];
  fphFiled: FixtureShape['fphFiled'];
  /** Its place among the offer's funds. */
  index: number;
  /** The fund kind the offer's first fund takes. */
  firstKind: number;
}

interface FilingEvent {
  kind: ActivityKind;
  periodEnd: string;
  due: string;
}

/**
 * The periods a fund has filed, in the order they fell due: the ended periods of each kind the register
 * shows since its registration, less those a fixture leaves unfiled and, for generated funds, the last
 * ended period of a few.
 */
function filingEvents(
  g: FundMaking,
  random: Random,
  kinds: ActivityKind[],
  registeredOn: string,
  fphFiled: FixtureShape['fphFiled'],
): FilingEvent[] {
  const events: FilingEvent[] = [];
  for (const kind of kinds) {
    // Every period the register shows (`activitiesOfFund`: the last 24 months) is filed.
    const floor = addMonths(g.today, -24);
    const ends = periodEnds(kind, registeredOn > floor ? registeredOn : floor, addDays(g.today, -1));
    ends.forEach((periodEnd, i) => {
      const due = dueDateOf(kind, periodEnd);
      const last = i === ends.length - 1;
      if (kind === 'FULL_PORTFOLIO_HOLDINGS' && fphFiled === 'none') return;
      if (fphFiled === 'all-but-last' && last) return;
      // Generated funds: every period filed but the last ended one of a few (it is Upcoming or Overdue).
      if (!fphFiled && last && random.chance(0.03)) return;
      events.push({ kind, periodEnd, due });
    });
  }
  events.sort((a, b) => a.due.localeCompare(b.due) || a.kind.localeCompare(b.kind));
  return events;
}

/**
 * The filings of a fund's periods, each on a drawn day (a few late) before now and not before the
 * filing before it, each a new fund version after `versions` (a fund update with new figures; full portfolio holdings with the period's holdings).
 * Returns the filings and the period of the last holdings filed.
 */
function fileEvents(
  g: FundMaking,
  random: Random,
  fund: { number: string; name: string; fundType: string },
  events: FilingEvent[],
  versions: GeneratedFund['versions'],
  offerVersionAt: (at: Date) => number,
): { filings: GeneratedFund['filings']; holdingsPeriodEnd: string | null } {
  const filings: GeneratedFund['filings'] = [];
  let document = versions.at(-1)!.document;
  let holdingsPeriodEnd: string | null = null;
  for (const event of events) {
    const lateDays = random.chance(0.15) ? random.int(1, 20) : -random.int(1, 15);
    let filedOn = addDays(event.due, lateDays);
    if (filedOn >= g.today) filedOn = addDays(g.today, -1);
    if (filedOn <= event.periodEnd) filedOn = addDays(event.periodEnd, 1);
    // Filings are versions in the order they were made: one is never dated before the last (a late
    // filing holds back the early one that follows it), and one of the same day is an hour later.
    const last = versions.at(-1)!.at;
    if (filedOn < nzDate(last.getTime())) filedOn = nzDate(last.getTime());
    const filedAt = new Date(Math.max(Date.parse(`${filedOn}T03:00:00Z`), last.getTime() + HOUR_MS));
    if (filedAt >= g.now) continue;
    const fph = event.kind === 'FULL_PORTFOLIO_HOLDINGS';
    if (!fph) {
      document = {
        ...fundDocument(random, fund.number, fund.name, fund.fundType),
        ...reportedFigures(fund.number, event.periodEnd),
      };
    } else holdingsPeriodEnd = event.periodEnd;
    versions.push({
      version: versions.length + 1,
      at: filedAt,
      change: fph ? 'Full portfolio holdings filed' : 'Fund update filed',
      document,
      offerVersion: offerVersionAt(filedAt),
      holdingsPeriodEnd,
    });
    filings.push({
      kind: event.kind,
      periodEnd: event.periodEnd,
      dueDate: event.due,
      filedAt,
      late: filedOn > event.due,
    });
  }
  return { filings, holdingsPeriodEnd };
}

export function makeFund(g: FundMaking, random: Random, plan: FundPlan): GeneratedFund {
  const number = g.nextFund();
  // The offer's funds take the kinds in turn from a drawn start: no two alike until all are used.
  const kind = FUND_KINDS[(plan.firstKind + plan.index) % FUND_KINDS.length]!;
  const round = Math.floor(plan.index / FUND_KINDS.length);
  const name = `${plan.offerName.replace(/ (Scheme|Offer)$/, '')} ${kind}${round > 0 ? ` ${round + 1}` : ''} Fund`;
  const registeredOn = nzDate(plan.registered.getTime());
  const offerVersionAt = (at: Date) => plan.offerVersions.filter((v) => v.at <= at).at(-1)?.version ?? 1;
  const versions: GeneratedFund['versions'] = [
    {
      version: 1,
      at: plan.registered,
      change: 'Fund registered',
      document: fundDocument(random, number, name, kind),
      offerVersion: offerVersionAt(plan.registered),
      holdingsPeriodEnd: null,
    },
  ];
  const kinds: ActivityKind[] = plan.fphRequired
    ? ['FUND_UPDATE', 'FULL_PORTFOLIO_HOLDINGS']
    : ['FUND_UPDATE'];
  const events = filingEvents(g, random, kinds, registeredOn, plan.fphFiled);
  const { filings, holdingsPeriodEnd } = fileEvents(
    g,
    random,
    { number, name, fundType: kind },
    events,
    versions,
    offerVersionAt,
  );
  // The holdings are worth the fund's size as its fund update for the same period reports it.
  const holdings = holdingsPeriodEnd
    ? holdingsFor(random, kind, reportedFigures(number, holdingsPeriodEnd).fundSize, random.int(12, 40))
    : [];
  return {
    fundNumber: number,
    name,
    fundType: kind,
    registeredOn,
    fphRequired: plan.fphRequired,
    versions,
    holdings,
    filings,
  };
}

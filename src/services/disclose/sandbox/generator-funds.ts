/**
 * The sandbox register's funds: each with its figures, the compliance periods it has filed (a few late,
 * the last ended period of some left unfiled) as fund versions, and the holdings of its last FPH filing.
 * Deterministic for the random source each fund is given (generator.ts forks one per fund).
 */
import { addDays, nzDate } from '../../../platform/calendar.ts';
import { type Random, seeded } from '../../../platform/random.ts';
import { type ActivityKind, dueDateOf, periodEnds } from '../domain/activities.ts';
import { ASSET_TYPES } from '../domain/holdings.ts';
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

/** A fund's full portfolio holdings: `lines` lines whose percentages sum to 100. */
function holdingsFor(random: Random, lines: number): GeneratedFund['holdings'] {
  const weights = Array.from({ length: lines }, () => 0.2 + random.next());
  const total = weights.reduce((a, b) => a + b, 0);
  const percentages = weights.map((w) => Math.round((w / total) * 100 * 10_000) / 10_000);
  const drift = Math.round((100 - percentages.reduce((a, b) => a + b, 0)) * 10_000) / 10_000;
  percentages[0] = Math.round((percentages[0]! + drift) * 10_000) / 10_000;
  return percentages.map((percentageOfFund, i) => {
    const assetType = ASSET_TYPES[random.int(0, ASSET_TYPES.length - 2)]!;
    const cash = assetType === 'CASH_AND_CASH_EQUIVALENTS';
    const country = random.pick(['NZ', 'AU', 'US', 'GB']);
    return {
      assetName: cash
        ? `Call account ${i + 1}`
        : `${random.pick(['Pacific', 'Southern', 'Harbour', 'Summit', 'Kauri'])} ${random.pick(['Holdings', 'Energy', 'Bond 2031', 'Property Trust', 'Industries'])} ${i + 1}`,
      assetType,
      isin: cash
        ? null
        : withIsinCheckDigit(`${country}${String(random.int(0, 999_999_999)).padStart(9, '0')}`),
      value: Math.round(percentageOfFund * 1_000_000) / 100,
      percentageOfFund,
      currency: country === 'NZ' ? 'NZD' : country === 'AU' ? 'AUD' : country === 'US' ? 'USD' : 'GBP',
    };
  });
}

/** A fund's document: its unit price, returns, fees and asset allocation, drawn. */
function fundDocument(
  random: Random,
  fundNumber: string,
  name: string,
  fundType: string,
): Record<string, unknown> {
  const allocation = ASSET_TYPES.slice(0, 5).map((assetType) => ({ assetType, weight: random.next() + 0.1 }));
  const total = allocation.reduce((a, b) => a + b.weight, 0);
  const actual = allocation.map((a) => Math.round((a.weight / total) * 10_000) / 100);
  actual[0] = Math.round((actual[0]! + 100 - actual.reduce((a, b) => a + b, 0)) * 100) / 100;
  return {
    fundNumber,
    name,
    fundType,
    unitPrice: { price: Math.round((0.8 + random.next() * 2) * 10_000) / 10_000, currency: 'NZD' },
    returns: [
      { period: '1y', percentage: Math.round((random.next() * 20 - 4) * 100) / 100 },
      { period: '5y', percentage: Math.round(random.next() * 10 * 100) / 100 },
    ],
    fees: [{ feeType: 'TOTAL_ANNUAL', percentage: Math.round((0.2 + random.next() * 1.2) * 100) / 100 }],
    assetAllocation: allocation.map((a, i) => ({
      assetType: a.assetType,
      actualPercentage: actual[i],
      targetPercentage: actual[i],
    })),
  };
}

/**
 * The optional figures of a fund update (fund size, investors, risk indicator), drawn from a source of
 * their own keyed by the fund and period: the rest of the register draws as it did before they existed.
 */
function reportedFigures(fundNumber: string, periodEnd: string): Record<string, number> {
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
 * The periods a fund has filed, in the order they fell due: the last six ended periods of each kind
 * since its registration, less those a fixture leaves unfiled and, for generated funds, the last ended
 * period of a few.
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
    const ends = periodEnds(kind, addDays(registeredOn, 1), addDays(g.today, -1)).slice(-6);
    ends.forEach((periodEnd, i) => {
      const due = dueDateOf(kind, periodEnd);
      const last = i === ends.length - 1;
      if (kind === 'FULL_PORTFOLIO_HOLDINGS' && fphFiled === 'none') return;
      if (fphFiled === 'all-but-last' && last) return;
      // Generated funds: most periods filed; the last ended period of a few left unfiled.
      if (!fphFiled && last && random.chance(0.3)) return;
      events.push({ kind, periodEnd, due });
    });
  }
  events.sort((a, b) => a.due.localeCompare(b.due) || a.kind.localeCompare(b.kind));
  return events;
}

/**
 * The filings of a fund's periods, each on a drawn day (a few late) before now, each a new fund version
 * after `versions` (a fund update with new figures; full portfolio holdings with the period's holdings).
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
    const filedAt = new Date(Date.parse(`${filedOn}T03:00:00Z`));
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
  const holdings = holdingsPeriodEnd ? holdingsFor(random, random.int(12, 40)) : [];
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

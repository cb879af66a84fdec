/**
 * A full portfolio holdings (FPH) filing, checked with every problem reported at once (the register
 * answers one 400 listing them all, each with its field). Ours, in the register's vocabulary:
 *
 * | field                          | rule                                                                 |
 * |--------------------------------|----------------------------------------------------------------------|
 * | `periodEndDate`                | a period end: 31 March or 30 September (`compliance.ts`)              |
 * | `holdings`                     | 1 to 200,000 holdings                                                |
 * | `holdings.n.assetName`         | required, at most 200 characters                                     |
 * | `holdings.n.assetType`         | one of `ASSET_TYPES` (the fund update's asset classes)               |
 * | `holdings.n.isin`              | optional; when given, a valid ISIN (ISO 6166 check digit)            |
 * | `holdings.n.value`             | a finite number of the currency below 10^15, at most 2 decimal places; negative only for derivatives (`OTHER`) |
 * | `holdings.n.percentageOfFund`  | a finite number from -100 to 100                                     |
 * | `holdings.n.currency`          | an ISO 4217 code the runtime knows (`Intl.supportedValuesOf`)        |
 * | the percentages together       | sum to 100 within ±0.05 (each is rounded to 2 places in reports)     |
 *
 * The checker runs in one pass over the holdings, so a 50,000-line filing costs what reading it costs.
 */
import { isinProblem } from './isin.ts';

export const ASSET_TYPES = [
  'CASH_AND_CASH_EQUIVALENTS',
  'NEW_ZEALAND_FIXED_INTEREST',
  'INTERNATIONAL_FIXED_INTEREST',
  'AUSTRALASIAN_EQUITIES',
  'INTERNATIONAL_EQUITIES',
  'LISTED_PROPERTY',
  'UNLISTED_PROPERTY',
  'COMMODITIES',
  'OTHER',
] as const;
export type AssetType = (typeof ASSET_TYPES)[number];

export const MAX_HOLDINGS = 200_000;
export const PERCENTAGE_TOLERANCE = 0.05;
/** Values are below 10^15 in absolute value (stored with 2 places in 20 digits). */
export const MAX_VALUE = 1e15;

export interface Holding {
  assetName: string;
  assetType: AssetType;
  isin?: string | undefined;
  value: number;
  percentageOfFund: number;
  currency: string;
}

export interface Problem {
  field: string;
  message: string;
}

const CURRENCIES: ReadonlySet<string> = new Set(Intl.supportedValuesOf('currency'));
const ASSET_TYPE_SET: ReadonlySet<string> = new Set(ASSET_TYPES);

const isNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);
const twoPlaces = (value: number) => Math.abs(Math.round(value * 100) - value * 100) < 1e-6;

/** Every problem of one holding (fields under `holdings.<index>`), appended to `problems`. */
function checkHolding(
  holding: Partial<Record<keyof Holding, unknown>>,
  index: number,
  problems: Problem[],
): void {
  const at = (name: string) => `holdings.${index}.${name}`;
  const { assetName, assetType, isin, value, percentageOfFund, currency } = holding;
  if (typeof assetName !== 'string' || assetName.trim() === '') {
    problems.push({ field: at('assetName'), message: 'is required' });
  } else if (assetName.length > 200) {
    problems.push({ field: at('assetName'), message: 'must be at most 200 characters' });
  }
  if (typeof assetType !== 'string' || !ASSET_TYPE_SET.has(assetType)) {
    problems.push({ field: at('assetType'), message: `must be one of ${ASSET_TYPES.join(', ')}` });
  }
  if (isin !== undefined && isin !== null && isin !== '') {
    const problem = typeof isin === 'string' ? isinProblem(isin) : 'must be a string';
    if (problem) problems.push({ field: at('isin'), message: problem });
  }
  if (!isNumber(value)) {
    problems.push({ field: at('value'), message: 'must be a number' });
  } else if (Math.abs(value) >= MAX_VALUE) {
    problems.push({ field: at('value'), message: 'must be less than 10^15 in absolute value' });
  } else if (!twoPlaces(value)) {
    problems.push({ field: at('value'), message: 'must have at most 2 decimal places' });
  } else if (value < 0 && assetType !== 'OTHER') {
    problems.push({ field: at('value'), message: 'may be negative only for assetType OTHER (derivatives)' });
  }
  if (!isNumber(percentageOfFund) || percentageOfFund < -100 || percentageOfFund > 100) {
    problems.push({ field: at('percentageOfFund'), message: 'must be a number from -100 to 100' });
  }
  if (typeof currency !== 'string' || !CURRENCIES.has(currency)) {
    problems.push({ field: at('currency'), message: 'must be an ISO 4217 currency code, e.g. NZD' });
  }
}

/**
 * Checks the holdings of a filing; returns every problem (empty when the filing is good). The sum of
 * percentages is checked only when each percentage is a number.
 */
export function holdingsProblems(holdings: unknown): Problem[] {
  if (!Array.isArray(holdings)) return [{ field: 'holdings', message: 'must be a list of holdings' }];
  if (holdings.length === 0) return [{ field: 'holdings', message: 'must have at least one holding' }];
  if (holdings.length > MAX_HOLDINGS) {
    return [{ field: 'holdings', message: `must have at most ${MAX_HOLDINGS} holdings` }];
  }
  const problems: Problem[] = [];
  let sum = 0;
  let summable = true;
  for (let i = 0; i < holdings.length; i++) {
    const holding = holdings[i] as unknown;
    if (typeof holding !== 'object' || holding === null || Array.isArray(holding)) {
      problems.push({ field: `holdings.${i}`, message: 'must be an object' });
      summable = false;
      continue;
    }
    checkHolding(holding as Partial<Record<keyof Holding, unknown>>, i, problems);
    const percentage = (holding as { percentageOfFund?: unknown }).percentageOfFund;
    if (isNumber(percentage)) sum += percentage;
    else summable = false;
  }
  if (summable && Math.abs(sum - 100) > PERCENTAGE_TOLERANCE) {
    problems.push({
      field: 'holdings',
      message: `percentageOfFund must sum to 100 within ±${PERCENTAGE_TOLERANCE}; it sums to ${Number(sum.toFixed(4))}`,
    });
  }
  return problems;
}

/**
 * The same checks as `holdingsProblems`, one holding at a time, for a filing read as a stream: the
 * holdings are kept as columns (what the store writes), never as a list of objects.
 */
export class HoldingsChecker {
  readonly problems: Problem[] = [];
  readonly columns = {
    assetName: [] as string[],
    assetType: [] as string[],
    isin: [] as (string | null)[],
    value: [] as number[],
    percentageOfFund: [] as number[],
    currency: [] as string[],
  };
  private count = 0;
  private sum = 0;
  private summable = true;
  /** Problems are collected up to this many (a broken 50,000-line filing answers a readable list). */
  constructor(private readonly maxProblems = 1000) {}

  get size(): number {
    return this.count;
  }

  add(holding: unknown): void {
    const index = this.count++;
    if (index >= MAX_HOLDINGS) {
      if (index === MAX_HOLDINGS)
        this.problems.push({ field: 'holdings', message: `must have at most ${MAX_HOLDINGS} holdings` });
      return;
    }
    if (typeof holding !== 'object' || holding === null || Array.isArray(holding)) {
      this.push({ field: `holdings.${index}`, message: 'must be an object' });
      this.summable = false;
      return;
    }
    const before = this.problems.length;
    const found: Problem[] = [];
    checkHolding(holding as Partial<Record<keyof Holding, unknown>>, index, found);
    for (const problem of found) this.push(problem);
    const h = holding as Record<string, unknown>;
    if (isNumber(h.percentageOfFund)) this.sum += h.percentageOfFund;
    else this.summable = false;
    if (found.length === 0 && this.problems.length === before) {
      const c = this.columns;
      c.assetName.push(h.assetName as string);
      c.assetType.push(h.assetType as string);
      c.isin.push(typeof h.isin === 'string' && h.isin !== '' ? h.isin : null);
      c.value.push(h.value as number);
      c.percentageOfFund.push(h.percentageOfFund as number);
      c.currency.push(h.currency as string);
    }
  }

  private push(problem: Problem): void {
    if (this.problems.length < this.maxProblems) this.problems.push(problem);
  }

  /** Every problem of the filing's holdings (empty when good), after the last `add`. */
  finish(present: boolean): Problem[] {
    if (!present) return [{ field: 'holdings', message: 'must be a list of holdings' }, ...this.problems];
    if (this.count === 0) return [{ field: 'holdings', message: 'must have at least one holding' }];
    if (this.summable && this.count <= MAX_HOLDINGS && Math.abs(this.sum - 100) > PERCENTAGE_TOLERANCE) {
      this.push({
        field: 'holdings',
        message: `percentageOfFund must sum to 100 within ±${PERCENTAGE_TOLERANCE}; it sums to ${Number(this.sum.toFixed(4))}`,
      });
    }
    return this.problems;
  }
}

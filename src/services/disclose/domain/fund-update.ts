/**
 * A fund update filing (`submit-fund-compliance`), checked with every problem reported at once. Ours, in
 * the register's vocabulary (the README's "Compliance" section):
 *
 * | field                               | rule                                                           |
 * |-------------------------------------|----------------------------------------------------------------|
 * | `periodEndDate`                     | a quarter end: 31 March, 30 June, 30 September or 31 December  |
 * | `unitPrice.price`                   | a number above 0 with at most 6 decimal places                 |
 * | `unitPrice.currency`                | an ISO 4217 code                                               |
 * | `returns`                           | 1 to 10 items, each `period` one of RETURN_PERIODS once, `percentage` from -100 to 1,000 |
 * | `fees`                              | 1 to 10 items, each `feeType` one of FEE_TYPES once, `percentage` from 0 to 100 |
 * | `assetAllocation`                   | 1 to 9 items, each `assetType` one of ASSET_TYPES once, `actualPercentage` and `targetPercentage` from 0 to 100; actual percentages sum to 100 within ±0.05 |
 * | `fundSize` (optional)               | the fund's total value in the unit price's currency: a number from 0 to 10^15 with at most 2 decimal places |
 * | `numberOfInvestors` (optional)      | a whole number from 0 to 100,000,000                            |
 * | `riskIndicator` (optional)          | the risk indicator: a whole number from 1 (lowest) to 7         |
 *
 * The optional fields may be absent or null (not reported for the period).
 *
 * Arrays are capped at 10 so a main fund answer never has to cut them (it cuts at 10, records.ts).
 */
import { parseDate } from '../../../platform/calendar.ts';
import { ASSET_TYPES, PERCENTAGE_TOLERANCE, type Problem } from './holdings.ts';

export const RETURN_PERIODS = ['3m', '1y', '3y', '5y', '10y', 'sinceInception'] as const;
export const FEE_TYPES = ['MANAGEMENT', 'ADMINISTRATION', 'PERFORMANCE', 'TOTAL_ANNUAL', 'OTHER'] as const;

export interface FundUpdate {
  periodEndDate: string;
  unitPrice: { price: number; currency: string };
  returns: { period: (typeof RETURN_PERIODS)[number]; percentage: number }[];
  fees: { feeType: (typeof FEE_TYPES)[number]; percentage: number }[];
  assetAllocation: {
    assetType: (typeof ASSET_TYPES)[number];
    actualPercentage: number;
    targetPercentage: number;
  }[];
  fundSize?: number | null;
  numberOfInvestors?: number | null;
  riskIndicator?: number | null;
}

/** The optional figures of a fund update, each with its rule (absent or null: not reported). */
export const OPTIONAL_FIGURES = {
  fundSize: { min: 0, max: 1e15, decimals: 2 },
  numberOfInvestors: { min: 0, max: 100_000_000, decimals: 0 },
  riskIndicator: { min: 1, max: 7, decimals: 0 },
} as const;

export type OptionalFigure = keyof typeof OPTIONAL_FIGURES;

/** The problems of the optional figures that are given. */
function optionalFigureProblems(body: Record<string, unknown>, problems: Problem[]): void {
  for (const [field, rule] of Object.entries(OPTIONAL_FIGURES)) {
    const value = body[field];
    if (value === undefined || value === null) continue;
    const scaled = isNumber(value) ? value * 10 ** rule.decimals : Number.NaN;
    if (
      !isNumber(value) ||
      value < rule.min ||
      value > rule.max ||
      Math.abs(Math.round(scaled) - scaled) > 1e-6 * Math.max(1, Math.abs(scaled))
    ) {
      const kind =
        rule.decimals === 0 ? 'a whole number' : `a number with at most ${rule.decimals} decimal places`;
      problems.push({
        field,
        message: `must be ${kind} from ${rule.min} to ${rule.max.toLocaleString('en-NZ')}`,
      });
    }
  }
}

/** The figures a fund update reports for its fund (absent ones null): what the fund then shows. */
export function reportedFigures(body: Record<string, unknown>): Record<OptionalFigure, number | null> {
  const figure = (name: OptionalFigure) => (isNumber(body[name]) ? (body[name] as number) : null);
  return {
    fundSize: figure('fundSize'),
    numberOfInvestors: figure('numberOfInvestors'),
    riskIndicator: figure('riskIndicator'),
  };
}

const CURRENCIES: ReadonlySet<string> = new Set(Intl.supportedValuesOf('currency'));
const isNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Whether a date ends a quarter (a fund update's period). */
export function isQuarterEnd(date: string): boolean {
  const parsed = parseDate(date);
  if (!parsed) return false;
  return (
    (parsed.month === 3 && parsed.day === 31) ||
    (parsed.month === 6 && parsed.day === 30) ||
    (parsed.month === 9 && parsed.day === 30) ||
    (parsed.month === 12 && parsed.day === 31)
  );
}

function listOf(
  body: Record<string, unknown>,
  name: string,
  max: number,
  problems: Problem[],
  check: (item: Record<string, unknown>, at: (field: string) => string) => void,
  keyOf: (item: Record<string, unknown>) => unknown,
): void {
  const list = body[name];
  if (!Array.isArray(list)) {
    problems.push({ field: name, message: 'must be a list' });
    return;
  }
  if (list.length === 0 || list.length > max) {
    problems.push({ field: name, message: `must have 1 to ${max} items` });
    return;
  }
  const seen = new Set<unknown>();
  list.forEach((item: unknown, index) => {
    if (!isObject(item)) {
      problems.push({ field: `${name}.${index}`, message: 'must be an object' });
      return;
    }
    const at = (field: string) => `${name}.${index}.${field}`;
    check(item, at);
    const key = keyOf(item);
    if (key !== undefined && seen.has(key))
      problems.push({ field: `${name}.${index}`, message: 'repeats an earlier item' });
    seen.add(key);
  });
}

const percentage = (
  item: Record<string, unknown>,
  field: string,
  at: (field: string) => string,
  min: number,
  max: number,
  problems: Problem[],
) => {
  const value = item[field];
  if (!isNumber(value) || value < min || value > max) {
    problems.push({ field: at(field), message: `must be a number from ${min} to ${max}` });
  }
};

/** Every problem of a fund update body (empty when it is good). */
export function fundUpdateProblems(body: unknown): Problem[] {
  if (!isObject(body)) return [{ field: 'body', message: 'must be a JSON object' }];
  const problems: Problem[] = [];
  const period = body.periodEndDate;
  if (typeof period !== 'string' || !isQuarterEnd(period)) {
    problems.push({
      field: 'periodEndDate',
      message: 'must be a quarter end (YYYY-03-31, YYYY-06-30, YYYY-09-30 or YYYY-12-31)',
    });
  }
  const unitPrice = body.unitPrice;
  if (!isObject(unitPrice)) {
    problems.push({ field: 'unitPrice', message: 'must be an object with price and currency' });
  } else {
    const price = unitPrice.price;
    if (!isNumber(price) || price <= 0 || Math.abs(Math.round(price * 1e6) - price * 1e6) > 1e-3) {
      problems.push({
        field: 'unitPrice.price',
        message: 'must be a number above 0 with at most 6 decimal places',
      });
    }
    if (typeof unitPrice.currency !== 'string' || !CURRENCIES.has(unitPrice.currency)) {
      problems.push({ field: 'unitPrice.currency', message: 'must be an ISO 4217 currency code, e.g. NZD' });
    }
  }
  listOf(
    body,
    'returns',
    10,
    problems,
    (item, at) => {
      if (!RETURN_PERIODS.includes(item.period as never)) {
        problems.push({ field: at('period'), message: `must be one of ${RETURN_PERIODS.join(', ')}` });
      }
      percentage(item, 'percentage', at, -100, 1000, problems);
    },
    (item) => item.period,
  );
  listOf(
    body,
    'fees',
    10,
    problems,
    (item, at) => {
      if (!FEE_TYPES.includes(item.feeType as never)) {
        problems.push({ field: at('feeType'), message: `must be one of ${FEE_TYPES.join(', ')}` });
      }
      percentage(item, 'percentage', at, 0, 100, problems);
    },
    (item) => item.feeType,
  );
  let sum = 0;
  let summable = true;
  listOf(
    body,
    'assetAllocation',
    ASSET_TYPES.length,
    problems,
    (item, at) => {
      if (!ASSET_TYPES.includes(item.assetType as never)) {
        problems.push({ field: at('assetType'), message: `must be one of ${ASSET_TYPES.join(', ')}` });
      }
      percentage(item, 'actualPercentage', at, 0, 100, problems);
      percentage(item, 'targetPercentage', at, 0, 100, problems);
      if (isNumber(item.actualPercentage)) sum += item.actualPercentage;
      else summable = false;
    },
    (item) => item.assetType,
  );
  if (Array.isArray(body.assetAllocation) && body.assetAllocation.length > 0 && summable) {
    if (Math.abs(sum - 100) > PERCENTAGE_TOLERANCE) {
      problems.push({
        field: 'assetAllocation',
        message: `actualPercentage must sum to 100 within ±${PERCENTAGE_TOLERANCE}; it sums to ${Number(sum.toFixed(4))}`,
      });
    }
  }
  optionalFigureProblems(body, problems);
  return problems;
}

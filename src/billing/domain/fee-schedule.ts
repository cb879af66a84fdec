/**
 * The fee schedule: every fee code a register may charge, its amount per channel in integer cents (GST
 * exclusive), and GST computed once per fee. The defaults are in `DEFAULT_FEE_SCHEDULE` (and the table
 * in `src/billing/README.md`); an operator overrides amounts with a JSON file named by
 * `RSG_FEE_SCHEDULE` (`parseFeeScheduleOverrides`). Pure: no database, no clock.
 */
import { RuleError } from '../../platform/errors.ts';

export type Channel = 'API' | 'Web';
export const CHANNELS: readonly Channel[] = ['API', 'Web'];

export interface FeeDefinition {
  readonly code: string;
  /** The register that charges it (a fee code belongs to one service). */
  readonly service: string;
  readonly description: string;
  /** GST-exclusive amount in cents, per channel. */
  readonly cents: Readonly<Record<Channel, number>>;
}

export type FeeSchedule = ReadonlyMap<string, FeeDefinition>;

/** GST in New Zealand: 15 %. */
export const GST_PERCENT = 15;

/**
 * GST on one fee: 15 % of the GST-exclusive amount, rounded to the nearest cent, a half cent up
 * (amounts are never negative). Integer arithmetic only, so no binary fraction can tip a half.
 */
export function gstCents(amountCents: number): number {
  if (!Number.isSafeInteger(amountCents) || amountCents < 0) {
    throw new RangeError(`an amount is a whole number of cents, 0 or more (got ${amountCents})`);
  }
  return Math.floor((amountCents * GST_PERCENT + 50) / 100);
}

const fee = (code: string, service: string, description: string, web: number, api = web): FeeDefinition => ({
  code,
  service,
  description,
  cents: { API: api, Web: web },
});

/**
 * Defaults. Scale: the secured interests register's website charges NZ$2 + GST for a debtor search and
 * its API fees are lower (published; the API amounts are not): ours are 75 % of the website's. The IP
 * office's renewal fees are its published table, the same by either channel; its application fees are
 * ours. The business number register charges for an organisation
 * part beyond an entity's second.
 */
export const DEFAULT_FEES: readonly FeeDefinition[] = [
  fee('PPSR_SEARCH_DEBTOR_ORGANISATION', 'ppsr', 'Search by debtor organisation', 200, 150),
  fee('PPSR_SEARCH_DEBTOR_PERSON', 'ppsr', 'Search by debtor person', 200, 150),
  fee('PPSR_SEARCH_MOTOR_VEHICLE', 'ppsr', 'Search by motor vehicle', 200, 150),
  fee('PPSR_SEARCH_SERIAL_NUMBER', 'ppsr', 'Search by serial number (aircraft)', 200, 150),
  fee('PPSR_SEARCH_REGISTRATION_NUMBER', 'ppsr', 'Search by registration number', 200, 150),
  fee('PPSR_REGISTRATION', 'ppsr', 'Register a financing statement', 1600, 1200),
  fee('PPSR_RENEWAL', 'ppsr', 'Renew a financing statement', 1600, 1200),
  // The IP office's published fee table (in force since 13 February 2020; its renewal rules are in
  // src/services/iponz/domain/renewals.ts): the same by either channel.
  fee('IPONZ_PATENT_MAINTENANCE', 'iponz', 'Patent application maintenance fee', 20_000),
  fee('IPONZ_PATENT_RENEWAL_4_TO_9', 'iponz', 'Patent renewal fee, 4th to 9th year', 20_000),
  fee('IPONZ_PATENT_RENEWAL_10_TO_14', 'iponz', 'Patent renewal fee, 10th to 14th year', 45_000),
  fee('IPONZ_PATENT_RENEWAL_15_TO_19', 'iponz', 'Patent renewal fee, 15th to 19th year', 100_000),
  fee('IPONZ_PATENT_LATE_PAYMENT', 'iponz', 'Patent late payment fee', 10_000),
  fee('IPONZ_TRADE_MARK_RENEWAL', 'iponz', 'Trade mark renewal fee, per class', 20_000),
  fee('IPONZ_DESIGN_FIRST_RENEWAL', 'iponz', 'Design renewal fee, first renewal', 10_000),
  fee('IPONZ_DESIGN_SECOND_RENEWAL', 'iponz', 'Design renewal fee, second renewal', 20_000),
  // Ours: the applications the API takes.
  fee('IPONZ_PATENT_APPLICATION', 'iponz', 'Patent application (PCT national phase)', 25_000),
  fee('IPONZ_PATENT_EXAMINATION', 'iponz', 'Patent examination (requested with the application)', 50_000),
  fee('IPONZ_TRADE_MARK_APPLICATION', 'iponz', 'Trade mark application, per class', 10_000),
  fee('NZBN_ORGANISATION_PART', 'nzbn', 'Organisation part beyond the second for one entity', 500),
];

export const DEFAULT_FEE_SCHEDULE: FeeSchedule = new Map(DEFAULT_FEES.map((f) => [f.code, f]));

/**
 * Applies an operator's overrides to the defaults. The file is JSON:
 * `{ "fees": { "<FEE_CODE>": { "API": cents, "Web": cents, "description": "…" } } }`; every key optional
 * except the code, which must be a known one (a service charges by code, so a new code needs code).
 * A broken rule names the place in the file.
 */
export function parseFeeScheduleOverrides(
  text: string,
  base: FeeSchedule = DEFAULT_FEE_SCHEDULE,
): FeeSchedule {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new RuleError('fees', `the file is not JSON: ${(error as Error).message}`);
  }
  const fees = isObject(parsed) ? parsed.fees : undefined;
  if (!isObject(parsed) || Object.keys(parsed).some((key) => key !== 'fees') || !isObject(fees)) {
    throw new RuleError(
      'fees',
      'the file must be an object with one key, "fees", holding an object by fee code',
    );
  }
  const schedule = new Map(base);
  for (const [code, change] of Object.entries(fees)) {
    const known = base.get(code);
    if (!known) {
      throw new RuleError(`fees.${code}`, `is not a fee code; the codes are ${[...base.keys()].join(', ')}`);
    }
    if (!isObject(change))
      throw new RuleError(`fees.${code}`, 'must be an object with "API", "Web" or "description"');
    const cents = { ...known.cents };
    let description = known.description;
    for (const [key, value] of Object.entries(change)) {
      if (key === 'API' || key === 'Web') {
        if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0 || value > 100_000_000) {
          throw new RuleError(
            `fees.${code}.${key}`,
            'must be a whole number of cents from 0 to 100000000 (GST exclusive)',
          );
        }
        cents[key] = value;
      } else if (key === 'description') {
        if (typeof value !== 'string' || value.trim() === '' || value.length > 200) {
          throw new RuleError(`fees.${code}.description`, 'must be text of 1 to 200 characters');
        }
        description = value.trim();
      } else {
        throw new RuleError(`fees.${code}.${key}`, 'is not a setting of a fee ("API", "Web", "description")');
      }
    }
    schedule.set(code, { ...known, cents, description });
  }
  return schedule;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** One fee as charged: the amount for the channel and its GST. */
export interface Quote {
  readonly code: string;
  readonly service: string;
  readonly description: string;
  readonly amountCents: number;
  readonly gstCents: number;
}

/**
 * The fee for a code and channel; `quantity` (a trade mark's classes) multiplies the amount, and GST is
 * computed once on the product, so one fee record holds the whole fee.
 */
export function quote(schedule: FeeSchedule, code: string, channel: Channel, quantity = 1): Quote {
  const definition = schedule.get(code);
  if (!definition) throw new Error(`no fee code ${code} in the fee schedule`);
  if (!Number.isSafeInteger(quantity) || quantity < 1 || quantity > 1_000) {
    throw new RangeError(`a fee's quantity is a whole number from 1 to 1000 (got ${quantity})`);
  }
  const amountCents = definition.cents[channel] * quantity;
  return {
    code,
    service: definition.service,
    description: quantity === 1 ? definition.description : `${definition.description} × ${quantity}`,
    amountCents,
    gstCents: gstCents(amountCents),
  };
}

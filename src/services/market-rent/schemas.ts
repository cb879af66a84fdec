import { type Static, Type } from '@sinclair/typebox';
import { Problem } from '../../platform/http/problem-schema.ts';
import { BEDROOM_VALUES, DWELLING_TYPES } from './domain/factors.ts';

/**
 * The contract of the rental statistics API. The query schema is validated before the route runs (the
 * operation kit): the types — a whole number of months, lists that may be repeated, a boolean written
 * either case — and domain/params.ts then checks the rules that need the geography and the clock (period,
 * areas, mappings, factors), naming the parameter and the rule in every 400.
 */
const list = (description: string, example: string) =>
  Type.Array(Type.String(), {
    description: `${description} Comma-separated; may be repeated.`,
    examples: [[example]],
  });

export const StatisticsQuery = Type.Object({
  'period-ending': Type.String({
    description:
      'Last month of the period, yyyy-mm. Must be earlier than the month before the current month (New Zealand time).',
    examples: ['2024-06'],
  }),
  'num-months': Type.Integer({
    minimum: 1,
    maximum: 24,
    description: 'Length of the period in months, 1–24.',
    examples: [12],
  }),
  'area-definition': Type.String({
    description:
      'Short code (REGC2019, TA2019, SAU2019, IMR2017, …) or long label (regional-council-2019, …) of an area definition, or user-defined.',
    examples: ['REGC2019'],
  }),
  'area-codes': Type.Optional(list('Only these areas of the definition, by code.', '1,2')),
  // No example value (try-it fills every example in, and area-codes has one): e.g. Auckland Region.
  'area-labels': Type.Optional(
    Type.String({
      description:
        'Only these areas, by label (case ignored), e.g. Auckland Region. Not with area-codes. Comma-separated; may be repeated.',
    }),
  ),
  'include-aggregates': Type.Optional(
    // A text, not a boolean: some clients send True/False (Python's str(True)), and case is forgiven.
    Type.String({
      pattern: '^\\s*([Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee])\\s*$',
      description: 'Add the ALL rows across every combination of factors: true or false (case ignored).',
      default: 'false',
    }),
  ),
  'user-defined-area-mappings': Type.Optional(
    Type.Array(Type.String(), {
      description:
        'With area-definition=user-defined: Label(code, code, …), Label(…) where the codes are SA2 2019 (SAU2019) codes, each in at most one label; for example MyCBD(130200,131800,131300). Repeats of the parameter add their mappings.',
      // No example value: try-it fills every example in, and the area-definition example (REGC2019)
      // refuses a mapping.
    }),
  ),
  'dwelling-type': Type.Optional(list(`Only these dwelling types: ${DWELLING_TYPES.join(', ')}.`, 'Flat')),
  'num-bedrooms': Type.Optional(list(`Only these bedroom counts: ${BEDROOM_VALUES.join(', ')}.`, '2')),
});

const Count = Type.Integer({ minimum: 0, description: 'Randomly rounded to a multiple of 3.' });
const Dollars = (description: string) =>
  Type.Union([Type.Integer(), Type.Null()], { description: `${description}; null when suppressed.` });
const Decimal = (description: string) =>
  Type.Union([Type.Number(), Type.Null()], { description: `${description}; null when suppressed.` });

export const StatisticsItem = Type.Object({
  area: Type.String({ description: 'Area label, or ALL' }),
  dwell: Type.String({ enum: [...DWELLING_TYPES, 'ALL'] }),
  nBedrms: Type.String({ enum: [...BEDROOM_VALUES, 'ALL'] }),
  nLodged: Count,
  nClosed: Count,
  nCurr: Count,
  mean: Dollars('Mean weekly rent, whole dollars'),
  lq: Dollars('Lower quartile (percentile_cont 0.25)'),
  med: Dollars('Median (percentile_cont 0.5)'),
  uq: Dollars('Upper quartile (percentile_cont 0.75)'),
  sd: Dollars('Sample standard deviation'),
  brr: Decimal('Mean bond/rent ratio, 2 decimals'),
  lmean: Decimal('Mean of ln(rent), 4 decimals'),
  lsd: Decimal('Sample standard deviation of ln(rent), 4 decimals'),
  slq: Dollars('Synthetic lower quartile exp(lmean + qnorm(0.25)·lsd)'),
  suq: Dollars('Synthetic upper quartile exp(lmean + qnorm(0.75)·lsd)'),
});
export type StatisticsItem = Static<typeof StatisticsItem>;

export const StatisticsResponse = Type.Object({
  areaDefinition: Type.String({ examples: ['REGC2019'] }),
  periodCovered: Type.String({
    description: 'first day/last day, not zero-padded',
    examples: ['2026-7-1/2026-7-31'],
  }),
  items: Type.Array(StatisticsItem),
});

export const AreaDefinitionParams = Type.Object({
  areaDefinition: Type.String({
    description: 'Short code or long label of an area definition (the published {area-definition})',
    examples: ['REGC2019'],
  }),
});

export const AreaListing = Type.Object({
  tableName: Type.String({ examples: ['REGC2019'] }),
  items: Type.Array(Type.Object({ label: Type.String(), code: Type.String() })),
});

export const AreaDefinitionList = Type.Object({
  items: Type.Array(
    Type.Object({
      code: Type.String({ examples: ['REGC2019'] }),
      label: Type.String({ examples: ['regional-council-2019'] }),
      description: Type.String(),
      areaCount: Type.Union([Type.Integer(), Type.Null()], { description: 'null for user-defined' }),
    }),
  ),
});

const csv = Type.String({
  description: 'One header row with the JSON item keys, in order; one row per item',
});

/** 200 as JSON or CSV, and the errors this API answers. */
export const responses = (json: object) => ({
  200: {
    description: 'OK',
    content: { 'application/json': { schema: json }, 'text/csv': { schema: csv } },
  },
  400: {
    description: 'A parameter breaks a rule',
    content: { 'application/problem+json': { schema: Problem } },
  },
  404: {
    description: 'No such area definition',
    content: { 'application/problem+json': { schema: Problem } },
  },
  406: {
    description: 'Accept names neither JSON nor CSV',
    content: { 'application/problem+json': { schema: Problem } },
  },
});

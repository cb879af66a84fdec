import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateProduct } from '../../../src/gateway/products.ts';
import type { TestGateway } from '../../support/runtime.ts';
import { BASE, type Bond, importInto, marketRentGateway } from './api-support.ts';

/**
 * "No 500s", driven by the service's own OpenAPI document: every operation it serves is called with
 * random path and query parameters (and bodies, should an operation take one), valid-looking values
 * mixed with hostile ones: empty, very long, unicode, %00 and broken %-encoding, numbers as strings,
 * negative and huge numbers, repeated and unknown parameters, impossible months and dates, unknown enum
 * values, odd Accept headers. Every answer must be below 500, and a 4xx must be the service's RFC 9457
 * problem (a 400 naming the parameter in errors[0].field and in detail). Fixed seed, bounded runs.
 */
const SEED = 0x6d72_3266; // "mr2f"
const STATISTICS_RUNS = 900;
const LISTING_RUNS = 150;

type Schema = {
  type?: string;
  enum?: unknown[];
  examples?: unknown[];
  default?: unknown;
  minimum?: number;
  maximum?: number;
  description?: string;
};
type Parameter = { name: string; in: 'path' | 'query' | 'header'; required?: boolean; schema?: Schema };
type Operation = { method: string; path: string; parameters: Parameter[]; hasBody: boolean };

let gateway: TestGateway;
let key: string;
let operations: Operation[];
/** Real values the service itself publishes, to mix valid-looking input into the random one. */
let known: {
  definitions: string[];
  codes: string[];
  labels: string[];
  sa2: string[];
  /** Per definition (short code or long label): a sample of its areas. */
  areas: { definition: string; codes: string[]; labels: string[] }[];
};

const KAIKOURA = 308900;
const RANGES = 308800;

function bonds(): Bond[] {
  const list: Bond[] = [];
  const months = ['2025-10', '2025-11', '2025-12', '2026-01', '2026-02', '2026-03'];
  months.forEach((month, m) => {
    for (let i = 0; i < 8; i++) {
      const day = String(1 + ((i * 3) % 27)).padStart(2, '0');
      list.push({
        id: `F${m}-${i}`,
        start: `${month}-${day}`,
        sa2: i % 3 === 0 ? RANGES : KAIKOURA,
        dwelling: ['House', 'Flat', 'Apartment', 'Room'][i % 4],
        bedrooms: [1, 2, 3, 4, 6, null][i % 6],
        rent: 300 + 25 * i + 10 * m,
        closed: i % 5 === 0 ? `${month}-28` : null,
      });
    }
  });
  // Not yet lodged on the sandbox day (2026-03-15): taken back out of the answer.
  list.push({ id: 'LATE', start: '2026-03-02', lodged: '2026-03-20', sa2: KAIKOURA, bedrooms: 2, rent: 480 });
  return list;
}

beforeAll(async () => {
  let get: Awaited<ReturnType<typeof marketRentGateway>>['get'];
  ({ gateway, key, get } = await marketRentGateway());
  // The sandbox product allows 300 calls a minute; this file makes about 1,400.
  await updateProduct(gateway.runtime.gateway.pool, 'sandbox-market-rent', {
    rateLimitPerMinute: 1_000_000,
    quota: null,
  });
  await importInto(gateway, bonds());

  const document = (await gateway.app.inject({ url: `${BASE}/openapi.json` })).json();
  operations = Object.entries(document.paths as Record<string, Record<string, Record<string, unknown>>>)
    .flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => ({
        method: method.toUpperCase(),
        path,
        parameters: (operation.parameters ?? []) as Parameter[],
        hasBody: operation.requestBody !== undefined,
      })),
    )
    .sort((a, b) => a.path.localeCompare(b.path));

  const definitions = (await get('/area-definitions')).json().items as { code: string; label: string }[];
  const listing = async (name: string) =>
    (await get(`/area-definitions/${name}`)).json().items as { code: string; label: string }[];
  const regions = await listing('REGC2019');
  const authorities = await listing('TA2019');
  const sa2 = await listing('SAU2019');
  const areas = [];
  for (const d of definitions.filter((d) => d.code !== 'user-defined')) {
    const sample = (await listing(d.code)).filter((_, i) => i % 7 === 0 || i < 3);
    const codes = sample.map((a) => a.code);
    const labels = sample.map((a) => a.label);
    areas.push({ definition: d.code, codes, labels }, { definition: d.label, codes, labels });
  }
  known = {
    areas,
    definitions: definitions.flatMap((d) => [d.code, d.label]),
    codes: [...regions, ...authorities].map((a) => a.code),
    labels: [...regions, ...authorities].map((a) => a.label),
    sa2: [String(KAIKOURA), String(RANGES), ...sa2.filter((_, i) => i % 97 === 0).map((a) => a.code)],
  };
});
afterAll(() => gateway?.close());

// ---- values -------------------------------------------------------------------------------------

/** A piece of a value on the wire: text to percent-encode, or raw (possibly broken) URL bytes. */
type Piece = { text: string } | { raw: string };

const RAW_JUNK = [
  '%00',
  '%',
  '%Z',
  '%ZZ',
  '%E0%A4%A',
  '%C0%AF',
  '%FF%FE',
  '%ED%A0%80',
  '%2C',
  '%28',
  '%29',
  '%25',
  '+',
  '%2B',
  '%0A',
  '%0D%0A',
  '%09',
  '%EF%BB%BF',
  '%F0%9F%98%80',
  '%26',
  '%3D',
  '%5B%5D',
];

const HOSTILE_TEXT = [
  '',
  ' ',
  '   ',
  ',',
  ',,',
  '-1',
  '0',
  '00',
  '000',
  '-0',
  '1.5',
  '1e3',
  '1e309',
  '+1',
  ' 1 ',
  '0x1F',
  'NaN',
  'Infinity',
  '-Infinity',
  '9007199254740993',
  '99999999999999999999999999999999',
  'true',
  'false',
  'True',
  'yes',
  'null',
  'undefined',
  '[]',
  '{}',
  '[object Object]',
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  'ALL',
  'all',
  'NA',
  'user-defined',
  'USER-DEFINED',
  '2021-02-30',
  '2021-02-29',
  '2026-00',
  '2026-13',
  '0000-01',
  '0999-12',
  '99999-01',
  '2026-1',
  '2026/01',
  '2026-01-01',
  '2026-01T00:00:00Z',
  '２０２５-０１', // full-width digits
  '٢٠٢٥-٠١', // Arabic-Indic digits
  '१२', // Devanagari digits
  'İ',
  'ß',
  'Ω',
  '\u200b',
  '\ufeff',
  '\u0000',
  'é\u0301',
  '😀',
  'A(308900',
  'A)308900(',
  '(308900)',
  'A((308900))',
  'A(308900),',
  'ALL(308900)',
  'a(308900),A(308800)',
  'A(1e5)',
  'A(-308900)',
  'A(0308900)',
  "'; DROP TABLE market_rent_bonds; --",
  '<script>',
  '../../etc/passwd',
];

function encode(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    return '%ED%A0%80'; // a lone surrogate: sent as the (invalid) UTF-8 of one
  }
}

const wire = (pieces: Piece[]): string => pieces.map((p) => ('raw' in p ? p.raw : encode(p.text))).join('');

const rawPiece: fc.Arbitrary<Piece> = fc.constantFrom(...RAW_JUNK).map((raw) => ({ raw }));

const hostileText: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...HOSTILE_TEXT) },
  { weight: 2, arbitrary: fc.string({ maxLength: 16 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 12 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 8 }) },
  { weight: 1, arbitrary: fc.integer().map(String) },
  { weight: 1, arbitrary: fc.double().map(String) },
  { weight: 1, arbitrary: fc.bigInt({ min: -(10n ** 40n), max: 10n ** 40n }).map(String) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom('a', '9', ',', '(', 'é', '1,'), fc.constantFrom(200, 5_000, 60_000))
      .map(([unit, count]) => unit.repeat(count)),
  },
);

const yearMonthText: fc.Arbitrary<string> = fc
  .tuple(
    fc.oneof(fc.integer({ min: 2020, max: 2027 }), fc.integer({ min: 0, max: 12_000 })),
    fc.integer({ min: -1, max: 14 }),
    fc.constantFrom('-', '-', '-', '/', ''),
  )
  .map(([year, month, dash]) => `${String(year).padStart(4, '0')}${dash}${String(month).padStart(2, '0')}`);

const dateText: fc.Arbitrary<string> = fc
  .tuple(
    fc.integer({ min: 1999, max: 2030 }),
    fc.integer({ min: 0, max: 13 }),
    fc.integer({ min: 0, max: 32 }),
  )
  .map(([y, m, d]) => `${y}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`);

/** Valid-looking values for one parameter, from its schema and from what the service publishes. */
function plausible(parameter: Parameter): fc.Arbitrary<string> {
  const schema = parameter.schema ?? {};
  const choices: fc.Arbitrary<string>[] = [];
  const literal = [...(schema.examples ?? []), ...(schema.enum ?? [])];
  if (schema.default !== undefined) literal.push(schema.default);
  if (literal.length) choices.push(fc.constantFrom(...literal.map(String)));
  if (schema.type === 'integer' || schema.type === 'number') {
    const min = schema.minimum ?? -1000;
    const max = schema.maximum ?? 1000;
    choices.push(fc.integer({ min: min - 2, max: max + 2 }).map(String));
    choices.push(fc.constantFrom(String(min), String(max), String(min - 1), String(max + 1)));
  }
  if (schema.type === 'boolean') choices.push(fc.constantFrom('true', 'false', 'TRUE', 'False', '1', '0'));
  if (/yyyy-mm/.test(schema.description ?? '')) choices.push(yearMonthText, dateText);
  const name = parameter.name.toLowerCase();
  const pool = name.includes('definition')
    ? known.definitions
    : name.includes('mapping')
      ? []
      : name.includes('code')
        ? [...known.codes, ...known.sa2]
        : name.includes('label')
          ? known.labels
          : [];
  if (pool.length) choices.push(fc.constantFrom(...pool));
  if (name.includes('mapping')) choices.push(mappings());
  if (/comma-separated/i.test(schema.description ?? '')) {
    const element = choices.length ? fc.oneof(...choices) : hostileText;
    choices.push(
      fc
        .array(fc.oneof({ weight: 5, arbitrary: element }, { weight: 1, arbitrary: hostileText }), {
          minLength: 1,
          maxLength: 4,
        })
        .chain((values) =>
          fc.constantFrom(',', ', ', ' , ', ',,').map((separator) => values.join(separator)),
        ),
    );
  }
  return choices.length ? fc.oneof(...choices) : hostileText;
}

/** user-defined-area-mappings: Label(code, …), Label(…) with real SA2 codes and broken pieces. */
const mappings = (): fc.Arbitrary<string> =>
  fc
    .array(
      fc.tuple(
        fc.oneof(
          fc.constantFrom('Town', 'Hills', 'town', 'ALL', 'All', ' ', '', 'A B', 'Ω', '😀', '__proto__'),
          fc.string({ maxLength: 8 }),
        ),
        fc.array(
          fc.oneof(
            {
              weight: 5,
              arbitrary: fc.constantFrom(String(KAIKOURA), String(RANGES), '0308900', ' 308900 '),
            },
            { weight: 1, arbitrary: fc.constantFrom(...known.sa2) },
            { weight: 1, arbitrary: hostileText },
          ),
          { minLength: 0, maxLength: 4 },
        ),
        fc.constantFrom('(', ' ( ', '[', ''),
        fc.constantFrom(')', ' ) ', ']', ''),
      ),
      { minLength: 0, maxLength: 3 },
    )
    .map((list) =>
      list.map(([label, codes, open, close]) => `${label}${open}${codes.join(',')}${close}`).join(','),
    );

function parameterValue(parameter: Parameter): fc.Arbitrary<string> {
  const text = fc.oneof(
    { weight: 3, arbitrary: plausible(parameter) },
    { weight: 2, arbitrary: hostileText },
  );
  const piece: fc.Arbitrary<Piece> = fc.oneof(
    { weight: 8, arbitrary: text.map((t) => ({ text: t })) },
    { weight: 1, arbitrary: rawPiece },
  );
  return fc.array(piece, { minLength: 1, maxLength: 3 }).map(wire);
}

/** A query parameter given 0 (omitted), 1 or several (repeated) times. */
function occurrences(parameter: Parameter): fc.Arbitrary<string[]> {
  const value = parameterValue(parameter);
  return fc.oneof(
    { weight: parameter.required ? 1 : 3, arbitrary: fc.constant<string[]>([]) },
    { weight: 12, arbitrary: value.map((v) => [v]) },
    { weight: 2, arbitrary: fc.array(value, { minLength: 2, maxLength: 3 }) },
  );
}

const UNKNOWN_NAMES = [
  'foo',
  '__proto__',
  'constructor',
  'hasOwnProperty',
  'period-ending[]',
  'num-months[0]',
  'area-codes[a]',
  'a.b',
  '',
  '%00',
  '%ZZ',
  'PERIOD-ENDING',
  'Num-Months',
  'include_aggregates',
];

const extraParameters: fc.Arbitrary<string[]> = fc.array(
  fc
    .tuple(
      fc.constantFrom(...UNKNOWN_NAMES),
      fc.oneof(fc.constant(null), hostileText.map(encode), fc.constantFrom(...RAW_JUNK)),
    )
    .map(([name, value]) => (value === null ? name : `${name}=${value}`)),
  { maxLength: 2 },
);

const ACCEPT = [
  undefined,
  undefined,
  undefined,
  undefined,
  undefined,
  undefined,
  'application/json',
  'text/csv',
  '*/*',
  'text/*',
  'application/*',
  'application/xml',
  '',
  'text/csv;q=0, application/json',
  'application/json;q=2',
  'garbage;;;q=abc',
  'text/csv, application/json;q=0.5',
  ',,,',
];

// ---- requests -----------------------------------------------------------------------------------

interface Call {
  method: string;
  url: string;
  accept: string | undefined;
  body: unknown;
}

/**
 * A query that the rules accept (so the answer is computed), as name → encoded values: a valid period
 * before the sandbox day, a definition with some of its own areas, or user-defined areas with labels.
 */
function coherentQuery(): fc.Arbitrary<Map<string, string[]>> {
  const period = fc.record({
    'period-ending': fc.oneof(
      // the months that hold the imported bonds, and the latest allowed on the sandbox day
      fc.constantFrom('2025-10', '2025-11', '2025-12', '2026-01'),
      fc
        .tuple(fc.integer({ min: 1000, max: 2025 }), fc.integer({ min: 1, max: 12 }))
        .map(([y, m]) => `${y}-${String(m).padStart(2, '0')}`),
    ),
    'num-months': fc.integer({ min: 1, max: 24 }).map(String),
  });
  const subset = (values: string[]) =>
    fc
      .subarray(values, { minLength: 1, maxLength: Math.min(4, values.length) })
      .map((chosen) => [chosen.join(',')]);
  const defined = fc.constantFrom(...known.areas).chain((d) =>
    fc.record({
      'area-definition': fc.constant([d.definition]),
      areas: fc.oneof(
        fc.constant({}),
        subset(d.codes).map((v) => ({ 'area-codes': v })),
        subset(d.labels).map((v) => ({ 'area-labels': v })),
      ),
    }),
  );
  const userDefined = fc.subarray(known.sa2, { minLength: 1, maxLength: 6 }).chain((codes) =>
    fc.record({
      'area-definition': fc.constant(['user-defined']),
      'user-defined-area-mappings': fc.constant([codes.map((c, i) => `Area ${i}(${c})`).join(',')]),
      areas: fc.oneof(
        fc.constant({}),
        subset(codes.map((_, i) => `area ${i}`)).map((v) => ({ 'area-labels': v })),
      ),
    }),
  );
  const factors = fc.record(
    {
      'dwelling-type': subset(['Apartment', 'Boarding House', 'Flat', 'House', 'Room']),
      'num-bedrooms': subset(['1', '2', '3', '4', '5', '5+', 'NA']),
      'include-aggregates': fc.constantFrom(['true'], ['false'], ['True']),
    },
    { requiredKeys: [] },
  );
  return fc.tuple(period, fc.oneof(defined, userDefined), factors).map(([p, { areas, ...where }, f]) => {
    const query = new Map<string, string[]>();
    for (const [name, values] of Object.entries({ ...where, ...areas, ...f })) {
      query.set(name, (values as string[]).map(encode));
    }
    query.set('period-ending', [p['period-ending']]);
    query.set('num-months', [p['num-months']]);
    return query;
  });
}

type Mutation = { name: string; kind: 'drop' | 'repeat' | 'replace'; values: string[] };

/** A coherent query with up to two parameters dropped, repeated or replaced by random values. */
function nearValidQuery(parameters: Parameter[]): fc.Arbitrary<string[]> {
  const mutation: fc.Arbitrary<Mutation> = fc.constantFrom(...parameters).chain((p) =>
    fc.record({
      name: fc.constant(p.name),
      kind: fc.constantFrom('drop', 'repeat', 'replace', 'replace', 'replace'),
      values: occurrences(p),
    }),
  );
  return fc.tuple(coherentQuery(), fc.array(mutation, { maxLength: 2 })).map(([query, mutations]) => {
    for (const { name, kind, values } of mutations) {
      const current = query.get(name) ?? [];
      if (kind === 'drop') query.delete(name);
      else if (kind === 'repeat') query.set(name, [...current, ...(values.length ? values : current)]);
      else query.set(name, values);
    }
    return [...query].flatMap(([name, values]) => values.map((v) => `${name}=${v}`));
  });
}

/** Every parameter random (hostile or valid-looking), each given 0, 1 or several times. */
function randomQuery(parameters: Parameter[]): fc.Arbitrary<string[]> {
  return fc
    .tuple(...parameters.map((p) => occurrences(p).map((vs) => vs.map((v) => `${p.name}=${v}`))))
    .map((pairs) => pairs.flat());
}

function calls(operation: Operation): fc.Arbitrary<Call> {
  const pathParameters = operation.parameters.filter((p) => p.in === 'path');
  const queryParameters = operation.parameters.filter((p) => p.in === 'query');
  const statistics = queryParameters.some((p) => p.name === 'period-ending');
  return fc
    .record({
      path: fc.tuple(...pathParameters.map((p) => parameterValue(p).map((v) => [p.name, v] as const))),
      query: statistics
        ? fc.oneof(
            { weight: 2, arbitrary: nearValidQuery(queryParameters) },
            { weight: 1, arbitrary: randomQuery(queryParameters) },
          )
        : randomQuery(queryParameters),
      extra: extraParameters,
      shuffle: fc.boolean(),
      accept: fc.constantFrom(...ACCEPT),
      body: operation.hasBody ? fc.jsonValue() : fc.constant(undefined),
    })
    .map(({ path, query, extra, shuffle, accept, body }) => {
      let target = operation.path;
      for (const [name, value] of path) target = target.replace(`{${name}}`, value);
      const pairs = [...query, ...extra];
      if (shuffle) pairs.reverse();
      const search = pairs.length ? `?${pairs.join('&')}` : '';
      return { method: operation.method, url: `${BASE}${target}${search}`, accept, body };
    });
}

async function send(call: Call): Promise<LightMyRequestResponse> {
  return gateway.app.inject({
    method: call.method as 'GET',
    url: call.url,
    headers: {
      'Ocp-Apim-Subscription-Key': key,
      ...(call.accept === undefined ? {} : { accept: call.accept }),
    },
    ...(call.body === undefined ? {} : { payload: JSON.stringify(call.body) }),
  });
}

/** The parameter names a 400 may name: the documented ones, their published spellings, what was sent. */
function fieldsOf(operation: Operation, url: string): Set<string> {
  const names = new Set(operation.parameters.map((p) => p.name));
  // The router's own refusals (broken percent-encoding in the path) name the path.
  names.add('path');
  if (names.has('areaDefinition')) names.add('area-definition');
  const search = url.split('?')[1] ?? '';
  for (const pair of search.split('&')) {
    const name = pair.split('=')[0] ?? '';
    try {
      const decoded = decodeURIComponent(name);
      names.add(decoded.replaceAll('\u0000', '\\u0000'));
    } catch {
      names.add(name); // the query parser keeps a name it cannot decode as written
    }
  }
  return names;
}

/** Below 500, and every 4xx is the service's problem+json naming the parameter. */
function expectServiceAnswer(operation: Operation, call: Call, response: LightMyRequestResponse): void {
  const where = `${call.method} ${call.url.slice(0, 300)} (Accept: ${call.accept}) → ${response.statusCode} ${response.body.slice(0, 300)}`;
  expect(response.statusCode, where).toBeLessThan(500);
  if (response.statusCode < 400) return;
  expect(response.headers['content-type'], where).toBe('application/problem+json; charset=utf-8');
  const problem = response.json();
  expect(problem, where).toMatchObject({
    type: expect.stringMatching(/^about:blank#/),
    title: expect.any(String),
    status: response.statusCode,
    detail: expect.any(String),
  });
  if (response.statusCode === 400) {
    expect(problem.errors, where).toEqual([{ field: expect.any(String), message: expect.any(String) }]);
    const field = problem.errors[0].field as string;
    // A repeated parameter is an array: the platform's NUL check names its element (`area-codes.1`).
    const parameter = field.replace(/\.\d+$/, '');
    expect(fieldsOf(operation, call.url).has(parameter), `${where}: field "${field}"`).toBe(true);
    expect(problem.detail, where).toContain(field);
  }
}

describe('no input gives a 500 (fuzzed from the OpenAPI document)', () => {
  it('serves the operations the fuzzing expects', () => {
    expect(operations.map((o) => `${o.method} ${o.path}`)).toEqual([
      'GET /area-definition/{areaDefinition}/area-labels',
      'GET /area-definitions',
      'GET /area-definitions/{areaDefinition}',
      'GET /statistics',
    ]);
  });

  it.each([
    ['GET /statistics', STATISTICS_RUNS],
    ['GET /area-definitions', LISTING_RUNS],
    ['GET /area-definitions/{areaDefinition}', LISTING_RUNS],
    ['GET /area-definition/{areaDefinition}/area-labels', LISTING_RUNS],
  ])('%s', async (name, numRuns) => {
    const operation = operations.find((o) => `${o.method} ${o.path}` === name);
    expect(operation).toBeDefined();
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(calls(operation!), async (call) => {
        const response = await send(call);
        statuses.set(response.statusCode, (statuses.get(response.statusCode) ?? 0) + 1);
        expectServiceAnswer(operation!, call, response);
      }),
      { seed: SEED, numRuns },
    );
    // The random input must reach past validation, not only bounce off it.
    expect(statuses.get(200) ?? 0, JSON.stringify([...statuses])).toBeGreaterThan(0);
    if (operation!.parameters.some((p) => p.required)) {
      expect(statuses.get(400) ?? 0, JSON.stringify([...statuses])).toBeGreaterThan(0);
    }
  });
});

import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { expectCatalogued, PROBLEM_CODES } from './error-codes.ts';

/**
 * Shared arbitraries for the "no 500s" property tests: hostile strings and values of the wrong shape.
 * Every property runs with a fixed seed so a failure replays exactly.
 */
const JUNK_CONSTANTS = [
  '',
  ' ',
  '\t\n',
  '%00',
  '\u0000',
  'a\u0000b',
  '%',
  '%%',
  '%zz',
  '%E0%A4%A',
  '%C0%80',
  '%ED%A0%80',
  '%FF%FE',
  '+',
  '&',
  '=',
  '&=&=',
  '..',
  '../../etc/passwd',
  'null',
  'undefined',
  'NaN',
  'Infinity',
  '-Infinity',
  '-1',
  '0',
  '1e309',
  '9'.repeat(40),
  '[]',
  '{}',
  'true',
  '<script>alert(1)</script>',
  "' OR 1=1 --",
  '\uFEFF',
  '\u202E',
  'Ω≈ç√',
  'Ōtāhuhu',
  '😀👍🏽',
  '\\',
  '//evil.example',
  'javascript:alert(1)',
  '__proto__',
  'constructor',
  'x'.repeat(5000),
  '😀'.repeat(3000),
];

export const junkString: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...JUNK_CONSTANTS) },
  { weight: 2, arbitrary: fc.string({ maxLength: 30 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 30 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom('a', 'é', '%', '\u0000', '😀'), fc.integer({ min: 200, max: 20_000 }))
      .map(([c, n]) => c.repeat(n)),
  },
);

/** A JSON value of any shape, strings drawn from `junkString`. */
export const junkJson: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    junkString,
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(junkString, tie('value'), { maxKeys: 4 }),
  ),
})).value;

/** An object with some of `keys` (each of any shape) and maybe an unknown key. */
export function junkObject(keys: string[], values: fc.Arbitrary<unknown> = junkJson) {
  return fc
    .record(
      {
        ...Object.fromEntries(keys.map((key) => [key, values])),
        extra: fc.tuple(junkString, junkJson),
      },
      { requiredKeys: [] },
    )
    .map(({ extra, ...rest }) => (extra ? { ...rest, [extra[0]]: extra[1] } : rest));
}

/** A form field value: one string, several, or absent. */
export const junkFormValue: fc.Arbitrary<string | string[] | undefined> = fc.oneof(
  { weight: 4, arbitrary: junkString },
  { weight: 1, arbitrary: fc.array(junkString, { minLength: 2, maxLength: 4 }) },
  { weight: 1, arbitrary: fc.constant(undefined) },
);

/** application/x-www-form-urlencoded text for `form`, with raw junk appended now and then. */
export function formBody(form: Record<string, string | string[] | undefined>, raw = ''): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(form)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) params.append(name, item);
  }
  const text = params.toString();
  return raw ? `${text}${text ? '&' : ''}${raw}` : text;
}

/** Raw, possibly malformed, urlencoded fragments. */
export const rawFormJunk: fc.Arbitrary<string> = fc.constantFrom(
  '',
  '',
  '',
  '%',
  '%zz=1',
  'a=%',
  '=%00',
  '%00=%00',
  'x[]=1&x[]=2',
  'x[a]=1',
  '&&&',
  '=',
  'email=%E0%A4%A',
  '__proto__[x]=1',
  'client_id=\u0000',
  'x=a\u0000b',
);

/** Query strings of junk parameters (names and values), raw junk mixed in. */
export function junkQuery(names: string[]): fc.Arbitrary<string> {
  return fc
    .tuple(
      fc.array(fc.tuple(fc.oneof(fc.constantFrom(...names), junkString), junkString), { maxLength: 8 }),
      rawFormJunk,
    )
    .map(([pairs, raw]) => {
      const params = new URLSearchParams();
      for (const [name, value] of pairs) params.append(name, value.slice(0, 3000));
      const text = params.toString();
      return raw ? `${text}${text ? '&' : ''}${raw}` : text;
    });
}

/**
 * fast-check parameters: a fixed seed, so every run sends the same requests. FUZZ_SEED=<n> shifts every
 * seed to explore other inputs by hand (a failure prints the seed and path that replay it).
 */
export const runs = (seed: number, numRuns: number) => ({
  seed: seed + Number(process.env.FUZZ_SEED ?? 0),
  numRuns,
  endOnFailure: true,
});

/** The response was not a server error; on failure, the message shows the request and the body. */
export function expectNo500(response: LightMyRequestResponse, what: unknown): void {
  if (response.statusCode >= 500) {
    expect.fail(
      `${response.statusCode} for ${JSON.stringify(what).slice(0, 2000)}\n${response.body.slice(0, 2000)}`,
    );
  }
  expect(response.body).not.toMatch(/\n\s+at [^\n]+:\d+:\d+/);
}

/** An application/problem+json body whose status matches the response's. */
export function expectProblem(response: LightMyRequestResponse): Record<string, unknown> {
  expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
  const body = response.json() as Record<string, unknown>;
  expect(body).toMatchObject({ status: response.statusCode, title: expect.any(String) });
  expect(typeof body.detail).toBe('string');
  expect(String(body.type)).toMatch(/^about:blank#/);
  expectCatalogued(
    String(body.type).replace('about:blank#', ''),
    response.statusCode,
    PROBLEM_CODES,
    'problem type',
  );
  if (body.errors !== undefined) {
    for (const error of body.errors as unknown[]) {
      expect(error).toEqual({ field: expect.any(String), message: expect.any(String) });
    }
  }
  return body;
}

/**
 * Every field error of a problem names `field` (or a part of it, e.g. `duration.0`). A body the JSON
 * parser refuses (malformed, or a `__proto__` key) names no field: its problem type is the parser's code.
 */
export function expectFieldErrors(problem: Record<string, unknown>, field: string): void {
  const errors = problem.errors as { field: string; message: string }[] | undefined;
  if (errors === undefined && String(problem.type).startsWith('about:blank#fst_err_')) return;
  const ok =
    Array.isArray(errors) &&
    errors.length > 0 &&
    errors.every((e) => e.field === field || e.field.startsWith(`${field}.`));
  if (!ok) expect.fail(`errors should name ${field}: ${JSON.stringify(errors).slice(0, 500)}`);
}

// ---------------------------------------------------------------------------------------------------
// Values for the operation fuzzer (fuzz-operations.ts): hostile strings and values of any shape, dates
// of every kind, JSON nested too deep to walk.

const LONG = [256, 5_000, 100_000];
const nest = (depth: number, leaf: unknown = 1): unknown => {
  let value = leaf;
  for (let i = 0; i < depth; i++) value = i % 2 ? { a: value } : [value];
  return value;
};

/** JSON nested deeper than a recursive walk of it can go (as text: JSON.stringify would recurse too). */
export class Deep {
  constructor(readonly text: string) {}
}
export const deepJson = fc
  .tuple(fc.constantFrom(20_000, 100_000), fc.boolean())
  .map(([depth, arrays]) =>
    arrays
      ? new Deep(`{"a":${'['.repeat(depth)}${']'.repeat(depth)}}`)
      : new Deep(`${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`),
  );

/** Impossible, out-of-range and odd dates, and dates built from random (often impossible) parts. */
export const dateText = fc.oneof(
  fc.constantFrom(
    '2024-02-01',
    '2024-02-29',
    '2023-02-29',
    '2031-02-30',
    '2024-04-31',
    '2024-13-01',
    '2024-00-10',
    '2024-01-00',
    '0000-01-01',
    '0001-01-01',
    '0099-12-31',
    '1899-12-31',
    '9999-12-31',
    '+275760-09-13',
    '-000001-01-01',
    '2024-1-1',
    '20240101',
    '2024-06-01T10:00:00',
    '2024-06-01T10:00:00.000+1200',
    '2024-06-01T10:00:00Z',
    '2024-06-01T24:00:00',
    '2024-06-01T23:59:60Z',
    '2024-06-01T10:00:00+25:00',
    '2024-06-01T10:00:00.000+9999',
    '2024-06-01T10:00:00.000+1200junk',
    '0000-01-01T00:00:00.000+1400',
    '9999-12-31T23:59:59.999-1400',
    '2024-06-01 10:00',
    'yesterday',
    '1e3',
  ),
  fc
    .record({
      year: fc.integer({ min: 0, max: 99_999 }),
      month: fc.integer({ min: 0, max: 13 }),
      day: fc.integer({ min: 0, max: 32 }),
      time: fc.option(
        fc.record({
          hour: fc.integer({ min: 0, max: 25 }),
          minute: fc.integer({ min: 0, max: 61 }),
          offset: fc.constantFrom('', 'Z', '+1200', '+13:00', '-1400', '+2500'),
        }),
      ),
    })
    .map(({ year, month, day, time }) => {
      const pad = (n: number, width = 2) => String(n).padStart(width, '0');
      const date = `${pad(year, 4)}-${pad(month)}-${pad(day)}`;
      return time ? `${date}T${pad(time.hour)}:${pad(time.minute)}:00.000${time.offset}` : date;
    }),
);

export const httpDate = fc.constantFrom(
  'Wed, 21 Oct 2015 07:28:00 GMT',
  'Thu, 31 Feb 2031 00:00:00 GMT',
  'Mon, 01 Jan 0000 00:00:00 GMT',
  'Fri, 31 Dec 275760 23:59:59 GMT',
  'not a date',
  '0',
  '-1',
  '',
);

export const hostileString = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    '\t\n',
    'null',
    'undefined',
    'true',
    '0',
    '-1',
    '1.5',
    '1e309',
    'NaN',
    'Infinity',
    '99999999999999999999999',
    '-0',
    '0x1F',
    '١٢٣٤٥٦٧٨٩٠١٢٣',
    "'; DROP TABLE users; --",
    '%',
    '%zz',
    '%00',
    '%C0%AF',
    '%E0%A4%A',
    '%25',
    '%2e%2e%2f',
    '../../etc/passwd',
    '\u0000',
    'a\u0000b',
    '\uD800',
    '\uFFFF',
    '\u202Eevil',
    'Ōtāhuhu Māori Ltd',
    '😀🔥',
    '𝕏𝕐',
    '<script>alert(1)</script>',
    '{"a":1}',
    '[]',
    '__proto__',
    'constructor',
    'hasOwnProperty',
  ),
  fc.string({ unit: 'grapheme', maxLength: 30 }),
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.constantFrom(...LONG).map((n) => 'x'.repeat(n)),
  fc.constantFrom(...LONG).map((n) => 'ā'.repeat(n)),
  dateText,
);

export const hostile: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: hostileString },
  fc.constantFrom(null, true, false, 0, -1, 1.5, 2 ** 31, 2 ** 53 + 2, -(2 ** 63), 1e308, -1e308),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom([], [null], [''], {}, { a: null }, JSON.parse('{"__proto__":{"x":1}}'), {
    constructor: { prototype: 1 },
  }),
  fc.constantFrom(5, 50, 2_000).map((depth) => nest(depth)),
  fc.array(hostileString, { maxLength: 4 }),
);

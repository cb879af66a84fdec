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

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { glnCheckDigit, glnProblem, isValidGln, withCheckDigit } from '../../../src/platform/gs1.ts';

const REAL_NUMBERS = ['9429000035170', '9429032530384', '9429041925676', '9429046246448'];
const twelveDigits = fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: 12, maxLength: 12 });

describe('GS1 GLN check digit', () => {
  it.each(REAL_NUMBERS)('accepts the real business number %s', (nzbn) => {
    expect(isValidGln(nzbn)).toBe(true);
    expect(glnProblem(nzbn)).toBeNull();
    expect(withCheckDigit(nzbn.slice(0, 12))).toBe(nzbn);
  });

  it.each([
    ['942900003517', 0],
    ['942903253038', 4],
    ['942904192567', 6],
    ['000000000000', 0],
    ['000000000001', 7],
    ['100000000000', 9],
  ])('computes the check digit of %s as %i', (prefix, digit) => {
    expect(glnCheckDigit(prefix)).toBe(digit);
  });

  it.each([
    ['', 'not 13 digits'],
    ['942900003517', 'not 13 digits'],
    ['94290000351700', 'not 13 digits'],
    ['942900003517a', 'not 13 digits'],
    ['9429 00003517', 'not 13 digits'],
    ['９４２９００００３５１７０', 'not 13 digits'],
    ['9429000035171', 'wrong check digit, expected 0'],
    ['9429032530380', 'wrong check digit, expected 4'],
  ])('rejects %j: %s', (value, message) => {
    expect(isValidGln(value)).toBe(false);
    expect(glnProblem(value)?.message).toBe(message);
  });

  it('names the expected digit as a number', () => {
    expect(glnProblem('9429041925670')).toEqual({
      rule: 'wrong check digit',
      expected: 6,
      message: 'wrong check digit, expected 6',
    });
  });

  it('refuses to compute a check digit for anything but 12 digits', () => {
    expect(() => glnCheckDigit('94290000351')).toThrow(RangeError);
    expect(() => glnCheckDigit('9429000035170')).toThrow(RangeError);
  });

  it('makes every 12-digit prefix into a valid GLN with exactly one valid check digit', () => {
    fc.assert(
      fc.property(twelveDigits, (prefix) => {
        expect(isValidGln(withCheckDigit(prefix))).toBe(true);
        const valid = [...'0123456789'].filter((digit) => isValidGln(prefix + digit));
        expect(valid).toEqual([String(glnCheckDigit(prefix))]);
      }),
    );
  });

  it('detects any single-digit change', () => {
    fc.assert(
      fc.property(
        twelveDigits,
        fc.integer({ min: 0, max: 12 }),
        fc.integer({ min: 1, max: 9 }),
        (prefix, position, delta) => {
          const gln = withCheckDigit(prefix);
          const changed = (Number(gln[position]) + delta) % 10;
          const altered = gln.slice(0, position) + changed + gln.slice(position + 1);
          expect(isValidGln(altered)).toBe(false);
        },
      ),
    );
  });
});

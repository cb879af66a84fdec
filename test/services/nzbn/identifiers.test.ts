import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  abnForAcn,
  acnCheckDigit,
  bankAccountProblem,
  formatBankAccount,
  irdCheckDigit,
  irdNumberProblem,
  isValidAbn,
  isValidAcn,
  isValidBankAccount,
  isValidIrdNumber,
  normaliseIrdNumber,
  parseBankAccount,
} from '../../../src/services/nzbn/domain/identifiers.ts';

describe('IRD (GST) numbers', () => {
  it.each([
    ['49091850', null],
    ['35901981', null],
    // Needs the secondary weights: the primary ones give a check digit of 10.
    ['49098576', null],
    ['136410132', null],
    ['123392094', null],
    ['123-392-094', null],
    ['136410133', 'wrong check digit'],
    ['9125568', 'not 8 or 9 digits'],
    ['1234567890', 'not 8 or 9 digits'],
    ['12a456789', 'not 8 or 9 digits'],
    ['10000000', 'outside the IRD number range'],
    ['150000000', 'outside the IRD number range'],
    ['199999999', 'outside the IRD number range'],
  ])('%s: %s', (number, problem) => {
    expect(irdNumberProblem(number)).toBe(problem);
    expect(isValidIrdNumber(number)).toBe(problem === null);
  });

  it('normalises separators', () => {
    expect(normaliseIrdNumber(' 49-091-850 ')).toBe('49091850');
    expect(normaliseIrdNumber('49.091.850')).toBeNull();
  });

  it('accepts exactly the check digit it computes for any base in range', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1_000_001, max: 14_999_999 }), (base) => {
        const check = irdCheckDigit(base);
        for (let digit = 0; digit <= 9; digit++) {
          expect(isValidIrdNumber(String(base * 10 + digit))).toBe(digit === check);
        }
      }),
    );
  });
});

describe('New Zealand bank account numbers', () => {
  it.each([
    ['01-0902-0068389-00', null],
    ['01-902-0068389-00', 'not in the form BB-bbbb-AAAAAAA-SSS'],
    ['08-6523-1954512-001', null],
    ['26-2600-0320871-032', null],
    ['12-3140-0171323-50', null],
    ['12-3140-0171324-50', 'wrong check digit'],
    ['99-3140-0171323-50', 'unknown bank'],
    ['31-2800-0320871-032', null],
    ['123140017132350', null],
    ['12 3140 0171323 50', null],
  ])('%s: %s', (number, problem) => {
    expect(bankAccountProblem(number)).toBe(problem);
  });

  it('parses and formats the parts', () => {
    const parts = parseBankAccount('01-0902-0068389-00');
    expect(parts).toEqual({ bank: 1, branch: 902, account: 68389, suffix: 0 });
    expect(formatBankAccount(parts!)).toBe('01-0902-0068389-00');
    expect(formatBankAccount({ bank: 38, branch: 9000, account: 1234567, suffix: 1 }, 3)).toBe(
      '38-9000-1234567-001',
    );
  });

  it('detects a single changed account digit under algorithm A', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 6 }), fc.integer({ min: 1, max: 9 }), (position, delta) => {
        const digits = '0068389'.split('');
        digits[position] = String((Number(digits[position]) + delta) % 10);
        expect(isValidBankAccount(`01-0902-${digits.join('')}-00`)).toBe(false);
      }),
    );
  });
});

describe('Australian company and business numbers', () => {
  it.each([
    ['000000019', true],
    ['005749986', true],
    ['010499966', true],
    ['005749987', false],
    ['00574998', false],
  ])('ACN %s valid: %s', (acn, valid) => {
    expect(isValidAcn(acn)).toBe(valid);
  });

  it.each([
    ['51824753556', true],
    ['51 824 753 556', true],
    ['51824753557', false],
    ['01824753556', false],
    ['5182475355', false],
  ])('ABN %s valid: %s', (abn, valid) => {
    expect(isValidAbn(abn)).toBe(valid);
  });

  it('finds an ABN for any ACN, ending in the ACN', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 99_999_999 }), (n) => {
        const first8 = String(n).padStart(8, '0');
        const acn = first8 + acnCheckDigit(first8);
        expect(isValidAcn(acn)).toBe(true);
        const abn = abnForAcn(acn);
        expect(isValidAbn(abn)).toBe(true);
        expect(abn.slice(2)).toBe(acn);
      }),
    );
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isValidGln } from '../../../src/platform/gs1.ts';
import {
  companyNumberForIndex,
  FIRST_STORE_UNIQUE_IDENTIFIER,
  FIXTURE_INDEX_START,
  fixtureNzbn,
  GENERATED_BODY_COUNT,
  GENERATED_BODY_START,
  indexForNzbn,
  MAX_GENERATED_INDEX,
  nzbnForIndex,
  nzbnFromBody,
  REGISTRATION_BODY_START,
  uniqueIdentifier,
} from '../../../src/services/nzbn/sandbox/numbers.ts';

const bodyOf = (nzbn: string) => Number(nzbn.slice(4, 12));
const anyIndex = fc.integer({ min: 0, max: GENERATED_BODY_COUNT - 1 });

describe('business numbers of generated entities', () => {
  it('are valid GLNs starting 9429, inside the generated range', () => {
    fc.assert(
      fc.property(anyIndex, (index) => {
        const nzbn = nzbnForIndex(index);
        expect(nzbn).toMatch(/^9429\d{9}$/);
        expect(isValidGln(nzbn)).toBe(true);
        expect(bodyOf(nzbn)).toBeGreaterThanOrEqual(GENERATED_BODY_START);
        expect(bodyOf(nzbn)).toBeLessThan(REGISTRATION_BODY_START);
      }),
    );
  });

  it('are unique over the national scale and do not run in sequence', () => {
    const seen = new Set<string>();
    for (let index = 0; index < 800_000; index++) seen.add(nzbnForIndex(index));
    expect(seen.size).toBe(800_000);
    expect(Math.abs(bodyOf(nzbnForIndex(1)) - bodyOf(nzbnForIndex(0)))).toBeGreaterThan(1_000);
  });

  it('lead back to their index', () => {
    fc.assert(
      fc.property(anyIndex, (index) => {
        expect(indexForNzbn(nzbnForIndex(index))).toBe(index);
      }),
    );
  });

  it.each(['9429000035170', '942900003517', '9429000001007', '9429700000005', 'abc'])(
    'give no index for %s (not generated)',
    (nzbn) => {
      expect(indexForNzbn(nzbn)).toBeUndefined();
    },
  );

  it('refuse indexes outside the plan', () => {
    expect(() => nzbnForIndex(-1)).toThrow(RangeError);
    expect(() => nzbnForIndex(GENERATED_BODY_COUNT)).toThrow(RangeError);
    expect(() => nzbnForIndex(1.5)).toThrow(RangeError);
    expect(MAX_GENERATED_INDEX).toBeLessThan(FIXTURE_INDEX_START);
  });
});

describe('fixture business numbers', () => {
  it('are fixed, valid and outside the generated range', () => {
    expect(fixtureNzbn(0)).toBe(nzbnFromBody(100));
    expect(fixtureNzbn(0)).toMatch(/^94290000010\d\d$/);
    for (let n = 0; n < 900; n++) {
      const nzbn = fixtureNzbn(n);
      expect(isValidGln(nzbn)).toBe(true);
      expect(bodyOf(nzbn)).toBeLessThan(GENERATED_BODY_START);
    }
    expect(() => fixtureNzbn(900)).toThrow(RangeError);
  });
});

describe('company numbers and sub-item identifiers', () => {
  it('gives seven-digit company numbers, unique per index', () => {
    const seen = new Set<string>();
    const malformed: string[] = [];
    for (let index = 0; index < 200_000; index++) {
      const number = companyNumberForIndex(index);
      if (!/^[1-9]\d{6}$/.test(number)) malformed.push(number);
      seen.add(number);
    }
    expect(malformed).toEqual([]);
    expect(seen.size).toBe(200_000);
  });

  it('gives identifiers unique over entities and slots, below the store range', () => {
    const seen = new Set<string>();
    for (const index of [0, 1, 2, 999_999, MAX_GENERATED_INDEX, FIXTURE_INDEX_START + 899]) {
      for (let slot = 0; slot < 100; slot++) seen.add(uniqueIdentifier(index, slot));
    }
    expect(seen.size).toBe(600);
    expect(Number(uniqueIdentifier(GENERATED_BODY_COUNT - 1, 99))).toBeLessThan(
      FIRST_STORE_UNIQUE_IDENTIFIER,
    );
    expect(() => uniqueIdentifier(0, 100)).toThrow(RangeError);
  });
});

import { describe, expect, it } from 'vitest';
import {
  ANZSIC_DIVISIONS,
  BIC_CODES,
  bicCodesInDivision,
  DIVISION_LETTERS,
  divisionOfAnzsicClass,
  findBic,
  hasBicFormat,
} from '../../../src/services/nzbn/domain/bic.ts';

describe('Business Industry Classification codes', () => {
  it('has a few hundred entries, each code once', () => {
    expect(BIC_CODES.length).toBeGreaterThanOrEqual(300);
    expect(new Set(BIC_CODES.map((bic) => bic.code)).size).toBe(BIC_CODES.length);
  });

  it('writes every code as a division letter and six digits, with a description', () => {
    for (const bic of BIC_CODES) {
      expect(bic.code).toMatch(/^[A-S]\d{6}$/);
      expect(bic.description.trim().length).toBeGreaterThan(3);
    }
  });

  it('puts every code in the ANZSIC 2006 division its class belongs to', () => {
    for (const bic of BIC_CODES) expect(divisionOfAnzsicClass(bic.anzsicClass)).toBe(bic.division);
  });

  it('covers every division A to S', () => {
    for (const letter of DIVISION_LETTERS) expect(bicCodesInDivision(letter).length).toBeGreaterThan(3);
  });

  it.each([
    ['C121220', 'Breweries', 'C', '1212'],
    ['I490008', 'Air transport - scheduled passenger', 'I', '4900'],
    ['M700010', 'Computer software development', 'M', '7000'],
    ['L671110', 'Residential property operators', 'L', '6711'],
  ])('knows %s (%s)', (code, description, division, anzsicClass) => {
    expect(findBic(code)).toEqual({ code, description, division, anzsicClass });
  });

  it.each([
    ['I490008', true],
    ['i490008', false],
    ['T490008', false],
    ['I49000', false],
    ['I4900080', false],
  ])('checks the format of %s: %s', (code, expected) => {
    expect(hasBicFormat(code)).toBe(expected);
  });

  it('answers undefined for a well-formed code not in the list', () => {
    expect(findBic('A999999')).toBeUndefined();
  });

  it('maps two-digit subdivisions onto divisions without gaps inside a division', () => {
    expect(divisionOfAnzsicClass('0160')).toBe('A');
    expect(divisionOfAnzsicClass('2611')).toBe('D');
    expect(divisionOfAnzsicClass('6100')).toBeUndefined();
    expect(divisionOfAnzsicClass('9700')).toBeUndefined();
    expect(ANZSIC_DIVISIONS.S.subdivisions).toEqual([94, 96]);
  });
});

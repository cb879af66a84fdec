/**
 * Business Industry Classification (BIC) codes: lookup and format rules over the reconstructed list in
 * `bic-data.ts`. A code is an ANZSIC 2006 division letter, a four-digit ANZSIC 2006 class and a
 * two-digit activity number, e.g. `I490008`.
 */
import { BIC_ENTRIES } from './bic-data.ts';

export type DivisionLetter = (typeof DIVISION_LETTERS)[number];

export const DIVISION_LETTERS = [
  'A',
  'B',
  'C',
  'D',
  'E',
  'F',
  'G',
  'H',
  'I',
  'J',
  'K',
  'L',
  'M',
  'N',
  'O',
  'P',
  'Q',
  'R',
  'S',
] as const;

export interface AnzsicDivision {
  readonly letter: DivisionLetter;
  readonly name: string;
  /** First and last two-digit ANZSIC 2006 subdivision of the division, inclusive. */
  readonly subdivisions: readonly [number, number];
}

/** ANZSIC 2006 divisions (Australian Bureau of Statistics / Stats NZ, catalogue 1292.0). */
export const ANZSIC_DIVISIONS: Readonly<Record<DivisionLetter, AnzsicDivision>> = {
  A: { letter: 'A', name: 'Agriculture, Forestry and Fishing', subdivisions: [1, 5] },
  B: { letter: 'B', name: 'Mining', subdivisions: [6, 10] },
  C: { letter: 'C', name: 'Manufacturing', subdivisions: [11, 25] },
  D: { letter: 'D', name: 'Electricity, Gas, Water and Waste Services', subdivisions: [26, 29] },
  E: { letter: 'E', name: 'Construction', subdivisions: [30, 32] },
  F: { letter: 'F', name: 'Wholesale Trade', subdivisions: [33, 38] },
  G: { letter: 'G', name: 'Retail Trade', subdivisions: [39, 43] },
  H: { letter: 'H', name: 'Accommodation and Food Services', subdivisions: [44, 45] },
  I: { letter: 'I', name: 'Transport, Postal and Warehousing', subdivisions: [46, 53] },
  J: { letter: 'J', name: 'Information Media and Telecommunications', subdivisions: [54, 60] },
  K: { letter: 'K', name: 'Financial and Insurance Services', subdivisions: [62, 64] },
  L: { letter: 'L', name: 'Rental, Hiring and Real Estate Services', subdivisions: [66, 67] },
  M: { letter: 'M', name: 'Professional, Scientific and Technical Services', subdivisions: [69, 70] },
  N: { letter: 'N', name: 'Administrative and Support Services', subdivisions: [72, 73] },
  O: { letter: 'O', name: 'Public Administration and Safety', subdivisions: [75, 77] },
  P: { letter: 'P', name: 'Education and Training', subdivisions: [80, 82] },
  Q: { letter: 'Q', name: 'Health Care and Social Assistance', subdivisions: [84, 87] },
  R: { letter: 'R', name: 'Arts and Recreation Services', subdivisions: [89, 92] },
  S: { letter: 'S', name: 'Other Services', subdivisions: [94, 96] },
};

export interface BicCode {
  readonly code: string;
  readonly description: string;
  readonly division: DivisionLetter;
  /** The four-digit ANZSIC 2006 class. */
  readonly anzsicClass: string;
}

const BIC_FORMAT = /^[A-S]\d{6}$/;

/** Whether a string has the shape of a BIC code (letter A–S and six digits); says nothing of the list. */
export function hasBicFormat(value: string): boolean {
  return BIC_FORMAT.test(value);
}

/** The ANZSIC division a four-digit class belongs to, or undefined when no division holds it. */
export function divisionOfAnzsicClass(anzsicClass: string): DivisionLetter | undefined {
  const subdivision = Number(anzsicClass.slice(0, 2));
  return DIVISION_LETTERS.find((letter) => {
    const [first, last] = ANZSIC_DIVISIONS[letter].subdivisions;
    return subdivision >= first && subdivision <= last;
  });
}

export const BIC_CODES: readonly BicCode[] = BIC_ENTRIES.map(([code, description]) => ({
  code,
  description,
  division: code[0] as DivisionLetter,
  anzsicClass: code.slice(1, 5),
}));

const BY_CODE = new Map(BIC_CODES.map((bic) => [bic.code, bic]));

export function findBic(code: string): BicCode | undefined {
  return BY_CODE.get(code);
}

const BY_DIVISION = new Map<DivisionLetter, readonly BicCode[]>(
  DIVISION_LETTERS.map((letter) => [letter, BIC_CODES.filter((bic) => bic.division === letter)]),
);

export function bicCodesInDivision(letter: DivisionLetter): readonly BicCode[] {
  return BY_DIVISION.get(letter) ?? [];
}

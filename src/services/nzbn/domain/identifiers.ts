/**
 * Check-digit rules for the other numbers an entity record carries: GST numbers (IRD numbers, mod 11),
 * New Zealand bank account numbers (the payments industry's per-bank algorithms), and the Australian
 * Company Number (ACN) and Business Number (ABN) of ASIC companies. Updates to Primary Business Data
 * validate with these; the sandbox generator produces numbers that pass them.
 */

const digitsOf = (text: string): number[] => Array.from(text, (char) => char.charCodeAt(0) - 48);

// ---------------------------------------------------------------------------------------------
// IRD / GST numbers (Inland Revenue's published validation, revised 2011)

const IRD_PRIMARY_WEIGHTS = [3, 2, 7, 6, 5, 4, 3, 2] as const;
const IRD_SECONDARY_WEIGHTS = [7, 4, 3, 2, 5, 2, 7, 6] as const;
export const IRD_MIN = 10_000_000;
export const IRD_MAX = 150_000_000;

/**
 * The check digit for an IRD number's base (its digits without the last), or null when the base has
 * no valid check digit (both weightings give 10). The base is read as an eight-digit number.
 */
export function irdCheckDigit(base: number): number | null {
  const digits = digitsOf(String(base).padStart(8, '0'));
  for (const weights of [IRD_PRIMARY_WEIGHTS, IRD_SECONDARY_WEIGHTS]) {
    let sum = 0;
    for (let i = 0; i < 8; i++) sum += digits[i]! * weights[i]!;
    const remainder = sum % 11;
    const check = remainder === 0 ? 0 : 11 - remainder;
    if (check !== 10) return check;
  }
  return null;
}

/** Normalises "123-392-094" or "123 392 094" to digits; null when anything else is present. */
export function normaliseIrdNumber(text: string): string | null {
  const digits = text.replace(/[\s-]/g, '');
  return /^\d{8,9}$/.test(digits) ? digits : null;
}

export type IrdProblem = 'not 8 or 9 digits' | 'outside the IRD number range' | 'wrong check digit';

/** Validates an IRD (GST) number, naming the broken rule; null when valid. */
export function irdNumberProblem(text: string): IrdProblem | null {
  const digits = normaliseIrdNumber(text);
  if (digits === null) return 'not 8 or 9 digits';
  const value = Number(digits);
  if (value <= IRD_MIN || value >= IRD_MAX) return 'outside the IRD number range';
  const check = irdCheckDigit(Math.floor(value / 10));
  return check === value % 10 ? null : 'wrong check digit';
}

export function isValidIrdNumber(text: string): boolean {
  return irdNumberProblem(text) === null;
}

// ---------------------------------------------------------------------------------------------
// New Zealand bank account numbers: bank-branch-account-suffix, e.g. 12-3140-0171323-50

type Algorithm = 'A' | 'B' | 'D' | 'E' | 'F' | 'G' | 'X';

/** Weights over the 18 digits BB bbbb AAAAAAAA SSSS, the modulus, and whether products' digits are added. */
const ALGORITHMS: Readonly<
  Record<Algorithm, { weights: readonly number[]; modulus: number; addDigits: boolean }>
> = {
  A: { weights: [0, 0, 6, 3, 7, 9, 0, 0, 10, 5, 8, 4, 2, 1, 0, 0, 0, 0], modulus: 11, addDigits: false },
  B: { weights: [0, 0, 0, 0, 0, 0, 0, 0, 10, 5, 8, 4, 2, 1, 0, 0, 0, 0], modulus: 11, addDigits: false },
  D: { weights: [0, 0, 0, 0, 0, 0, 0, 7, 6, 5, 4, 3, 2, 1, 0, 0, 0, 0], modulus: 11, addDigits: false },
  E: { weights: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5, 4, 3, 2, 0, 0, 0, 1], modulus: 11, addDigits: true },
  F: { weights: [0, 0, 0, 0, 0, 0, 0, 1, 7, 3, 1, 7, 3, 1, 0, 0, 0, 0], modulus: 10, addDigits: false },
  G: { weights: [0, 0, 0, 0, 0, 0, 0, 1, 3, 7, 1, 3, 7, 1, 0, 3, 7, 1], modulus: 10, addDigits: true },
  X: { weights: new Array(18).fill(0), modulus: 1, addDigits: false },
};

/** Banks whose accounts use algorithm A below account 990000 and B from it. */
const A_OR_B_BANKS = new Set([
  1, 2, 3, 6, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 27, 30, 35, 38,
]);
const OTHER_BANKS: Readonly<Record<number, Algorithm>> = {
  8: 'D',
  9: 'E',
  25: 'F',
  33: 'F',
  26: 'G',
  28: 'G',
  29: 'G',
  31: 'X',
};

function algorithmFor(bank: number, account: number): Algorithm | undefined {
  if (A_OR_B_BANKS.has(bank)) return account < 990_000 ? 'A' : 'B';
  return OTHER_BANKS[bank];
}

export interface BankAccountParts {
  readonly bank: number;
  readonly branch: number;
  readonly account: number;
  readonly suffix: number;
}

const BANK_ACCOUNT = /^(\d{2})[- ]?(\d{4})[- ]?(\d{7,8})[- ]?(\d{2,4})$/;

export function parseBankAccount(text: string): BankAccountParts | null {
  const match = BANK_ACCOUNT.exec(text.trim());
  if (!match) return null;
  return {
    bank: Number(match[1]),
    branch: Number(match[2]),
    account: Number(match[3]),
    suffix: Number(match[4]),
  };
}

/** The weighted sum of an account under its algorithm, reduced by the modulus (0 means valid). */
export function bankAccountRemainder(parts: BankAccountParts): number | null {
  const algorithm = algorithmFor(parts.bank, parts.account);
  if (!algorithm) return null;
  const { weights, modulus, addDigits } = ALGORITHMS[algorithm];
  const digits = digitsOf(
    String(parts.bank).padStart(2, '0') +
      String(parts.branch).padStart(4, '0') +
      String(parts.account).padStart(8, '0') +
      String(parts.suffix).padStart(4, '0'),
  );
  let sum = 0;
  for (let i = 0; i < 18; i++) {
    let product = digits[i]! * weights[i]!;
    // Algorithms E and G add the digits of a two-digit product (until one digit is left).
    while (addDigits && product >= 10) product = Math.floor(product / 10) + (product % 10);
    sum += product;
  }
  return sum % modulus;
}

export type BankAccountProblem = 'not in the form BB-bbbb-AAAAAAA-SSS' | 'unknown bank' | 'wrong check digit';

export function bankAccountProblem(text: string): BankAccountProblem | null {
  const parts = parseBankAccount(text);
  if (!parts) return 'not in the form BB-bbbb-AAAAAAA-SSS';
  const remainder = bankAccountRemainder(parts);
  if (remainder === null) return 'unknown bank';
  return remainder === 0 ? null : 'wrong check digit';
}

export function isValidBankAccount(text: string): boolean {
  return bankAccountProblem(text) === null;
}

/** An account's four parts as the register publishes them (`bankId`, `bankBranch`, `accountBase`, `accountSuffix`). */
export interface BankAccountFields {
  bankId: string;
  bankBranch: string;
  accountBase: string;
  accountSuffix: string;
}

/** The published parts of a written account (`01-0902-0068389-00`); null when it is not one. */
export function bankAccountFields(text: string): BankAccountFields | null {
  const match = BANK_ACCOUNT.exec(text.trim());
  if (!match) return null;
  const parts = parseBankAccount(text)!;
  const written = formatBankAccount(parts, parts.suffix > 99 ? 3 : 2).split('-');
  return {
    bankId: written[0]!,
    bankBranch: written[1]!,
    accountBase: written[2]!,
    accountSuffix: written[3]!,
  };
}

/** The usual written form: 2-4-7-2 digits (a three- or four-digit suffix stays as written). */
export function formatBankAccount(parts: BankAccountParts, suffixDigits = 2): string {
  return [
    String(parts.bank).padStart(2, '0'),
    String(parts.branch).padStart(4, '0'),
    String(parts.account).padStart(7, '0'),
    String(parts.suffix).padStart(suffixDigits, '0'),
  ].join('-');
}

// ---------------------------------------------------------------------------------------------
// Australian Company Number (9 digits) and Australian Business Number (11 digits), per ASIC and ATO

export function acnCheckDigit(first8: string): number {
  const digits = digitsOf(first8);
  let sum = 0;
  for (let i = 0; i < 8; i++) sum += digits[i]! * (8 - i);
  return (10 - (sum % 10)) % 10;
}

export function isValidAcn(text: string): boolean {
  const digits = text.replace(/\s/g, '');
  return /^\d{9}$/.test(digits) && acnCheckDigit(digits.slice(0, 8)) === Number(digits[8]);
}

const ABN_WEIGHTS = [10, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19] as const;

export function isValidAbn(text: string): boolean {
  const digits = text.replace(/\s/g, '');
  if (!/^\d{11}$/.test(digits) || digits[0] === '0') return false;
  const values = digitsOf(digits);
  values[0]! -= 1;
  let sum = 0;
  for (let i = 0; i < 11; i++) sum += values[i]! * ABN_WEIGHTS[i]!;
  return sum % 89 === 0;
}

/** A company's ABN is two check digits followed by its ACN; finds those digits (always exist). */
export function abnForAcn(acn: string): string {
  for (let prefix = 10; prefix <= 99; prefix++) {
    const candidate = String(prefix) + acn;
    if (isValidAbn(candidate)) return candidate;
  }
  throw new RangeError(`no ABN for ACN ${acn}`);
}

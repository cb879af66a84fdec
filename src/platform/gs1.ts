/**
 * GS1 Global Location Numbers (GLN): the business number (NZBN) and the organisation part number
 * (OPN) are both 13-digit GLNs whose last digit is a GS1 mod-10 check digit. Registers other than the
 * business number register check business numbers with it too (the secured interests register's debtors).
 *
 * GS1 weights the data digits 3, 1, 3, 1 … from the right; for the 12 data digits of a GLN that is
 * the same as 1, 3, 1, 3 … from the left, which is how the register's documentation states it.
 */

export const GLN_LENGTH = 13;

/** Why a string is not a valid GLN; `null` when it is one. */
export type GlnProblem =
  | { readonly rule: 'not 13 digits'; readonly message: string }
  | { readonly rule: 'wrong check digit'; readonly expected: number; readonly message: string };

const THIRTEEN_DIGITS = /^\d{13}$/;
const TWELVE_DIGITS = /^\d{12}$/;

/** The check digit for 12 data digits. Throws on anything but exactly 12 digits. */
export function glnCheckDigit(prefix12: string): number {
  if (!TWELVE_DIGITS.test(prefix12)) {
    throw new RangeError(`a GLN check digit needs exactly 12 digits, got ${JSON.stringify(prefix12)}`);
  }
  return checkDigitOf(prefix12);
}

/** The full 13-digit GLN: the 12 data digits followed by their check digit. */
export function withCheckDigit(prefix12: string): string {
  return prefix12 + String(glnCheckDigit(prefix12));
}

export function isValidGln(value: string): boolean {
  return glnProblem(value) === null;
}

/**
 * Validates a candidate GLN and names the rule it breaks, so an API can answer 400 with the rule
 * (for example "wrong check digit, expected 4") rather than a bare "invalid".
 */
export function glnProblem(value: string): GlnProblem | null {
  if (!THIRTEEN_DIGITS.test(value)) {
    return { rule: 'not 13 digits', message: 'not 13 digits' };
  }
  const expected = checkDigitOf(value.slice(0, 12));
  if (value.charCodeAt(12) - 48 !== expected) {
    return { rule: 'wrong check digit', expected, message: `wrong check digit, expected ${expected}` };
  }
  return null;
}

function checkDigitOf(digits12: string): number {
  let sum = 0;
  for (let i = 0; i < 12; i++) {
    const digit = digits12.charCodeAt(i) - 48;
    sum += i % 2 === 0 ? digit : digit * 3;
  }
  return (10 - (sum % 10)) % 10;
}

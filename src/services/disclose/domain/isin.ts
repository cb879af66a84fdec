/**
 * International Securities Identification Numbers (ISO 6166): two letters of the issuing country, nine
 * letters or digits, and a check digit. The check digit is the Luhn digit of the first eleven characters
 * with each letter written as two digits (A = 10 … Z = 35), e.g. `NZFBUE0001S0` (published register data
 * uses ISINs for holdings of listed securities).
 */

const ISIN = /^[A-Z]{2}[A-Z0-9]{9}[0-9]$/;

/** The digits the Luhn check runs over: digits as they are, letters as two digits. */
function expanded(body: string): string {
  let digits = '';
  for (const character of body) {
    const code = character.charCodeAt(0);
    digits += code >= 65 ? String(code - 55) : character;
  }
  return digits;
}

/** The check digit of the first 11 characters of an ISIN. */
export function isinCheckDigit(first11: string): number {
  if (!/^[A-Z]{2}[A-Z0-9]{9}$/.test(first11))
    throw new RangeError(`${JSON.stringify(first11)} is not an ISIN body`);
  const digits = expanded(first11);
  let sum = 0;
  // Luhn: from the right, double every other digit starting with the rightmost (the check digit is appended).
  for (let i = digits.length - 1, double = true; i >= 0; i--, double = !double) {
    let d = digits.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return (10 - (sum % 10)) % 10;
}

/** Why a value is not an ISIN, or null when it is one. */
export function isinProblem(value: string): string | null {
  if (!ISIN.test(value)) return 'must be 2 letters, 9 letters or digits and a check digit (ISO 6166)';
  const expected = isinCheckDigit(value.slice(0, 11));
  return value.charCodeAt(11) - 48 === expected ? null : `has a wrong check digit, expected ${expected}`;
}

export const withIsinCheckDigit = (first11: string): string => `${first11}${isinCheckDigit(first11)}`;

/**
 * Registration numbers of financing statements: 16 upper-case letters and digits, like the published
 * example `FH04R729A8ND9224`. Ours: the number is drawn from the environment's keyed random source, so it
 * cannot be guessed from the previous one; the register retries on the (unlikely) clash.
 */

export const REGISTRATION_NUMBER = /^[A-Z0-9]{16}$/;
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

export const isRegistrationNumber = (value: string): boolean => REGISTRATION_NUMBER.test(value);

/** A registration number from 16 random bytes (each byte picks one of 36 characters; the bias is < 0.5%). */
export function registrationNumberFrom(bytes: Uint8Array): string {
  if (bytes.length < 16) throw new RangeError('a registration number needs 16 random bytes');
  let number = '';
  for (let i = 0; i < 16; i++) number += ALPHABET[bytes[i]! % 36];
  return number;
}

/** PINs issued with a registration (the financing statement's and the debtor's): 8 digits. Ours. */
export function pinFrom(bytes: Uint8Array): string {
  if (bytes.length < 4) throw new RangeError('a PIN needs 4 random bytes');
  const value = ((bytes[0]! << 24) | (bytes[1]! << 16) | (bytes[2]! << 8) | bytes[3]!) >>> 0;
  return String(value % 100_000_000).padStart(8, '0');
}

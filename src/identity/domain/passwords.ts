import { randomBytes, scrypt as scryptCallback, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const scrypt = promisify(scryptCallback) as (
  password: string,
  salt: Buffer,
  length: number,
  options: object,
) => Promise<Buffer>;

/**
 * scrypt with N = 2^15, r = 8, p = 1 (OWASP's floor for scrypt); parameters travel with the hash, so a
 * hash made at any cost is checked at the cost it was made with. `RSG_PASSWORD_COST` (log2 N, 10 to 20,
 * default 15; set by the runtime from its configuration) changes the cost of new hashes: the test suite
 * lowers it, since hundreds of sign-ups at 2^15 cost it half a minute of CPU; a real deployment never should.
 */
export const DEFAULT_PASSWORD_COST = 15;
let N = 2 ** DEFAULT_PASSWORD_COST;
const R = 8;
const P = 1;
const LENGTH = 32;

export const PASSWORD_RULE = 'must be 10 to 200 characters';

export function passwordProblem(password: string): string | undefined {
  return password.length < 10 || password.length > 200 ? PASSWORD_RULE : undefined;
}

/** The cost (log2 N) of hashes made from now on in this process. */
export function setPasswordCost(log2N: number): void {
  if (!Number.isInteger(log2N) || log2N < 10 || log2N > 20)
    throw new RangeError('password cost must be 10 to 20');
  N = 2 ** log2N;
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scrypt(password, salt, LENGTH, { N, r: R, p: P, maxmem: 64 * 1024 * 1024 });
  return `scrypt$${N}$${R}$${P}$${salt.toString('base64url')}$${hash.toString('base64url')}`;
}

export async function verifyPassword(password: string, stored: string | null | undefined): Promise<boolean> {
  const parts = (stored ?? '').split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') {
    // Spend the same time as a real check, so a missing account is not told apart by timing.
    await hashPassword(password);
    return false;
  }
  const [, n, r, p, salt, expected] = parts as [string, string, string, string, string, string];
  const wanted = Buffer.from(expected, 'base64url');
  const actual = await scrypt(password, Buffer.from(salt, 'base64url'), wanted.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: 64 * 1024 * 1024,
  });
  return actual.length === wanted.length && timingSafeEqual(actual, wanted);
}

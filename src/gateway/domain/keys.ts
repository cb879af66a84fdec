import { createHash, randomBytes } from 'node:crypto';

/** 32 random bytes, hex: the same alphabet and feel as API Management's keys, twice the entropy. */
export function generateKey(): string {
  return randomBytes(32).toString('hex');
}

export function hashKey(key: string): Buffer {
  return createHash('sha256').update(key, 'utf8').digest();
}

export const keyHint = (key: string): string => key.slice(-4);

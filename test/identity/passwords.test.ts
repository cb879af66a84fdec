import { afterEach, describe, expect, it } from 'vitest';
import {
  DEFAULT_PASSWORD_COST,
  hashPassword,
  setPasswordCost,
  verifyPassword,
} from '../../src/identity/domain/passwords.ts';

describe('password hashes', () => {
  afterEach(() => setPasswordCost(10));

  it('carry the cost they were made with, and are checked at that cost whatever the present one', async () => {
    setPasswordCost(DEFAULT_PASSWORD_COST);
    const strong = await hashPassword('correct horse battery');
    expect(strong).toMatch(/^scrypt\$32768\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
    setPasswordCost(10);
    const light = await hashPassword('correct horse battery');
    expect(light).toMatch(/^scrypt\$1024\$8\$1\$/);
    expect(await verifyPassword('correct horse battery', strong)).toBe(true);
    expect(await verifyPassword('correct horse battery', light)).toBe(true);
    expect(await verifyPassword('correct horse batterY', strong)).toBe(false);
    expect(await verifyPassword('correct horse battery', null)).toBe(false);
    expect(await verifyPassword('correct horse battery', 'bcrypt$12$x')).toBe(false);
  });

  it('refuse a cost outside 10 to 20', () => {
    expect(() => setPasswordCost(9)).toThrow(RangeError);
    expect(() => setPasswordCost(21)).toThrow(RangeError);
    expect(() => setPasswordCost(12.5)).toThrow(RangeError);
  });
});

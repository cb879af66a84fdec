import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { addUser, signIn } from '../../src/identity/operations/users.ts';
import { type TestGateway, testGateway } from '../support/runtime.ts';

// scrypt counted where the password module calls it: a sign-in's cost is its hashing.
const hashed = vi.hoisted(() => ({ count: 0 }));
vi.mock('node:crypto', async (original) => {
  const crypto = await original<typeof import('node:crypto')>();
  return {
    ...crypto,
    scrypt: (...args: Parameters<typeof crypto.scrypt>) => {
      hashed.count++;
      return (crypto.scrypt as (...a: unknown[]) => void)(...args);
    },
  };
});

let gateway: TestGateway;
beforeAll(async () => {
  gateway = await testGateway();
  await addUser(gateway.runtime.gateway.pool, {
    email: 'known@example.test',
    password: 'correct horse battery',
  });
  await addUser(gateway.runtime.gateway.pool, { email: 'nopassword@example.test' });
});
afterAll(() => gateway?.close());

const hashesOf = async (email: string, password: string) => {
  const before = hashed.count;
  const user = await signIn(gateway.runtime.gateway.pool, email, password);
  return { user, hashes: hashed.count - before };
};

describe('signIn', () => {
  it('signs in with the right password', async () => {
    const { user, hashes } = await hashesOf('known@example.test', 'correct horse battery');
    expect(user?.email).toBe('known@example.test');
    expect(hashes).toBe(1);
  });

  it('hashes once whether the account exists or not, so timing does not tell accounts apart', async () => {
    const wrong = await hashesOf('known@example.test', 'another horse battery');
    const unknown = await hashesOf('nobody@example.test', 'another horse battery');
    const noPassword = await hashesOf('nopassword@example.test', 'another horse battery');
    const empty = await hashesOf('', 'another horse battery');
    expect([wrong.user, unknown.user, noPassword.user, empty.user]).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    expect([wrong.hashes, unknown.hashes, noPassword.hashes, empty.hashes]).toEqual([1, 1, 1, 1]);
  });
});

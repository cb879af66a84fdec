import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyPassword } from '../../src/identity/domain/passwords.ts';
import { addUser, signIn } from '../../src/identity/operations/users.ts';
import { type TestGateway, testGateway } from '../support/runtime.ts';

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

/** A sign-in with the real password check, counting how often it ran: a sign-in's cost is its hashing. */
const checksOf = async (email: string, password: string) => {
  let checks = 0;
  const counted: typeof verifyPassword = (given, stored) => {
    checks++;
    return verifyPassword(given, stored);
  };
  const user = await signIn(gateway.runtime.gateway.pool, email, password, counted);
  return { user, checks };
};

describe('signIn', () => {
  it('signs in with the right password', async () => {
    const { user, checks } = await checksOf('known@example.test', 'correct horse battery');
    expect(user?.email).toBe('known@example.test');
    expect(checks).toBe(1);
  });

  it('checks a password whether or not the account exists, so timing does not tell accounts apart', async () => {
    const wrong = await checksOf('known@example.test', 'another horse battery');
    const unknown = await checksOf('nobody@example.test', 'another horse battery');
    const noPassword = await checksOf('nopassword@example.test', 'another horse battery');
    const empty = await checksOf('', 'another horse battery');
    expect([wrong.user, unknown.user, noPassword.user, empty.user]).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    expect([wrong.checks, unknown.checks, noPassword.checks, empty.checks]).toEqual([1, 1, 1, 1]);
  });
});

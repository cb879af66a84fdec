import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyPassword } from '../../src/identity/domain/passwords.ts';
import { UserError } from '../../src/identity/errors.ts';
import { addUser } from '../../src/identity/operations/users.ts';
import { type TestGateway, testGateway } from '../support/runtime.ts';

let gateway: TestGateway;
beforeAll(async () => {
  gateway = await testGateway();
});
afterAll(() => gateway?.close());

const storedHash = async (email: string) =>
  (
    await gateway.runtime.gateway.pool.query<{ password_hash: string | null }>(
      'SELECT password_hash FROM users WHERE email = $1',
      [email],
    )
  ).rows[0]?.password_hash;

describe('addUser', () => {
  it('stores the password with the user, in one statement', async () => {
    await addUser(gateway.runtime.gateway.pool, {
      email: 'whole@example.test',
      password: 'correct horse battery',
    });
    expect(await verifyPassword('correct horse battery', await storedHash('whole@example.test'))).toBe(true);
  });

  it('refuses a password that breaks the rule and then adds nobody', async () => {
    await expect(
      addUser(gateway.runtime.gateway.pool, { email: 'short@example.test', password: 'short' }),
    ).rejects.toBeInstanceOf(UserError);
    expect(await storedHash('short@example.test')).toBeUndefined();
  });

  it('without a password, adds a user who has none yet', async () => {
    await addUser(gateway.runtime.gateway.pool, { email: 'later@example.test' });
    expect(await storedHash('later@example.test')).toBeNull();
  });
});

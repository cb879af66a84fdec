import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serviceIdentity } from '../../src/identity/operations/service-identity.ts';
import { addUser } from '../../src/identity/operations/users.ts';
import { setClock } from '../../src/platform/environment-clocks.ts';
import { type TestGateway, testGateway } from '../support/runtime.ts';

/**
 * A service's grants and revocations are dated by its environment's clock: in a sandbox on a virtual
 * clock, an authority granted "now" starts at the sandbox's now (a register shows it as its startDate),
 * not at the machine's.
 */
let t: TestGateway;
const SANDBOX_NOW = '2026-06-15T00:00:00.000Z';

beforeAll(async () => {
  t = await testGateway({ clockMode: 'virtual' });
  await setClock(t.runtime.gateway.pool, 'sandbox', SANDBOX_NOW);
  await t.runtime.clocks.reload();
});
afterAll(async () => t?.close());

describe('service identity', () => {
  it('dates a grant and a revocation by the environment’s clock', async () => {
    const pool = t.runtime.gateway.pool;
    const user = await addUser(pool, { email: `clock-${Date.now()}@example.test` });
    const identity = serviceIdentity(pool, 'sandbox', 'nzbn', t.runtime.clocks.for('sandbox'));
    const before = t.runtime.clocks.for('sandbox').now().getTime();
    const held = (await identity.grantAuthority('entity', '9429000000001', { userId: user.id }))!;
    const after = t.runtime.clocks.for('sandbox').now().getTime();
    expect(held.grantedAt.getTime()).toBeGreaterThanOrEqual(before);
    expect(held.grantedAt.getTime()).toBeLessThanOrEqual(after);
    // The sandbox's now, months before the machine's.
    expect(held.grantedAt.toISOString().slice(0, 10)).toBe('2026-06-15');
    expect(await identity.revokeAuthority('entity', '9429000000001', held.id)).toBe(true);
    const { rows } = await pool.query<{ revoked_at: Date }>(
      'SELECT revoked_at FROM authorities WHERE id = $1',
      [held.id],
    );
    expect(rows[0]!.revoked_at.toISOString().slice(0, 10)).toBe('2026-06-15');
  });
});

import { seedNzbn } from '../../src/services/nzbn/sandbox/seed.ts';
import type { TestGateway } from './runtime.ts';

/**
 * The sandbox business number register for tests that need some of it (other registers take their
 * debtors and companies from it; the gateway's own tests need an entity to read): its fixed test
 * businesses and `entities` generated ones, on the sandbox clock, granting no one anything.
 */
export async function seedBusinessNumbers(gateway: TestGateway, entities: number): Promise<void> {
  await seedNzbn(
    {
      database: gateway.runtime.environments.sandbox,
      scale: 'small',
      clock: gateway.runtime.clocks.for('sandbox'),
      log: () => {},
      identity: { grantOperatorsAuthority: async () => {} },
    },
    { entities, chunkSize: 1_000, threads: 0 },
  );
}

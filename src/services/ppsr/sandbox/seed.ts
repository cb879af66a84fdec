/**
 * The sandbox register: generated financing statements (sandbox/generator.ts) loaded with COPY a chunk
 * at a time (store/seed.ts), then the fixed test cases (sandbox/fixtures.ts). Organisation debtors and
 * the secured parties are companies of the sandbox business number register (same names and numbers),
 * which is seeded first.
 */
import type { SeedContext, SeedScale } from '../../contract.ts';
import { loadChunk, seededCount, settleAfterLoad } from '../store/seed.ts';
import { fixtureStatements } from './fixtures.ts';
import { generateStatement, lendersOf, type OrganisationSource } from './generator.ts';

export const STATEMENTS: Record<SeedScale, number> = { small: 5_000, full: 1_000_000 };
/** Small is the first chunk of full: a later full seed adds the rest. */
const CHUNK = 5_000;
/** How many of the business number register's companies debtors are drawn from. */
const COMPANIES = 50_000;

/** Used only when no business number register is there (a service seeded on its own). */
const STANDALONE: OrganisationSource = {
  count: 1,
  organisation: () => ({ name: 'SANDBOX HOLDINGS LIMITED', nzbn: '9429000000000' }),
};

export async function seedPpsr(context: SeedContext): Promise<string> {
  const pool = context.database.pool;
  const companies = (await context.registers?.businessNumbers?.companies(COMPANIES)) ?? [];
  const source: OrganisationSource = companies.length
    ? {
        count: companies.length,
        organisation: (i) => companies[i % companies.length]!,
        lenders: lendersOf(companies),
      }
    : STANDALONE;
  const now = context.clock.now().getTime();
  const total = STATEMENTS[context.scale];
  const chunks = Math.ceil(total / CHUNK);
  let loaded = 0;
  for (let chunk = 0; chunk < chunks; chunk++) {
    const first = chunk * CHUNK;
    const count = Math.min(CHUNK, total - first);
    loaded += await loadChunk(pool, 'generated', chunk, () =>
      Array.from({ length: count }, (_, i) => generateStatement(first + i, now, source)),
    );
    if (loaded > 0 && chunk % 10 === 9) context.log(`ppsr: ${(chunk + 1) * CHUNK} of ${total} statements`);
  }
  // The fixtures are the operators' organisation's: its lists (discharged, fees) hold them, and its members
  // read them whole; anyone else still amends, renews and discharges them with their PIN.
  const owner = await context.identity.operatorsOrganisationId?.();
  loaded += await loadChunk(pool, 'fixtures', 0, () =>
    fixtureStatements(now, companies[0]).map((s) => (owner ? { ...s, organisationId: owner } : s)),
  );
  if (loaded > 0) await settleAfterLoad(pool);
  const present = await seededCount(pool, 'generated');
  return `${present.toLocaleString('en-NZ')} financing statements and the fixed test cases`;
}

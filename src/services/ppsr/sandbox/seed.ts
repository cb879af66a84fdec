/**
 * The sandbox register: generated financing statements (sandbox/generator.ts) loaded with COPY a chunk
 * at a time (store/seed.ts; a large load in one transaction, its indexes built after it), then the
 * fixed test cases (sandbox/fixtures.ts). Organisation debtors and
 * the secured parties are companies of the sandbox business number register (same names and numbers),
 * which is seeded first.
 */
import type { SeedContext, SeedScale } from '../../contract.ts';
import {
  copyChunk,
  loadChunk,
  loadedChunks,
  loadInBulk,
  seededCount,
  settleAfterLoad,
} from '../store/seed.ts';
import { fixtureStatements } from './fixtures.ts';
import { generateStatement, lendersOf, type OrganisationSource } from './generator.ts';

export const STATEMENTS: Record<SeedScale, number> = { small: 5_000, full: 1_000_000 };
/** Small is the first chunk of full: a later full seed adds the rest. */
const CHUNK = 5_000;
/** Loads of at least this many chunks are one transaction with the indexes built after it. */
const BULK_CHUNKS = 10;
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
  const present = await loadedChunks(pool, 'generated');
  const missing = Array.from({ length: chunks }, (_, chunk) => chunk).filter((chunk) => !present.has(chunk));
  const make = (chunk: number) => () => {
    const first = chunk * CHUNK;
    const count = Math.min(CHUNK, total - first);
    return Array.from({ length: count }, (_, i) => generateStatement(first + i, now, source));
  };
  let loaded = 0;
  const progress = (done: number) => {
    if (done % 10 === 0) context.log(`ppsr: ${done * CHUNK} of ${missing.length * CHUNK} statements`);
  };
  if (missing.length >= BULK_CHUNKS) {
    // Many chunks: one transaction, the indexes and foreign keys made once after the load.
    await loadInBulk(pool, async (client) => {
      for (const [i, chunk] of missing.entries()) {
        loaded += await copyChunk(client, 'generated', chunk, make(chunk));
        progress(i + 1);
      }
      context.log('ppsr: indexing');
    });
  } else {
    for (const [i, chunk] of missing.entries()) {
      loaded += await loadChunk(pool, 'generated', chunk, make(chunk));
      progress(i + 1);
    }
  }
  // The fixtures are the operators' organisation's: its lists (discharged, fees) hold them, and its members
  // read them whole; anyone else still amends, renews and discharges them with their PIN.
  const owner = await context.identity.operatorsOrganisationId?.();
  loaded += await loadChunk(pool, 'fixtures', 0, () =>
    fixtureStatements(now, companies[0]).map((s) => (owner ? { ...s, organisationId: owner } : s)),
  );
  if (loaded > 0) await settleAfterLoad(pool);
  const stored = await seededCount(pool, 'generated');
  return `${stored.toLocaleString('en-NZ')} financing statements and the fixed test cases`;
}

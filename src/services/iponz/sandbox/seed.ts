/**
 * The seed hook: the fixed test cases, then the generated clients and cases of the scale, a chunk at a
 * time, all in one transaction with the tables' secondary indexes and foreign keys made after the load.
 * Deterministic for a scale and the sandbox's "today"; a register already seeded is left as it is.
 */
import { nzDate } from '../../../platform/calendar.ts';
import { withIndexesDeferred } from '../../../platform/db/bulk-load.ts';
import { withTransaction } from '../../../platform/db/pool.ts';
import type { SeedContext } from '../../contract.ts';
import { REGISTERED_USER } from '../domain/registration.ts';
import type { CaseKind } from '../domain/renewals.ts';
import { insertInternationalApplications } from '../store/applications.ts';
import {
  copyCases,
  copyClients,
  type GeneratedCase,
  registerCounts,
  settleTitleWords,
} from '../store/seed.ts';
import { FIXED_CLIENTS, FIXTURE_CASES, FIXTURE_CLIENTS, fixedCases } from './fixtures.ts';
import { generateCase, generateClient, type OrganisationSource, PLANS, type Plan } from './generator.ts';
import { internationalApplications } from './international-applications.ts';

const CHUNK = 5_000;
/** The tables the seed fills. */
const SEEDED_TABLES = [
  'iponz_clients',
  'iponz_client_addresses',
  'iponz_cases',
  'iponz_status_history',
  'iponz_case_parties',
  'iponz_case_documents',
  'iponz_goods_services',
  'iponz_title_words',
];
const KINDS: readonly CaseKind[] = ['patent', 'trademark', 'design'];
const PLAN_OF: Record<CaseKind, 'patents' | 'trademarks' | 'designs'> = {
  patent: 'patents',
  trademark: 'trademarks',
  design: 'designs',
};

/** `plan` overrides the scale's counts (benchmarks and tests). */
export async function seedIponz(context: SeedContext, override: Partial<Plan> = {}): Promise<string> {
  const pool = context.database.pool;
  // The operators' sandbox users are registered with the office (they may pay renewals).
  await context.identity.grantOperatorsAuthority('iponz', REGISTERED_USER.kind, REGISTERED_USER.objectId);
  // The published international applications national phase filings name (kept when already there).
  await insertInternationalApplications(
    pool,
    internationalApplications(nzDate(context.clock.now().getTime())),
  );
  const existing = await registerCounts(pool);
  if (existing.clients > 0)
    return `iponz: already seeded (${existing.clients} clients, ${existing.cases} cases)`;
  const now = context.clock.now();
  const today = nzDate(now.getTime());
  const plan: Plan = { ...PLANS[context.scale], ...override };
  // Business clients take the sandbox business number register's companies (names and numbers), asked
  // through the contract (`registers`), where that register is seeded.
  const businesses =
    (await context.registers?.businessNumbers?.companies(FIXTURE_CLIENTS + plan.clients)) ?? [];
  const organisations: OrganisationSource = {
    count: businesses.length,
    organisation: (index) => businesses[index]!,
  };
  // One transaction: the register is there whole or not at all, and its indexes and foreign keys are
  // made once over the loaded rows rather than kept row by row.
  await withTransaction(pool, (tx) =>
    withIndexesDeferred(tx, SEEDED_TABLES, async () => {
      await copyClients(tx, FIXED_CLIENTS, now);
      for (let from = 0; from < plan.clients; from += CHUNK) {
        const chunk = [];
        for (let i = from; i < Math.min(plan.clients, from + CHUNK); i++)
          chunk.push(generateClient(FIXTURE_CLIENTS + i, organisations));
        await copyClients(tx, chunk, now);
      }
      await copyCases(tx, fixedCases(today), now);
      for (const kind of KINDS) {
        const total = plan[PLAN_OF[kind]];
        for (let from = 0; from < total; from += CHUNK) {
          const chunk: GeneratedCase[] = [];
          for (let i = from; i < Math.min(total, from + CHUNK); i++)
            chunk.push(generateCase(kind, FIXTURE_CASES + i, today, plan.clients, total));
          await copyCases(tx, chunk, now);
        }
        context.log(`iponz: ${total} ${PLAN_OF[kind]}`);
      }
      context.log('iponz: indexing');
    }),
  );
  await settleTitleWords(pool);
  const counts = await registerCounts(pool);
  return `iponz: ${counts.clients} clients (businesses from the business number register: ${businesses.length > 0 ? 'yes' : 'none seeded'}), ${counts.cases} cases (${context.scale}, as of ${today})`;
}

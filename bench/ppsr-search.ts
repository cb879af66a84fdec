import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { nzDate } from '../src/platform/calendar.ts';
import { migrate } from '../src/platform/db/migrations.ts';
import { openDatabase } from '../src/platform/db/pool.ts';
import { withCheckDigit } from '../src/platform/gs1.ts';
import type { SearchCriterion } from '../src/services/ppsr/domain/search.ts';
import { lookupOf } from '../src/services/ppsr/domain/search-keys.ts';
import { generateStatement, type OrganisationSource } from '../src/services/ppsr/sandbox/generator.ts';
import { loadChunk, settleAfterLoad } from '../src/services/ppsr/store/seed.ts';
import { findInForce } from '../src/services/ppsr/store/statements.ts';
import { benchDatabases, median, recordResults, root } from './support.ts';

/**
 * Secured interests register searches at national scale: the register's search (an index-only
 * range of `ppsr_search_keys`, stopping at 300) against the straightforward query on the same data (a
 * scan of every statement's document with ILIKE), by VIN, by plate and by debtor organisation
 * starts-with, inside the database client (no HTTP). Goals: VIN or plate p95 ≤ 10 ms, organisation
 * starts-with p95 ≤ 25 ms. Also the seed's load rate. Interleaved by round; medians of per-round p95s.
 *
 * BENCH_STATEMENTS (default 1,000,000), BENCH_ROUNDS (5), BENCH_QUERIES (200 per kind and round for the
 * register's search; the scan runs 3 per kind and round, as each takes a whole scan).
 */
const STATEMENTS = Number(process.env.BENCH_STATEMENTS ?? 1_000_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const QUERIES = Number(process.env.BENCH_QUERIES ?? 200);
const SCANS = 3;
const CHUNK = 10_000;
const NOW = Date.parse('2026-11-24T00:00:00Z');
const TODAY = nzDate(NOW);

const WORDS = [
  'Aotearoa',
  'Kauri',
  'Harbour',
  'Southern',
  'Alpine',
  'Pacific',
  'Totara',
  'Rimu',
  'Coastal',
  'Summit',
  'Tasman',
  'Kiwi',
  'Manuka',
  'Pohutukawa',
  'River',
  'Valley',
  'Highland',
  'Canterbury',
  'Waikato',
  'Otago',
];
const TRADES = [
  'Holdings',
  'Contracting',
  'Transport',
  'Farming',
  'Builders',
  'Logistics',
  'Dairy',
  'Motors',
];
const organisations: OrganisationSource = {
  count: 200_000,
  organisation: (i) => ({
    name: `${WORDS[i % 20]} ${WORDS[Math.floor(i / 20) % 20]} ${TRADES[Math.floor(i / 400) % 8]} ${i} Limited`,
    nzbn: withCheckDigit(String(942_000_000_000 + i)),
  }),
};

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};

async function main() {
  const databases = await benchDatabases('ppsr', { migrate: false });
  const database = openDatabase(databases.setup.urls.sandbox, 4);
  try {
    await migrate(database.pool, [{ module: 'ppsr', dir: path.join(root, 'src/services/ppsr/migrations') }]);
    const loadStart = performance.now();
    const chunks = Math.ceil(STATEMENTS / CHUNK);
    for (let chunk = 0; chunk < chunks; chunk++) {
      const size = Math.min(CHUNK, STATEMENTS - chunk * CHUNK);
      await loadChunk(database.pool, 'bench', chunk, () =>
        Array.from({ length: size }, (_, i) => generateStatement(chunk * CHUNK + i, NOW, organisations)),
      );
    }
    await settleAfterLoad(database.pool);
    const loadSeconds = (performance.now() - loadStart) / 1000;
    process.stderr.write(`loaded ${STATEMENTS} statements in ${loadSeconds.toFixed(1)} s\n`);

    // Targets: keys of statements in force, drawn at random from the register.
    const targets = async (kind: string, n: number) =>
      (
        await database.pool.query<{ key: string }>(
          `SELECT k.key FROM ppsr_search_keys k JOIN ppsr_financing_statements s USING (registration_number)
            WHERE k.kind = $1 AND s.discharged_at IS NULL AND s.expiry_date >= $2 ORDER BY random() LIMIT $3`,
          [kind, TODAY, n],
        )
      ).rows.map((r) => r.key);
    const vins = await targets('vin', QUERIES);
    const plates = await targets('registrationPlate', QUERIES);
    // Starts-with: 2 to 6 characters of a registered name (short prefixes match thousands).
    const names = (await targets('organisationName', QUERIES)).map((name, i) => name.slice(0, 2 + (i % 5)));
    const kinds: Record<
      string,
      { criteria: SearchCriterion[]; scan: (value: SearchCriterion) => Promise<unknown> }
    > = {
      vin: {
        criteria: vins.map((value) => ({ kind: 'vin', value })),
        scan: (c) =>
          database.pool.query(
            `SELECT registration_number FROM ppsr_financing_statements
              WHERE discharged_at IS NULL AND expiry_date >= $1 AND document::text ILIKE '%' || $2 || '%' LIMIT 300`,
            [TODAY, (c as { value: string }).value],
          ),
      },
      plate: {
        criteria: plates.map((value) => ({ kind: 'registrationPlate', value })),
        scan: (c) =>
          database.pool.query(
            `SELECT registration_number FROM ppsr_financing_statements
              WHERE discharged_at IS NULL AND expiry_date >= $1 AND document::text ILIKE '%"registrationPlate": "' || $2 || '"%' LIMIT 300`,
            [TODAY, (c as { value: string }).value],
          ),
      },
      organisation: {
        criteria: names.map((name) => ({ kind: 'organisationName', name, exact: false })),
        scan: (c) =>
          database.pool.query(
            `SELECT registration_number FROM ppsr_financing_statements s
              WHERE discharged_at IS NULL AND expiry_date >= $1 AND EXISTS (
                SELECT 1 FROM jsonb_array_elements(s.document->'debtors') d
                 WHERE d->>'organisationName' ILIKE $2 || '%')
              ORDER BY registration_number LIMIT 300`,
            [TODAY, (c as { name: string }).name],
          ),
      },
    };
    const p95s: Record<string, { register: number[]; scan: number[]; found: number[] }> = {};
    for (let round = 0; round < ROUNDS; round++) {
      for (const [kind, { criteria, scan }] of Object.entries(kinds)) {
        p95s[kind] ??= { register: [], scan: [], found: [] };
        const entry = p95s[kind];
        const timeRegister = async () => {
          const times: number[] = [];
          for (const criterion of criteria) {
            const start = performance.now();
            const found = await findInForce(database.pool, lookupOf(criterion), TODAY, 300);
            times.push(performance.now() - start);
            entry.found.push(found.length);
          }
          entry.register.push(percentile(times, 95));
        };
        const timeScan = async () => {
          const times: number[] = [];
          for (const criterion of criteria.slice(round * SCANS, round * SCANS + SCANS)) {
            const start = performance.now();
            await scan(criterion);
            times.push(performance.now() - start);
          }
          entry.scan.push(percentile(times, 95));
        };
        if (round % 2 === 0) {
          await timeRegister();
          await timeScan();
        } else {
          await timeScan();
          await timeRegister();
        }
      }
      process.stderr.write(`round ${round + 1}/${ROUNDS}\n`);
    }
    const goal: Record<string, number> = { vin: 10, plate: 10, organisation: 25 };
    const rows = Object.entries(p95s).map(([kind, e]) => {
      const register = median(e.register);
      const scan = median(e.scan);
      const met = register <= goal[kind]! ? 'met' : '**not met**';
      return `| ${kind} | ${register.toFixed(2)} | ${scan.toFixed(0)} | ${(scan / register).toFixed(0)}× | ≤ ${goal[kind]} ms: ${met} | ${median(e.found)} |`;
    });
    const markdown = `### Secured interests register: search at ${STATEMENTS.toLocaleString('en-NZ')} statements (\`npm run bench:ppsr-search\`)

${databases.label}; ${ROUNDS} rounds, ${QUERIES} searches per kind and round for the register's search, ${SCANS} for the scan;
medians of the per-round p95 (ms), measured in the database client (no HTTP). Loading the generated register
(COPY, chunks of ${CHUNK.toLocaleString('en-NZ')}: statements, versions, search keys) took ${loadSeconds.toFixed(1)} s
(${Math.round(STATEMENTS / loadSeconds).toLocaleString('en-NZ')} statements/s).

| search | register p95 (ms) | scan p95 (ms) | scan ÷ register | goal | median found |
|---|---|---|---|---|---|
${rows.join('\n')}
`;
    process.stdout.write(markdown);
    await recordResults('ppsr-search', markdown);
  } finally {
    await database.close();
    await databases.release();
  }
}

await main();
